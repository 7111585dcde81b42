// A CSV download of a table as shown (raw API values: exact decimal strings, not the formatted
// text), written by the one CSV rule the API's exports use (core/csv.ts).
export { toCsv, type CsvCell } from '../../../core/csv.js';

export function downloadCsv(filename: string, csv: string): void {
  const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
