// Report files (reports/bench-*.json, reports/reliability.json): pretty-printed JSON with a final newline, so that
// a rerun's diff shows the figures that moved.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json | undefined };

/** Writes `report` to `file` (absolute or relative to the working directory), creating its directory. */
export function writeReport(file: string, report: unknown): void {
  mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  writeFileSync(file, JSON.stringify(report, null, 2) + '\n');
}
