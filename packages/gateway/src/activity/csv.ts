/**
 * CSV as RFC 4180 writes it (fields with a comma, quote or line break quoted, quotes doubled,
 * CRLF between records), made safe to open in a spreadsheet: a text cell starting with = + - @
 * (or a tab or carriage return) would be run as a formula there, so it is prefixed with a quote
 * (OWASP's "CSV injection" advice). Numbers are written as numbers.
 */
export type CsvCell = string | number | null | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

export function csvCell(value: CsvCell): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

export function csvRecord(cells: readonly CsvCell[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}
