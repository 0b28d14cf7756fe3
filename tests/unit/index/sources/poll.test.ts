// The poller reports what inotify would: new, grown, replaced, truncated and removed capture files, and a dir
// that goes; and its rounds take a bounded share of the time (the pause grows with a slow round).
import { appendFileSync, mkdirSync, mkdtempSync, renameSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GAP_FACTOR, MIN_GAP_MS, Poller, pollGapMs } from '../../../../lib/index/sources/poll';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'callscope-poll-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const isCaptureName = (n: string) => n.endsWith('.capture.jsonl');

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 50));
  expect(check()).toBe(true);
}

describe('pollGapMs', () => {
  it('is at least a second, and k times a round that took longer than a second / k', () => {
    expect(pollGapMs(0)).toBe(MIN_GAP_MS);
    expect(pollGapMs(100)).toBe(MIN_GAP_MS);
    expect(pollGapMs(2000)).toBe(GAP_FACTOR * 2000);
    expect(pollGapMs(30_000)).toBe(GAP_FACTOR * 30_000);
    // so rounds take at most 1 / (1 + k) of the time
    for (const d of [1, 50, 400, 5000, 60_000]) expect(d / (d + pollGapMs(d))).toBeLessThanOrEqual(1 / (1 + GAP_FACTOR));
  });
});

describe('Poller', () => {
  it('reports new, grown, replaced, truncated and removed capture files, and a dir that goes and comes back', async () => {
    const dir = path.join(tmp, 'captures');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'a.capture.jsonl'), 'x\n');
    writeFileSync(path.join(dir, 'notes.txt'), 'x\n');
    const seen: string[] = [];
    const poller = new Poller({ onChange: (p) => seen.push(path.relative(tmp, p)), isCaptureName, skipDir: () => false, minGapMs: 20 });
    poller.add(dir, 'dir', true);
    poller.start();
    try {
      await poller.firstRound();
      expect(seen).toEqual([]); // the baseline: what the index read already
      const next = async (act: () => void, expected: string[]) => {
        seen.length = 0;
        act();
        await until(() => seen.length >= expected.length);
        await new Promise((r) => setTimeout(r, 100)); // and nothing more
        expect(seen.sort()).toEqual(expected.sort());
      };
      await next(() => appendFileSync(path.join(dir, 'a.capture.jsonl'), 'y\n'), ['captures/a.capture.jsonl']);
      await next(() => writeFileSync(path.join(dir, 'b.capture.jsonl'), 'z\n'), ['captures/b.capture.jsonl']);
      await next(() => appendFileSync(path.join(dir, 'notes.txt'), 'more\n'), []);
      // replaced by a file of the same size (a new inode), then cut short
      await next(() => {
        writeFileSync(path.join(tmp, 'b.new'), 'w\n');
        renameSync(path.join(tmp, 'b.new'), path.join(dir, 'b.capture.jsonl'));
      }, ['captures/b.capture.jsonl']);
      await next(() => truncateSync(path.join(dir, 'a.capture.jsonl'), 1), ['captures/a.capture.jsonl']);
      await next(() => rmSync(path.join(dir, 'b.capture.jsonl')), ['captures/b.capture.jsonl']);
      await next(() => rmSync(dir, { recursive: true }), ['captures']);
      await next(() => {
        mkdirSync(dir);
        writeFileSync(path.join(dir, 'c.capture.jsonl'), 'c\n');
      }, ['captures', 'captures/c.capture.jsonl']);
    } finally {
      await poller.close();
    }
  });

  it('a target added while serving reports what it already holds on its first look', async () => {
    const dir = path.join(tmp, 'late');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'a.capture.jsonl'), 'x\n');
    const seen: string[] = [];
    const poller = new Poller({ onChange: (p) => seen.push(p), isCaptureName, skipDir: () => false, minGapMs: 20 });
    poller.start();
    try {
      await poller.firstRound();
      poller.add(dir, 'dir', false);
      await until(() => seen.length === 1);
      expect(seen).toEqual([path.join(dir, 'a.capture.jsonl')]);
    } finally {
      await poller.close();
    }
  });

  it('a tree walk reports new run directories and .jsonl files, not what lies in the dirs it skips', async () => {
    const root = path.join(tmp, 'tree');
    mkdirSync(path.join(root, 'known'), { recursive: true });
    const seen: string[] = [];
    const known = new Set([path.join(root, 'known')]);
    const poller = new Poller({ onChange: (p) => seen.push(path.relative(root, p)), isCaptureName, skipDir: (d) => known.has(d), minGapMs: 20 });
    poller.add(root, 'tree', true);
    poller.start();
    try {
      await poller.firstRound();
      writeFileSync(path.join(root, 'known', 'x.capture.jsonl'), 'x\n');
      mkdirSync(path.join(root, 'run2', 'captures'), { recursive: true });
      writeFileSync(path.join(root, 'run2', 'captures', '0-0.capture.jsonl'), 'x\n');
      writeFileSync(path.join(root, 'run2', 'rollouts.jsonl'), 'x\n');
      writeFileSync(path.join(root, 'run2', 'README'), 'x\n');
      await until(() => seen.length >= 4);
      await new Promise((r) => setTimeout(r, 100));
      expect(seen.sort()).toEqual(['run2', 'run2/captures', 'run2/captures/0-0.capture.jsonl', 'run2/rollouts.jsonl']);
      // run2's capture dir is now known: what it holds is no longer the walk's, and not reported as removed
      seen.length = 0;
      known.add(path.join(root, 'run2', 'captures'));
      const rounds = poller.roundsDone;
      await until(() => poller.roundsDone >= rounds + 2);
      expect(seen).toEqual([]);
    } finally {
      await poller.close();
    }
  });

  it('stats the files that changed lately every round and the quiet ones in turn, and sees either change', async () => {
    const dir = path.join(tmp, 'hot');
    mkdirSync(dir);
    for (let i = 0; i < 50; i++) writeFileSync(path.join(dir, `${i}.capture.jsonl`), 'x\n');
    const seen: { file: string; round: number }[] = [];
    const poller: Poller = new Poller({ onChange: (p) => seen.push({ file: path.basename(p), round: poller.roundsDone }), isCaptureName, skipDir: () => false, minGapMs: 20, coldStats: 10 });
    poller.add(dir, 'dir', true);
    poller.start();
    try {
      await poller.firstRound();
      // A quiet file: found by the sweep, 10 files a round, so within 5 rounds (+1 for the round under way).
      let from = poller.roundsDone;
      appendFileSync(path.join(dir, '37.capture.jsonl'), 'y\n');
      await until(() => seen.length === 1);
      expect(seen[0].file).toBe('37.capture.jsonl');
      expect(seen[0].round - from).toBeLessThanOrEqual(6);
      // Now it is hot: its next change is seen by the next round.
      await until(() => poller.roundsDone > seen[0].round + 1);
      from = poller.roundsDone;
      appendFileSync(path.join(dir, '37.capture.jsonl'), 'z\n');
      await until(() => seen.length === 2);
      expect(seen[1]).toEqual({ file: '37.capture.jsonl', round: expect.any(Number) });
      expect(seen[1].round - from).toBeLessThanOrEqual(1);
      // A new file is seen by the next round's listing, whatever the sweep.
      from = poller.roundsDone;
      writeFileSync(path.join(dir, 'new.capture.jsonl'), 'n\n');
      await until(() => seen.length === 3);
      expect(seen[2].file).toBe('new.capture.jsonl');
      expect(seen[2].round - from).toBeLessThanOrEqual(1);
    } finally {
      await poller.close();
    }
  });

  it('pauses GAP_FACTOR times as long as a slow round took before the next, and the shortest pause after a quick one', async () => {
    const dir = path.join(tmp, 'slow');
    mkdirSync(dir);
    for (let i = 0; i < 200; i++) writeFileSync(path.join(dir, `${i}.capture.jsonl`), 'x\n');
    // The poller's clock is the test's: each name it looks at costs 2 ms of it, so a round that lists the dir takes
    // 400 ms, as a big dir on a slow mount does, and one that does not list it takes none, whatever this machine's load.
    let clock = 0;
    const slowName = (n: string) => {
      clock += 2;
      return isCaptureName(n);
    };
    const poller = new Poller({ onChange: () => {}, isCaptureName: slowName, skipDir: () => false, minGapMs: 50, now: () => clock });
    poller.add(dir, 'dir', true);
    poller.start();
    try {
      await poller.firstRound();
      expect(poller.lastRoundMs).toBeGreaterThanOrEqual(400);
      expect(poller.gapMs).toBe(GAP_FACTOR * poller.lastRoundMs);
      const firstEnd = performance.now();
      await until(() => poller.roundsDone >= 2);
      // the second round began no sooner than that pause after the first (timers never fire early)
      expect(performance.now() - firstEnd).toBeGreaterThanOrEqual(GAP_FACTOR * 400 - 20);
      // the dir did not change, so the second round did not list it: the shortest pause follows
      expect(poller.lastRoundMs).toBeLessThan(400);
      expect(poller.gapMs).toBe(Math.max(50, GAP_FACTOR * poller.lastRoundMs));
    } finally {
      await poller.close();
    }
  }, 30_000);
});
