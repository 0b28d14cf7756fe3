// bench:index's corpus: generated once by `callscope demo` and reused while its sidecar names the same arguments;
// samples of it, its files, and the template lines that I3 and I5 write more calls from.
import { closeSync, existsSync, linkSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { generateDemo } from '../process';
import { round } from '../stats';
import { now } from '../time';

/** The sidecar that says which generator arguments wrote a corpus (reused while they match). */
const SIDECAR = '.callscope-bench.json';
const DEMO_MARKER = '.callscope-demo';
/** The capture files I3 appends to (and removes after). */
export const LIVE_PREFIX = 'bench-live-';

export async function ensureCorpus(dir: string, want: { rollouts: number; calls: number; seed: string }) {
  const sidecar = path.join(dir, SIDECAR);
  const wanted = { generator: 'callscope demo', rollouts: want.rollouts, calls: want.calls, seed: want.seed };
  if (existsSync(path.join(dir, DEMO_MARKER)) && existsSync(sidecar)) {
    try {
      const have = JSON.parse(readFileSync(sidecar, 'utf8'));
      if (have.generator === wanted.generator && have.rollouts === wanted.rollouts && have.calls === wanted.calls && have.seed === wanted.seed) {
        cleanLive(dir);
        return { reused: true, ...have };
      }
    } catch {
      // regenerate
    }
  }
  process.stderr.write(`bench: generating the corpus (${want.rollouts} rollouts, ${want.calls} calls) in ${dir}...\n`);
  const t0 = now();
  await generateDemo(dir, want);
  const info = { ...wanted, generated_at: new Date().toISOString(), generation_s: round((now() - t0) / 1000, 1) };
  writeFileSync(sidecar, JSON.stringify(info, null, 2) + '\n');
  return { reused: false, ...info };
}

/** The files the index reads for the corpus: every run's rollouts and failures files and capture files. */
export async function corpusFiles(corpus: string): Promise<string[]> {
  const { discoverRuns } = await import('../../../lib/index/sources/discovery');
  const { rolloutIdOfCaptureFile } = await import('../../../lib/capture/store');
  const { isStoreRolloutId } = await import('../../../lib/capture/ids');
  const files: string[] = [];
  for (const run of await discoverRuns([{ path: corpus }])) {
    if (run.rolloutsFile) files.push(run.rolloutsFile);
    if (run.failuresFile) files.push(run.failuresFile);
    if (run.captureDir) {
      for (const name of readdirSync(run.captureDir)) {
        const id = rolloutIdOfCaptureFile(name);
        if (id && isStoreRolloutId(id)) files.push(path.join(run.captureDir, name));
      }
    }
  }
  return files;
}

/** A sample of the corpus: hard links to every k-th capture file, and the same fraction of the rollouts file. */
export function makeSample(corpus: string, dest: string, k: number): { files: number; bytes: number } {
  rmSync(dest, { recursive: true, force: true });
  let files = 0;
  let bytes = 0;
  for (const run of readdirSync(corpus, { withFileTypes: true })) {
    if (!run.isDirectory()) continue;
    const src = path.join(corpus, run.name);
    const out = path.join(dest, run.name);
    mkdirSync(path.join(out, 'captures'), { recursive: true });
    const names = existsSync(path.join(src, 'captures'))
      ? readdirSync(path.join(src, 'captures'))
          .filter((n) => n.endsWith('.capture.jsonl') && !n.startsWith(LIVE_PREFIX))
          .sort()
      : [];
    names.forEach((n, i) => {
      if (i % k !== 0) return;
      linkSync(path.join(src, 'captures', n), path.join(out, 'captures', n));
      files++;
      bytes += statSync(path.join(out, 'captures', n)).size;
    });
    const rollouts = path.join(src, 'rollouts.jsonl');
    if (existsSync(rollouts)) {
      const want = Math.ceil(names.length / k);
      const fd = openSync(rollouts, 'r');
      const outFd = openSync(path.join(out, 'rollouts.jsonl'), 'w');
      const buf = Buffer.allocUnsafe(1 << 20);
      let pos = 0;
      let lines = 0;
      try {
        while (lines < want) {
          const n = readSync(fd, buf, 0, buf.length, pos);
          if (n === 0) break;
          const data = buf.subarray(0, n);
          let end = 0;
          while (lines < want) {
            const nl = data.indexOf(10, end);
            if (nl < 0) break;
            end = nl + 1;
            lines++;
          }
          if (end === 0) end = n; // a line longer than the buffer: copy on
          writeSync(outFd, data.subarray(0, end));
          bytes += end;
          pos += end;
        }
      } finally {
        closeSync(fd);
        closeSync(outFd);
      }
      files++;
    }
  }
  return { files, bytes };
}

/** Removes capture files a previous, interrupted run appended for I3. */
export function cleanLive(corpus: string): void {
  for (const dir of captureDirsOf(corpus)) {
    for (const name of readdirSync(dir)) if (name.startsWith(LIVE_PREFIX)) rmSync(path.join(dir, name), { force: true });
  }
}

export function captureDirsOf(corpus: string): string[] {
  const out: string[] = [];
  for (const run of readdirSync(corpus, { withFileTypes: true })) {
    if (run.isDirectory() && existsSync(path.join(corpus, run.name, 'captures'))) out.push(path.join(corpus, run.name, 'captures'));
  }
  return out;
}

export function corpusStats(corpus: string) {
  let files = 0;
  let bytes = 0;
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.jsonl')) {
        files++;
        bytes += statSync(p).size;
      }
    }
  };
  walk(corpus);
  return { files, bytes };
}

/** The first lines of the corpus's capture files: the templates of appended and huge lines. */
export function templateLines(corpus: string, count: number): Record<string, unknown>[] {
  const dir = captureDirsOf(corpus)[0];
  const names = readdirSync(dir)
    .filter((n) => n.endsWith('.capture.jsonl') && !n.startsWith(LIVE_PREFIX))
    .sort()
    .slice(0, 64);
  const out: Record<string, unknown>[] = [];
  for (const name of names) {
    for (const line of readFileSync(path.join(dir, name), 'utf8').split('\n')) {
      if (!line) continue;
      const v = JSON.parse(line) as Record<string, unknown>;
      if (v.status_code === 200 && typeof v.request === 'object' && typeof v.response === 'object') out.push(v);
      if (out.length >= count) return out;
    }
  }
  return out;
}
