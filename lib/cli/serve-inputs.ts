// What `serve` checks before it opens the index: that every PATH holds runs (a rollouts file that is JSONL, or a
// directory under which discovery finds a run), saying which files were skipped and why, and that the port is free.
// Both answer with one line and exit 2 (UsageError) rather than indexing first and failing later.
import { promises as fsp } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { isJsonObject } from '../capture/json-value';
import { parsePython } from '../capture/json-parse';
import { stripAscii } from '../capture/bytes';
import { discoverRunsReport, parsePathSpec, type SkippedFile } from '../index/sources/discovery';
import { UsageError } from './io';

/** How much of a file is read to find one JSON object line (a rollouts file's first line is one). */
const SNIFF_BYTES = 4 << 20;

/**
 * Whether the file reads as JSONL of objects: one of the lines in its first SNIFF_BYTES is a JSON object, or its first
 * line is longer than that and starts like one (a rollout line can be hundreds of MB).
 */
async function looksLikeJsonl(file: string): Promise<boolean> {
  const handle = await fsp.open(file, 'r');
  try {
    const buf = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buf, 0, SNIFF_BYTES, 0);
    const head = buf.subarray(0, bytesRead);
    let start = 0;
    for (;;) {
      const nl = head.indexOf(0x0a, start);
      if (nl < 0) {
        const rest = stripAscii(head.subarray(start));
        return bytesRead === SNIFF_BYTES && rest.length > 0 && rest[0] === 0x7b; // `{`, cut by the sniff
      }
      const line = head.subarray(start, nl);
      start = nl + 1;
      if (stripAscii(line).length === 0) continue;
      try {
        if (isJsonObject(parsePython(line))) return true;
      } catch {
        // not this line
      }
    }
  } finally {
    await handle.close();
  }
}

/**
 * The PATHs as `serve` passes them on (absolute, `ROLLOUTS.jsonl=CAPTURE_DIR` kept), after checking each holds runs.
 * `report` gets one line per skipped file, and one per note on the pairing (a capture dir two rollouts files claim).
 * `capturing` (serve --upstream): a directory may hold no run yet.
 */
export async function checkServePaths(positionals: string[], report: (line: string) => void, options: { capturing?: boolean } = {}): Promise<string[]> {
  const paths: string[] = [];
  for (const p of positionals) {
    const spec = parsePathSpec(p);
    for (const part of [spec.path, spec.captureDir].filter((x): x is string => !!x)) {
      const st = await fsp.stat(part).catch(() => null);
      if (!st) throw new UsageError(`${part}: no such file or directory`);
    }
    const st = (await fsp.stat(spec.path))!;
    if (st.isFile()) {
      if (spec.path.endsWith('_materialized_inputs.jsonl')) throw new UsageError(`${spec.path}: NeMo Gym's materialized inputs (the tasks sent to the agents), not rollouts`);
      if (!(await looksLikeJsonl(spec.path))) throw new UsageError(`${spec.path}: not a JSONL file of rollouts (no line of its first ${SNIFF_BYTES >> 20} MB is a JSON object)`);
    } else if (st.isDirectory()) {
      const { runs, skipped, notes } = await discoverRunsReport([spec]);
      for (const line of skippedLines(skipped)) report(line);
      for (const note of notes) report(note);
      // With --upstream a directory without runs is where the captured calls go: a new run.
      if (runs.length === 0 && !options.capturing) {
        const why = skipped.length ? ` (${skipped.length} file${skipped.length === 1 ? '' : 's'} skipped, above)` : ' (no rollouts .jsonl file and no capture dir of .capture.jsonl files)';
        throw new UsageError(`no runs found under ${spec.path}${why}`);
      }
    } else {
      throw new UsageError(`${spec.path}: not a file or a directory`);
    }
    paths.push(spec.captureDir ? `${path.resolve(spec.path)}=${path.resolve(spec.captureDir)}` : path.resolve(spec.path));
  }
  return paths;
}

/** One line per skipped file, or per directory and reason when more than three share them (token files: one per rollout). */
function skippedLines(skipped: SkippedFile[]): string[] {
  const groups = new Map<string, SkippedFile[]>();
  for (const s of skipped) {
    const key = `${path.dirname(s.path)}\n${s.reason}`;
    groups.set(key, [...(groups.get(key) ?? []), s]);
  }
  return [...groups.values()].flatMap((g) =>
    g.length > 3 ? [`skipped ${g.length} files in ${path.dirname(g[0].path)}: ${g[0].reason}`] : g.map((s) => `skipped ${s.path}: ${s.reason}`),
  );
}

/** Throws a UsageError naming the port when something already listens on it (port 0 is always free). */
export async function assertPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') reject(portInUse(port));
      else if (err.code === 'EACCES') reject(new UsageError(`port ${port}: permission denied (ports below 1024 need privileges); choose another with --port`));
      else reject(err);
    });
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}

export function portInUse(port: number): UsageError {
  return new UsageError(`port ${port} is already in use; stop what listens there or choose another with --port`);
}
