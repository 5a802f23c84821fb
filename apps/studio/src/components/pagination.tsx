import { useUrlState } from './url-state';

/**
 * Previous/next for a list envelope `{total, limit, offset}`; the offset lives in the URL, under
 * `param` when a page has a second list (webhook endpoints and one endpoint's deliveries).
 */
export function Pagination({ total, param = 'offset' }: { total: number | undefined; param?: string }) {
  const { offsetOf, limit, set } = useUrlState();
  const offset = offsetOf(param);
  if (total === undefined || total <= limit) return null;
  const last = Math.min(offset + limit, total);
  return (
    <nav className="pagination" aria-label="Pagination">
      <span>
        {offset + 1}–{last} of {total}
      </span>
      <span className="row">
        <button type="button" disabled={offset === 0} onClick={() => set({ [param]: String(Math.max(0, offset - limit)) })}>
          Previous
        </button>
        <button type="button" disabled={last >= total} onClick={() => set({ [param]: String(offset + limit) })}>
          Next
        </button>
      </span>
    </nav>
  );
}
