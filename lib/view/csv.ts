// CSV for the exports (rollouts of a view, comparison tables): RFC 4180 quoting with CRLF rows. Empty cells
// are unknown (null), never 0. Text that a spreadsheet would run as a formula (=, +, -, @, tab, CR at the
// start) gets a leading apostrophe, because rollout fields (task, agent, model server) come from the data
// and a CSV is opened in a spreadsheet; numbers are written as numbers and are never altered.

export type CsvValue = string | number | boolean | null | undefined;

export interface CsvColumn<Row> {
  header: string;
  value: (row: Row) => CsvValue;
}

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]|^\s|\s$/;

export function csvCell(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvRow(values: CsvValue[]): string {
  return values.map(csvCell).join(',');
}

/** A header row and one row per item, each line ending in CRLF. */
export function toCsv<Row>(columns: CsvColumn<Row>[], rows: Iterable<Row>): string {
  const lines = [csvRow(columns.map((c) => c.header))];
  for (const row of rows) lines.push(csvRow(columns.map((c) => c.value(row))));
  return lines.join('\r\n') + '\r\n';
}

/** A file name from free-form parts: letters, digits, dot, dash and underscore only. */
export function csvFileName(...parts: string[]): string {
  const stem = parts
    .map((p) => p.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, ''))
    .filter(Boolean)
    .join('-');
  return `${stem || 'export'}.csv`;
}
