// I1 diagnosis: where the ingest's time goes, on a sample of the corpus.
import { round } from '../stats';
import { now } from '../time';
import type { ChildParams } from './child';
import { corpusFiles } from './corpus';

const MB = 1e6;

/**
 * Where cold-ingest time goes, on a sample of the corpus (hard links to every K-th capture file and a prefix
 * of the rollouts file), single-thread: ingest's line reader alone, the reader + JSON.parse (the I1 baseline),
 * the reader + the index's own scanners, and a real ingest of the sample with every SQLite statement timed.
 */
export async function childBreakdown(p: ChildParams) {
  const { readLinesSync } = await import('../../../lib/index/ingest/line-reader');
  const { scanExchangeLine } = await import('../../../lib/index/scan/capture-line');
  const { nativeCallValues, nativeScanStatus } = await import('../../../lib/index/scan/native');
  const { parseRolloutLine } = await import('../../../lib/rollouts/rollout-line');
  const { scanShallowFast } = await import('../../../lib/index/scan/fast-scan');
  const { openSync, fstatSync, closeSync } = await import('node:fs');
  const files = await corpusFiles(p.sample!);
  const isCapture = (f: string) => f.endsWith('.capture.jsonl');
  // Each pass reads the files as ingest does (readLinesSync, one reused buffer), after a first unmeasured pass
  // that brings them into the page cache.
  const pass = async (work: (bytes: Buffer, capture: boolean, lineNo: number) => void) => {
    const cpu0 = process.cpuUsage();
    const t0 = now();
    let bytes = 0;
    let lines = 0;
    for (const f of files) {
      const fd = openSync(f, 'r');
      try {
        const capture = isCapture(f);
        readLinesSync(fd, 0, fstatSync(fd).size, 1, (line, _offset, lineNo) => {
          bytes += line.length + 1;
          lines++;
          work(line, capture, lineNo);
        });
      } finally {
        closeSync(fd);
      }
    }
    const wall = now() - t0;
    const cpu = process.cpuUsage(cpu0);
    return { bytes, lines, wall_ms: round(wall), cpu_ms: round((cpu.user + cpu.system) / 1000), mb_s: round(bytes / MB / (wall / 1000)) };
  };
  await pass(() => {});
  const split = { capture: 0, rollouts: 0 };
  const reader = await pass(() => {});
  const jsonParse = await pass((b) => {
    JSON.parse(b.toString('utf8'));
  });
  const scanners = await pass((b, capture, lineNo) => {
    const t = now();
    if (capture)
      nativeCallValues(b, 0, 0) ?? scanExchangeLine(b, 0); // as readFileForIngest scans
    else parseRolloutLine(b, lineNo, 0, true, scanShallowFast); // the sample has its capture dir: calls counted, as ingest does
    split[capture ? 'capture' : 'rollouts'] += now() - t;
  });
  // A real ingest of the sample, with the SQLite statements timed (by statement).
  const Database = (await import('better-sqlite3')).default;
  const sql = new Map<string, { ms: number; n: number }>();
  const proto = Database.prototype as unknown as { prepare: (this: unknown, source: string) => Record<string, (...a: unknown[]) => unknown> };
  const prepare = proto.prepare;
  let prepareMs = 0;
  let prepares = 0;
  proto.prepare = function (this: unknown, source: string) {
    const t = now();
    const st = prepare.call(this, source);
    prepareMs += now() - t;
    prepares++;
    const key = source.replace(/\s+/g, ' ').slice(0, 60);
    for (const m of ['run', 'get', 'all']) {
      const f = st[m].bind(st);
      st[m] = (...a: unknown[]) => {
        const t1 = now();
        try {
          return f(...a);
        } finally {
          const e = sql.get(key) ?? { ms: 0, n: 0 };
          e.ms += now() - t1;
          e.n++;
          sql.set(key, e);
        }
      };
    }
    return st;
  };
  const { CallscopeIndex } = await import('../../../lib/index/callscope-index');
  const cpu0 = process.cpuUsage();
  const t0 = now();
  const index = await CallscopeIndex.open([{ path: p.sample! }], p.indexDir!, { workers: 0 }); // shares of one thread
  await index.refresh();
  const wall = now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const progress = index.listRuns()[0].progress;
  index.close();
  proto.prepare = prepare;
  const statements = [...sql].map(([k, v]) => ({ sql: k, ms: round(v.ms), n: v.n })).sort((a, b) => b.ms - a.ms);
  const sqlMs = statements.reduce((a, x) => a + x.ms, 0) + prepareMs;
  return {
    files: files.length,
    native_scan: nativeScanStatus(),
    reader,
    json_parse: jsonParse,
    scanners: { ...scanners, capture_scan_ms: round(split.capture), rollouts_scan_ms: round(split.rollouts) },
    ingest: {
      wall_ms: round(wall),
      cpu_ms: round((cpu.user + cpu.system) / 1000),
      sys_ms: round(cpu.system / 1000),
      bytes: progress.bytes_read,
      mb_s: round(progress.bytes_read / MB / (wall / 1000)),
      sqlite_ms: round(sqlMs),
      prepare_ms: round(prepareMs),
      prepares,
      statements: statements.slice(0, 12),
    },
    shares_of_ingest_wall: {
      read_lines: round(reader.wall_ms / wall),
      scanners: round((split.capture + split.rollouts) / wall),
      sqlite: round(sqlMs / wall),
      other: round(1 - (reader.wall_ms + split.capture + split.rollouts + sqlMs) / wall),
    },
  };
}
