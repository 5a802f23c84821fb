import type { useUrlState } from './url-state';

/** `from`/`to` date filters (whole days, local time) kept in the query string as ISO dates. */
export function DateRange({ url }: { url: ReturnType<typeof useUrlState> }) {
  return (
    <>
      <label className="field">
        From
        <input type="date" value={url.get('from')} onChange={(e) => url.set({ from: e.target.value })} />
      </label>
      <label className="field">
        To
        <input type="date" value={url.get('to')} onChange={(e) => url.set({ to: e.target.value })} />
      </label>
    </>
  );
}

/** The API wants ISO 8601 with an offset; `to` covers the whole chosen day. */
export function rangeQuery(url: ReturnType<typeof useUrlState>): { from?: string; to?: string } {
  const from = url.get('from');
  const to = url.get('to');
  return {
    ...(from === '' ? {} : { from: new Date(`${from}T00:00:00`).toISOString() }),
    ...(to === '' ? {} : { to: new Date(`${to}T23:59:59.999`).toISOString() }),
  };
}
