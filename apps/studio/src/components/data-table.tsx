import { flexRender, getCoreRowModel, useReactTable, type ColumnDef } from '@tanstack/react-table';
import type { ReactNode } from 'react';
import { Empty, ErrorPanel, Skeleton } from './feedback';

interface DataTableProps<Row> {
  /** accessible name of the table */
  label: string;
  columns: ColumnDef<Row, unknown>[];
  rows: Row[] | undefined;
  isLoading: boolean;
  error: unknown;
  empty: ReactNode;
}

/** Every list of the studio: skeleton while loading, the API error, an empty state, or the rows. */
export function DataTable<Row>({ label, columns, rows, isLoading, error, empty }: DataTableProps<Row>) {
  const table = useReactTable({ data: rows ?? [], columns, getCoreRowModel: getCoreRowModel() });
  if (error !== null && error !== undefined) return <ErrorPanel error={error} />;
  if (isLoading) return <Skeleton />;
  if ((rows ?? []).length === 0) return <Empty>{empty}</Empty>;
  // a table wider than the screen scrolls sideways: the wrapper takes focus so keyboard users can scroll it
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label={label}>
      <table aria-label={label}>
        <thead>
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((header) => (
                <th key={header.id} scope="col">
                  {header.isPlaceholder ? null : flexRender(header.column.columnDef.header, header.getContext())}
                </th>
              ))}
            </tr>
          ))}
        </thead>
        <tbody>
          {table.getRowModel().rows.map((row) => (
            <tr key={row.id}>
              {row.getVisibleCells().map((cell) => (
                <td key={cell.id}>{flexRender(cell.column.columnDef.cell, cell.getContext())}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
