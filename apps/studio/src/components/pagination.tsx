import { useUrlState } from './url-state';

/** Previous/next for a list envelope `{total, limit, offset}`; the offset lives in the URL. */
export function Pagination({ total }: { total: number | undefined }) {
  const { offset, limit, set } = useUrlState();
  if (total === undefined || total <= limit) return null;
  const last = Math.min(offset + limit, total);
  return (
    <nav className="pagination" aria-label="Pagination">
      <span>
        {offset + 1}–{last} of {total}
      </span>
      <span className="row">
        <button type="button" disabled={offset === 0} onClick={() => set({ offset: String(Math.max(0, offset - limit)) })}>
          Previous
        </button>
        <button type="button" disabled={last >= total} onClick={() => set({ offset: String(offset + limit) })}>
          Next
        </button>
      </span>
    </nav>
  );
}
