import { useEffect, useState } from 'react';

/** A text filter bound to one query-string key; applies 300 ms after typing stops. */
export function SearchBox({ label, value, onChange, placeholder }: { label: string; value: string; onChange(value: string): void; placeholder?: string }) {
  const [draft, setDraft] = useState(value);
  useEffect(() => setDraft(value), [value]);
  useEffect(() => {
    if (draft === value) return;
    const timer = setTimeout(() => onChange(draft.trim()), 300);
    return () => clearTimeout(timer);
  }, [draft, value, onChange]);
  return (
    <label className="field">
      {label}
      <input type="search" value={draft} placeholder={placeholder} onChange={(event) => setDraft(event.target.value)} />
    </label>
  );
}
