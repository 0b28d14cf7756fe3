import 'server-only';
// A first overview of the runs under the served paths: each directory holding a rollouts file and/or a
// capture dir is a run; each rollout line (or capture file, for capture-only runs) is a rollout, with the
// call counts and tokens of its capture. The index (lib/index) replaces this scan for large runs.
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { buildAttachment, collectCapture } from '../capture/attachment';
import { rolloutIdOfLine } from '../capture/ids';
import { isJsonObject, numericValue, parsePython, type JsonObject } from '../capture/json';
import { readLines, rolloutIdOfCaptureFile, stripAscii } from '../capture/store';

export interface RolloutSummary {
  line: number | null;
  rolloutId: string | null;
  reward: number | null;
  failed: boolean;
  numCalls: number;
  tokensIn: number | null;
  tokensOut: number | null;
  gaps: string[];
}

export interface RunSummary {
  id: string;
  dir: string;
  rollouts: RolloutSummary[];
}

const ROLLOUT_FILES = ['rollouts.jsonl', 'rollouts_failures.jsonl'];
const CAPTURE_DIRS = ['captures', 'capture'];

async function isDir(p: string): Promise<boolean> {
  return fsp.stat(p).then((s) => s.isDirectory(), () => false);
}

function summarize(line: number | null, rolloutId: string | null, row: JsonObject | null, capture: JsonObject | null, failed: boolean): RolloutSummary {
  const metrics = capture && isJsonObject(capture.metrics) ? capture.metrics : null;
  const gaps = capture && Array.isArray(capture.gaps) ? capture.gaps.map((g) => (isJsonObject(g) ? String(g.code) : '')) : [];
  return {
    line,
    rolloutId,
    reward: row ? numericValue(row.reward) : null,
    failed,
    numCalls: metrics ? Number(metrics.num_calls ?? 0) : 0,
    tokensIn: metrics ? numericValue(metrics.tokens_in) : null,
    tokensOut: metrics ? numericValue(metrics.tokens_out) : null,
    gaps,
  };
}

async function summarizeRun(root: string, dir: string): Promise<RunSummary | null> {
  const captureDir = (await Promise.all(CAPTURE_DIRS.map(async (d) => ((await isDir(path.join(dir, d))) ? path.join(dir, d) : null)))).find(Boolean) ?? null;
  const rollouts: RolloutSummary[] = [];
  const seen = new Set<string>();
  let hasRolloutFile = false;
  for (const name of ROLLOUT_FILES) {
    const file = path.join(dir, name);
    const handle = await fsp.open(file, 'r').catch(() => null);
    if (!handle) continue;
    hasRolloutFile = true;
    try {
      for await (const raw of readLines(handle)) {
        if (stripAscii(raw.bytes).length === 0) continue;
        let row: JsonObject | null = null;
        try {
          const v = parsePython(raw.bytes);
          row = isJsonObject(v) ? v : null;
        } catch {
          row = null;
        }
        let id: string | null = null;
        try {
          id = row ? rolloutIdOfLine(row) : null;
        } catch {
          id = null;
        }
        let capture = row && isJsonObject(row.ng_model_call_capture) ? row.ng_model_call_capture : null;
        if (!capture && id && captureDir) capture = buildAttachment(id, await collectCapture([captureDir], id, false), false);
        if (id) seen.add(id);
        rollouts.push(summarize(raw.lineNumber, id, row, capture, name.includes('_failures')));
      }
    } finally {
      await handle.close();
    }
  }
  if (captureDir && !hasRolloutFile) {
    for (const name of (await fsp.readdir(captureDir)).sort()) {
      const id = rolloutIdOfCaptureFile(name);
      if (!id || seen.has(id)) continue;
      const capture = buildAttachment(id, await collectCapture([captureDir], id, false), false);
      rollouts.push(summarize(null, id, null, capture, false));
    }
  }
  if (!hasRolloutFile && !captureDir) return null;
  return { id: path.relative(root, dir).split(path.sep).join('-') || path.basename(dir), dir, rollouts };
}

/** The runs directly under each path (or the path itself when it is a run). */
export async function listRuns(paths: string[]): Promise<RunSummary[]> {
  const runs: RunSummary[] = [];
  for (const root of paths) {
    const self = await summarizeRun(path.dirname(root), root);
    if (self) {
      runs.push(self);
      continue;
    }
    const entries = await fsp.readdir(root, { withFileTypes: true }).catch(() => []);
    for (const e of entries.filter((x) => x.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
      const run = await summarizeRun(root, path.join(root, e.name));
      if (run) runs.push(run);
    }
  }
  return runs;
}

/** The paths `callscope serve` was given, passed to the app through the environment. */
export function servedPaths(): string[] {
  const raw = process.env.CALLSCOPE_PATHS;
  if (!raw) return [];
  try {
    const v = JSON.parse(raw);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}
