// Large corpora are generated on two worker threads; the bytes must not depend on that choice, or a
// benchmark corpus would change with the machine it was generated on.
import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { generateDemo } from '../../../lib/demo/generate';

const dirs: string[] = [];

afterAll(async () => {
  await Promise.all(dirs.map((d) => fsp.rm(d, { recursive: true, force: true })));
});

async function files(dir: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  for (const e of await fsp.readdir(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) out.set(path.relative(dir, path.join(e.parentPath, e.name)), await fsp.readFile(path.join(e.parentPath, e.name)));
  }
  return out;
}

it('writes the same bench corpus in worker threads as in-process', async () => {
  const [inline, threaded] = await Promise.all(['inline', 'threaded'].map((n) => fsp.mkdtemp(path.join(os.tmpdir(), `callscope-demo-${n}-`))));
  dirs.push(inline, threaded);
  const a = await generateDemo({ out: path.join(inline, 'out'), rollouts: 40, calls: 300, workers: false });
  const b = await generateDemo({ out: path.join(threaded, 'out'), rollouts: 40, calls: 300, workers: true });
  expect([a.rollouts, a.calls]).toEqual([40, 300]);
  expect({ ...b, out: a.out }).toEqual(a);
  const [fa, fb] = await Promise.all([files(a.out), files(b.out)]);
  expect([...fb.keys()].sort()).toEqual([...fa.keys()].sort());
  for (const [name, bytes] of fa) expect(bytes.equals(fb.get(name)!), name).toBe(true);
  expect(await fsp.readdir(threaded)).toEqual(['out']); // no staging dir left behind
});
