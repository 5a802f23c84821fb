/** A select's choice: a key shown as itself, or `[value, label]`. */
type Choice = string | readonly [value: string, label: string];

/** The `<option>`s of a select, one per choice (placeholders such as "any" stay beside it in the select). */
export function Options({ items }: { items: readonly Choice[] }) {
  return items.map((item) => {
    const [value, label] = typeof item === 'string' ? [item, item] : item;
    return (
      <option key={value} value={value}>
        {label}
      </option>
    );
  });
}
