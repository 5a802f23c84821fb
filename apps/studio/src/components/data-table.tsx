import { flexRender, getCoreRowModel, useReactTable, type ColumnDef } from '@tanstack/react-table';
import type { ReactNode } from 'react';
import { Empty, ErrorPanel, Skeleton } from './feedback';
import { Cell, TableRegion } from './table-region';

interface DataTableProps<Row> {
  /** accessible name of the table */
  label: string;
  columns: ColumnDef<Row, unknown>[];
  rows: Row[] | undefined;
  isLoading: boolean;
  error: unknown;
  empty: ReactNode;
}

/** A column's header as the label of its cells in a stacked row; a header drawn by a function has none. */
function columnLabel(header: unknown): string | undefined {
  return typeof header === 'string' && header !== '' ? header : undefined;
}

/** Every list of the studio: skeleton while loading, the API error, an empty state, or the rows. */
export function DataTable<Row>({ label, columns, rows, isLoading, error, empty }: DataTableProps<Row>) {
  const table = useReactTable({ data: rows ?? [], columns, getCoreRowModel: getCoreRowModel() });
  if (error !== null && error !== undefined) return <ErrorPanel error={error} />;
  if (isLoading) return <Skeleton />;
  if ((rows ?? []).length === 0) return <Empty>{empty}</Empty>;
  return (
    <TableRegion label={label}>
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
              <Cell key={cell.id} label={columnLabel(cell.column.columnDef.header)}>
                {flexRender(cell.column.columnDef.cell, cell.getContext())}
              </Cell>
            ))}
          </tr>
        ))}
      </tbody>
    </TableRegion>
  );
}
