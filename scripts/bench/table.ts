// The tables the benchmarks print: one row per target of docs/design targets.md (its id, the figure, the target,
// the verdict), and the sizes and columns they are written with.

export interface TargetRow {
  id: string;
  figure: string;
  target: string;
  result: string;
}

export const verdict = (ok: boolean): string => (ok ? 'pass' : 'FAIL');

export function fmtBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MiB`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB`;
}

/** bench:index: `id  target  result  |  figure`, one line per row. */
export function printTable(rows: readonly TargetRow[]): void {
  const w = { id: 10, target: 0 };
  for (const r of rows) {
    w.id = Math.max(w.id, r.id.length);
    w.target = Math.max(w.target, r.target.length);
  }
  process.stdout.write(`\n${'id'.padEnd(w.id)}  ${'target'.padEnd(w.target)}  result  |  figure\n`);
  for (const r of rows) process.stdout.write(`${r.id.padEnd(w.id)}  ${r.target.padEnd(w.target)}  ${r.result}  |  ${r.figure}\n`);
}

/** bench:ui: `id  target  result`, the figure on the next line under the result. */
export function printTableFigureBelow(rows: readonly TargetRow[]): void {
  const w = [Math.max(...rows.map((r) => r.id.length)), Math.max(...rows.map((r) => r.target.length))];
  console.log(`\n${'target'.padEnd(w[0])}  ${'goal'.padEnd(w[1])}  result / figure`);
  for (const r of rows) console.log(`${r.id.padEnd(w[0])}  ${r.target.padEnd(w[1])}  ${r.result}\n${''.padEnd(w[0] + w[1] + 4)}${r.figure}`);
}

/** bench:ui of one target (`--only`): each row unaligned, its figure indented below. */
export function printRowsCompact(rows: readonly TargetRow[]): void {
  for (const r of rows) console.log(`${r.id}  ${r.target}  ${r.result}\n  ${r.figure}`);
}

/** A Markdown table of `id | figure | result` (test:soak's, pasted into the README as it is). */
export function markdownRows(rows: readonly { id: string; figure: string; result: string }[]): string[] {
  return ['| id | figure | result |', '|---|---|---|', ...rows.map((r) => `| ${r.id} | ${r.figure} | ${r.result} |`)];
}

/** bench:proxy's columns: a name left-aligned in 28, then cells right-aligned in 12 each, indented by two. */
export const columns = (name: string, ...cells: (string | number)[]): string => `  ${name.padEnd(28)}${cells.map((c) => String(c).padStart(12)).join('')}`;
