import type { ReactNode } from 'react';

/**
 * A table in a region of its own, as DataTable draws every list and as a table drawn by hand is
 * drawn: on a narrow screen its rows stack into cards of "column: value" lines (styles.css,
 * `.stacks`) rather than scrolling sideways; a wider table scrolls, and the region takes focus so
 * keyboard users can scroll it.
 */
export function TableRegion({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="table-wrap stacks" tabIndex={0} role="region" aria-label={label}>
      <table aria-label={label}>{children}</table>
    </div>
  );
}

/** A cell that names its column (`label`) when its row is stacked; a cell without one is drawn as it is. */
export function Cell({ label, children }: { label: string | undefined; children: ReactNode }) {
  // one box for the value, so a stacked row's label and value are the two columns of one line
  return <td data-label={label}>{label === undefined ? children : <div className="cell-value">{children}</div>}</td>;
}

/** The header row of a table drawn by hand: one column header per name, in order. */
export function ColumnHeaders({ names }: { names: readonly string[] }) {
  return (
    <thead>
      <tr>
        {names.map((name) => (
          <th key={name} scope="col">
            {name}
          </th>
        ))}
      </tr>
    </thead>
  );
}
