// Reads a run's `X_aggregate_metrics.json` (discovery finds it beside the rollouts file) for the Tasks view: parsed by
// lib/rollouts/aggregate-metrics.ts, kept until the file's size or mtime moves (it is written once, at the end of a
// collection, and a page asks for it on every request).
import { promises as fsp } from 'node:fs';
import { parseAggregateMetrics, type AggregateFile } from '../../rollouts/aggregate-metrics';

/** Past this size the file is not parsed (it holds every task's input row as `sample`). */
const MAX_BYTES = 256 * 1024 * 1024;

const cache = new Map<string, { key: string; value: AggregateFile }>();

/** The file's agents, or why it cannot be read (the problem names the file and what is wrong). */
export async function readAggregateMetrics(file: string): Promise<AggregateFile> {
  const st = await fsp.stat(file).catch(() => null);
  if (!st) return { ok: false, file, problem: `${file}: cannot be read` };
  const key = `${st.size}:${st.mtimeMs}`;
  const kept = cache.get(file);
  if (kept?.key === key) return kept.value;
  const value = await read(file, st.size, st.mtimeMs);
  cache.set(file, { key, value });
  return value;
}

async function read(file: string, size: number, mtimeMs: number): Promise<AggregateFile> {
  if (size > MAX_BYTES) return { ok: false, file, problem: `${file}: ${Math.round(size / 1048576)} MB, too large to read here` };
  let text: string;
  try {
    text = await fsp.readFile(file, 'utf8');
  } catch (err) {
    return { ok: false, file, problem: `${file}: not JSON (${(err as Error).message})` };
  }
  return parseAggregateMetrics(text, file, mtimeMs);
}
