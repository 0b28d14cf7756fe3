import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { discoverRuns, parsePathSpec, slugify } from '../../../lib/index/discovery';
import { line, makeExchange } from '../../support/exchange';
import { reportFigure } from '../../support/reliability';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'callscope-disc-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function run(dir: string, ids: string[], captureName = 'captures') {
  mkdirSync(path.join(dir, captureName), { recursive: true });
  writeFileSync(path.join(dir, 'rollouts.jsonl'), ids.map((id) => JSON.stringify({ _ng_task_index: Number(id.split('-')[0]), _ng_rollout_index: Number(id.split('-')[1]) })).join('\n') + '\n');
  for (const id of ids) writeFileSync(path.join(dir, captureName, `${id}.capture.jsonl`), line(makeExchange()));
}

describe('run discovery', () => {
  it('pairs rollouts files with the capture dir holding their ids, finds failures siblings and capture-only dirs', async () => {
    const root = path.join(tmp, 'results');
    run(path.join(root, 'step-100'), ['0-0', '1-0']);
    writeFileSync(path.join(root, 'step-100', 'rollouts_failures.jsonl'), '');
    run(path.join(root, 'step 200!'), ['5-0']);
    mkdirSync(path.join(root, 'loose', 'caps'), { recursive: true });
    writeFileSync(path.join(root, 'loose', 'caps', 'x.capture.incomplete'), '');
    const runs = await discoverRuns([{ path: root }]);
    const got = runs.map((r) => [r.id, r.captureDir && path.relative(root, r.captureDir), r.failuresFile !== null]).sort((x, y) => String(x[0]).localeCompare(String(y[0])));
    expect(got).toEqual([
      ['loose-caps', 'loose/caps', false],
      ['step-100', 'step-100/captures', true],
      ['step-200', 'step 200!/captures', false],
    ]);
  });

  it('ids are URL-safe slugs, stable for the same layout under another mount point', async () => {
    const a = path.join(tmp, 'mountA', 'exp');
    const b = path.join(tmp, 'mountB', 'elsewhere', 'exp');
    run(path.join(a, 'run1'), ['0-0']);
    run(path.join(b, 'run1'), ['0-0']);
    const [ra] = await discoverRuns([{ path: a }]);
    const [rb] = await discoverRuns([{ path: b }]);
    expect(ra.id).toBe('run1');
    expect(rb.id).toBe(ra.id);
    expect(slugify('a b/c:d')).toBe('a-b-c-d');
  });

  it('ROLLOUTS.jsonl=CAPTURE_DIR pairs explicitly', async () => {
    const dir = path.join(tmp, 'explicit');
    run(dir, ['0-0'], 'somewhere');
    const spec = parsePathSpec(`${path.join(dir, 'rollouts.jsonl')}=${path.join(dir, 'somewhere')}`);
    const [r] = await discoverRuns([spec]);
    expect(r.captureDir).toBe(path.join(dir, 'somewhere'));
  });

  it('does not follow symlinks out of a root', async () => {
    const outside = path.join(tmp, 'canary');
    run(outside, ['9-9']);
    const root = path.join(tmp, 'linked');
    mkdirSync(root, { recursive: true });
    symlinkSync(outside, path.join(root, 'escape'));
    symlinkSync(path.join(outside, 'rollouts.jsonl'), path.join(root, 'linked.jsonl'));
    expect(await discoverRuns([{ path: root }])).toEqual([]);
    reportFigure('R7', 'symlinks from a served root to a canary run (a dir and a rollouts file): not followed, no run found', { probes: 2, escapes: 0 });
  });
});
