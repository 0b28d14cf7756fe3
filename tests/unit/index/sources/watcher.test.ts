// The watcher holds one directory watch per capture dir and follows files created and grown after it started,
// in known capture dirs and in the capture dir of a run that appears later. Every case runs twice: through
// inotify, and polled as on a network mount (`--poll`), where it must find the same files and runs.
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CallscopeIndex } from '../../../../lib/index/callscope-index';
import type { PollMode } from '../../../../lib/index/sources/watch-mount';
import { IndexWatcher } from '../../../../lib/index/sources/watcher';
import { line, makeExchange } from '../../../support/exchange';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'callscope-watch-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Waits for a condition the watcher makes true (no timing is asserted; the bound only ends a broken run). */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 600 && !check(); i++) await new Promise((r) => setTimeout(r, 50));
  expect(check()).toBe(true);
}

describe.each<[string, PollMode]>([
  ['inotify', 'never'],
  ['polling', 'always'],
])('IndexWatcher (%s)', (name, poll) => {
  const polledWhenForced = (watcher: IndexWatcher) => expect(watcher.polledPaths > 0).toBe(poll === 'always');

  it('follows new and growing capture files through one watch per capture dir, and new runs', async () => {
    const root = path.join(tmp, `w-${name}`);
    const captures = path.join(root, 'run', 'captures');
    mkdirSync(captures, { recursive: true });
    for (let i = 0; i < 20; i++) writeFileSync(path.join(captures, `${i}-0.capture.jsonl`), line(makeExchange({ model_call_id: `x${i}` })));
    const index = await CallscopeIndex.open([{ path: root }], path.join(root, '.idx'));
    await index.refresh();
    const watcher = new IndexWatcher(index, { poll });
    watcher.start();
    await watcher.ready();
    const calls = (run: string) => index.listRuns().find((r) => r.id === run)?.totals.calls ?? 0;
    const rollout = (run: string, key: string) => index.rollout(run, key)?.num_calls ?? 0;
    try {
      expect(watcher.watchedDirs).toBe(1);
      polledWhenForced(watcher);
      const created = path.join(captures, 'live-0.capture.jsonl');
      writeFileSync(created, line(makeExchange({ model_call_id: 'n1' })));
      await until(() => rollout('run', 'live-0') === 1);
      appendFileSync(created, line(makeExchange({ model_call_id: 'n2' })) + line(makeExchange({ model_call_id: 'n3' })));
      await until(() => rollout('run', 'live-0') === 3);
      expect(calls('run')).toBe(23);

      const other = path.join(root, 'run2', 'captures');
      mkdirSync(other, { recursive: true });
      writeFileSync(path.join(other, '0-0.capture.jsonl'), line(makeExchange({ model_call_id: 'm1' })));
      await until(() => calls('run2') === 1);
      await until(() => watcher.watchedDirs === 2);
      appendFileSync(path.join(other, '0-0.capture.jsonl'), line(makeExchange({ model_call_id: 'm2' })));
      await until(() => calls('run2') === 2);
      writeFileSync(path.join(other, '1-0.capture.jsonl'), line(makeExchange({ model_call_id: 'm3' })));
      await until(() => calls('run2') === 3);
    } finally {
      await watcher.close();
      index.close();
    }
  }, 60_000);

  it('the first capture file written into a served dir that holds no run yet makes a run', async () => {
    const captures = path.join(tmp, `empty-${name}`, 'captures');
    mkdirSync(captures, { recursive: true });
    const index = await CallscopeIndex.open([{ path: captures }], path.join(tmp, `empty-${name}`, '.idx'));
    await index.refresh();
    const watcher = new IndexWatcher(index, { poll });
    watcher.start();
    await watcher.ready();
    try {
      expect(index.listRuns()).toEqual([]);
      polledWhenForced(watcher);
      writeFileSync(path.join(captures, 'up-1.capture.jsonl'), line(makeExchange({ model_call_id: 'u1' })));
      await until(() => index.listRuns()[0]?.totals.calls === 1);
      appendFileSync(path.join(captures, 'up-1.capture.jsonl'), line(makeExchange({ model_call_id: 'u2' })));
      await until(() => index.listRuns()[0]?.totals.calls === 2);
    } finally {
      await watcher.close();
      index.close();
    }
  }, 60_000);
});

describe('IndexWatcher over a network mount under a local root', () => {
  it('polls only the paths on the network file system, keeps inotify for the rest, and follows both', async () => {
    const root = path.join(tmp, 'mixed');
    const nfs = path.join(root, 'nfs-run', 'captures');
    const local = path.join(root, 'local-run', 'captures');
    for (const d of [nfs, local]) {
      mkdirSync(d, { recursive: true });
      writeFileSync(path.join(d, '0-0.capture.jsonl'), line(makeExchange({ model_call_id: `${path.basename(path.dirname(d))}-1` })));
    }
    writeFileSync(path.join(root, 'nfs-run', 'rollouts.jsonl'), '');
    const index = await CallscopeIndex.open([{ path: root }], path.join(root, '.idx'));
    await index.refresh();
    const lines: string[] = [];
    // Everything under nfs-run/ is on "NFS"; the rest on ext4.
    const statfs = (p: string) => ({ type: p.startsWith(path.join(root, 'nfs-run')) ? 0x6969 : 0xef53 });
    const watcher = new IndexWatcher(index, { poll: 'auto', statfs, log: (l) => lines.push(l) });
    watcher.start();
    await watcher.ready();
    const calls = (run: string) => index.listRuns().find((r) => r.id === run)?.totals.calls ?? 0;
    try {
      expect(watcher.watchedDirs).toBe(2);
      expect(watcher.polledPaths).toBe(2); // nfs-run's capture dir and its rollouts file
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`${nfs} (nfs)`);
      expect(lines[0]).not.toContain(local);
      appendFileSync(path.join(nfs, '0-0.capture.jsonl'), line(makeExchange({ model_call_id: 'n2' })));
      appendFileSync(path.join(local, '0-0.capture.jsonl'), line(makeExchange({ model_call_id: 'l2' })));
      await until(() => calls('nfs-run') === 2 && calls('local-run') === 2);
      writeFileSync(path.join(nfs, '1-0.capture.jsonl'), line(makeExchange({ model_call_id: 'n3' })));
      await until(() => calls('nfs-run') === 3);
    } finally {
      await watcher.close();
      index.close();
    }
  }, 60_000);
});
