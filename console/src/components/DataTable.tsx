// Every table of the console: sortable columns, an optional text filter, and "Download CSV" of the
// rows as filtered and sorted (TanStack Table does the row model). Columns name their raw value
// (what sorting and the CSV use) and how to render it.
import {
  flexRender,
  getCoreRowModel,
  getFilteredRowModel,
  getSortedRowModel,
  useReactTable,
  type ColumnDef,
  type SortingState,
} from '@tanstack/react-table';
import { useMemo, useState, type ReactNode } from 'react';
import { compareMoney } from '../format/money.js';
import { downloadCsv, toCsv, type CsvCell } from './csv.js';

export interface Column<T> {
  id: string;
  header: string;
  value: (row: T) => CsvCell;
  render?: (row: T) => ReactNode;
  /** How the raw value sorts: money (decimal strings), number or text (default). */
  kind?: 'money' | 'number' | 'text';
}

export function DataTable<T>(props: {
  name: string;
  columns: Column<T>[];
  rows: T[];
  initialSort?: { id: string; desc: boolean };
  filter?: boolean;
  empty?: ReactNode;
  rowTestId?: (row: T) => string;
  /** A class for a row to stand out (e.g. a day out of tolerance). */
  rowClass?: (row: T) => string | undefined;
}) {
  const [sorting, setSorting] = useState<SortingState>(props.initialSort ? [props.initialSort] : []);
  const [globalFilter, setGlobalFilter] = useState('');
  const columns = useMemo<ColumnDef<T>[]>(
    () =>
      props.columns.map((c) => ({
        id: c.id,
        header: c.header,
        accessorFn: (row: T) => c.value(row),
        cell: (ctx) => (c.render ? c.render(ctx.row.original) : String(ctx.getValue() ?? '—')),
        sortingFn:
          c.kind === 'money'
            ? (a, b) => compareMoney(a.getValue<string>(c.id), b.getValue<string>(c.id))
            : c.kind === 'number'
              ? (a, b) => (a.getValue<number>(c.id) ?? -Infinity) - (b.getValue<number>(c.id) ?? -Infinity)
              : 'alphanumeric',
        sortUndefined: 'first',
        meta: { kind: c.kind ?? 'text' },
      })),
    [props.columns],
  );
  const table = useReactTable({
    data: props.rows,
    columns,
    state: { sorting, globalFilter },
    onSortingChange: setSorting,
    onGlobalFilterChange: setGlobalFilter,
    globalFilterFn: 'includesString',
    getCoreRowModel: getCoreRowModel(),
    getSortedRowModel: getSortedRowModel(),
    getFilteredRowModel: getFilteredRowModel(),
  });
  const rows = table.getRowModel().rows;
  const download = () =>
    downloadCsv(
      `${props.name}.csv`,
      toCsv(
        props.columns.map((c) => c.header),
        rows.map((r) => props.columns.map((c) => c.value(r.original))),
      ),
    );
  return (
    <div className="table-block" data-table={props.name}>
      <div className="table-toolbar">
        {props.filter && (
          <input
            className="filter"
            placeholder="Filter…"
            value={globalFilter}
            onChange={(e) => setGlobalFilter(e.target.value)}
            aria-label={`Filter ${props.name}`}
          />
        )}
        <span className="muted">
          {rows.length} {rows.length === 1 ? 'row' : 'rows'}
        </span>
        <button type="button" onClick={download} disabled={rows.length === 0}>
          Download CSV
        </button>
      </div>
      {props.rows.length === 0 ? (
        <div className="empty">{props.empty ?? 'Nothing in this range.'}</div>
      ) : (
        <div className="table-scroll">
          <table>
            <thead>
              {table.getHeaderGroups().map((hg) => (
                <tr key={hg.id}>
                  {hg.headers.map((h) => {
                    const kind = (h.column.columnDef.meta as { kind: string }).kind;
                    const sorted = h.column.getIsSorted();
                    return (
                      <th
                        key={h.id}
                        className={kind !== 'text' ? 'num' : undefined}
                        onClick={h.column.getToggleSortingHandler()}
                        aria-sort={sorted ? (sorted === 'asc' ? 'ascending' : 'descending') : 'none'}
                      >
                        {flexRender(h.column.columnDef.header, h.getContext())}
                        {sorted === 'asc' ? ' ▲' : sorted === 'desc' ? ' ▼' : ''}
                      </th>
                    );
                  })}
                </tr>
              ))}
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.id} data-row={props.rowTestId?.(r.original)} className={props.rowClass?.(r.original)}>
                  {r.getVisibleCells().map((c) => (
                    <td
                      key={c.id}
                      data-col={c.column.id}
                      className={(c.column.columnDef.meta as { kind: string }).kind !== 'text' ? 'num' : undefined}
                    >
                      {flexRender(c.column.columnDef.cell, c.getContext())}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
