// The one CSV writer (the API's CSV exports and the console's downloads): RFC 4180 quoting, CRLF
// line ends, a header row, null as an empty cell. Text a spreadsheet would run as a formula
// (= + - @ tab CR first) gets a leading ' — but not a plain decimal such as "-1.5", which a
// spreadsheet reads as the number it is (money may be negative: refunds, margins).
export type CsvCell = string | number | boolean | null | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_DECIMAL = /^-?\d+(\.\d+)?$/;

function csvCell(value: CsvCell): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (FORMULA_START.test(text) && !PLAIN_DECIMAL.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function toCsv(header: readonly string[], rows: ReadonlyArray<readonly CsvCell[]>): string {
  return `${[header, ...rows].map((row) => row.map(csvCell).join(',')).join('\r\n')}\r\n`;
}
