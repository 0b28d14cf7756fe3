// A researcher with a dozen callscope tabs open in one browser: every tab loads, every tab follows the run
// without a reload, and the browser holds one /api/events stream for all of them (browsers allow six
// HTTP/1.1 connections per origin, so a stream per tab left the seventh tab unable to load). When the tab
// that holds the stream closes, another takes it over and the others keep following.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../lib/capture/json-value';
import { parseStrict } from '../../../lib/capture/json-parse';
import { apiJson, CLEAN, launchBrowser, openPage, problems, settle, type TrackedPage } from '../../support/browser';
import { line } from '../../support/exchange';
import { ROOT, startServe, type Served } from '../../support/server';

const RUNS = ['workplace-assistant', 'swe-claude-code', 'math-with-judge'];
const FOLLOW = { timeout: 30_000 };

let dir: string;
let served: Served;
let browser: Browser;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'callscope-tabs-'));
  const gen = spawnSync(process.execPath, ['bin/callscope.js', 'demo', '--out', path.join(dir, 'runs')], { cwd: ROOT, encoding: 'utf8' });
  expect(gen.status, gen.stderr).toBe(0);
  [served, browser] = await Promise.all([startServe([path.join(dir, 'runs'), '--index-dir', path.join(dir, 'idx')]), launchBrowser()]);
});

afterAll(async () => {
  await browser?.close();
  await served?.stop();
  if (dir) await fsp.rm(dir, { recursive: true, force: true });
});

interface Target {
  run: string;
  key: string;
  rolloutId: string;
  calls: number;
  callRef: string;
  callIndex: number;
}

/** Per run, the rollout with the most calls and the id of its first call. */
async function targets(): Promise<Target[]> {
  return Promise.all(
    RUNS.map(async (run) => {
      const { rollouts } = await apiJson<{ rollouts: { key: string; rollout_id: string; num_calls: number }[] }>(served.url, `/api/runs/${run}/rollouts?sort=calls&order=desc&limit=1`);
      const [r] = rollouts;
      const detail = await apiJson<{ capture: { calls: { call_index: number; model_call_id: string | null }[] } }>(served.url, `/api/runs/${run}/rollouts/${encodeURIComponent(r.key)}`);
      const first = detail.capture.calls[0];
      return { run, key: r.key, rolloutId: r.rollout_id, calls: r.num_calls, callRef: first.model_call_id ?? `i${first.call_index}`, callIndex: first.call_index };
    }),
  );
}

/** Appends a copy of the rollout's last call with a new model_call_id, started after it: one more call. */
async function appendCall(t: Target, id: string): Promise<void> {
  const file = path.join(dir, 'runs', t.run, 'captures', `${t.key}.capture.jsonl`);
  const lines = (await fsp.readFile(file, 'utf8')).split('\n').filter(Boolean);
  const last = parseStrict(lines.at(-1)!) as JsonObject;
  await fsp.appendFile(file, line({ ...last, model_call_id: id, started_at: (last.completed_at as number) + 1, completed_at: (last.completed_at as number) + 2 }));
}

const count = async (l: Locator) => Number((await l.textContent())!.replace(/,/g, ''));
const termValue = (page: Page, term: RegExp) => page.getByRole('term').filter({ hasText: term }).locator('xpath=following-sibling::dd[1]');

/** One tab: where it goes, what shows it loaded, and the numbers it must keep current (each grows by the calls appended to its runs). */
interface Tab {
  name: string;
  url: string;
  loaded: (page: Page) => Locator;
  figures: (page: Page) => { locator: Locator; runs: string[]; read?: (l: Locator) => Promise<number> }[];
}

function tabs(ts: Target[]): Tab[] {
  const [a, b, c] = ts;
  const rolloutRow = (page: Page, t: Target) => page.getByRole('table').getByRole('row').filter({ has: page.getByRole('link', { name: t.rolloutId, exact: true }) });
  const runsRow = (page: Page, run: string) => page.getByRole('row', { name: `run ${run}` }).getByRole('cell').nth(3);
  const callOf = async (l: Locator) => Number(/of (\d+) in the rollout/.exec((await l.textContent())!)![1]);
  // A compared run's cell may carry its change against the first run: its title holds the bare number.
  const titled = async (l: Locator) => Number(await l.getAttribute('title'));
  const compareCalls = (page: Page, i: number) => page.getByRole('row').filter({ has: page.getByRole('cell', { name: 'calls', exact: true }) }).first().getByRole('cell').nth(1 + i);
  const list: Tab[] = [
    { name: 'runs', url: '/', loaded: (p) => p.getByRole('row', { name: `run ${a.run}` }), figures: (p) => ts.map((t) => ({ locator: runsRow(p, t.run), runs: [t.run] })) },
  ];
  for (const t of ts) {
    list.push({
      name: `rollouts of ${t.run}`,
      url: `/runs/${t.run}?sort=calls&order=desc`,
      loaded: (p) => rolloutRow(p, t),
      figures: (p) => [
        { locator: termValue(p, /^Calls$/), runs: [t.run] },
        { locator: rolloutRow(p, t).getByRole('cell').nth(3), runs: [t.run] },
      ],
    });
    list.push({
      name: `rollout ${t.run}/${t.key}`,
      url: `/runs/${t.run}/rollouts/${encodeURIComponent(t.key)}`,
      loaded: (p) => p.getByRole('img', { name: new RegExp(`^Timeline of ${t.calls} calls`) }),
      figures: (p) => [{ locator: termValue(p, /^Calls$/), runs: [t.run] }],
    });
    list.push({
      name: `call ${t.run}/${t.key}/${t.callRef}`,
      url: `/runs/${t.run}/rollouts/${encodeURIComponent(t.key)}/calls/${encodeURIComponent(t.callRef)}`,
      loaded: (p) => p.getByRole('heading', { level: 1, name: `Call #${t.callIndex}` }),
      figures: (p) => [{ locator: p.getByText(/of \d+ in the rollout$/), runs: [t.run], read: callOf }],
    });
  }
  list.push({
    name: 'compare',
    url: `/compare?runs=${a.run},${b.run}`,
    loaded: (p) => p.getByRole('heading', { level: 1, name: 'Compare 2 runs' }),
    figures: (p) => [
      { locator: compareCalls(p, 0), runs: [a.run], read: titled },
      { locator: compareCalls(p, 1), runs: [b.run], read: titled },
    ],
  });
  list.push({
    name: 'compare 3',
    url: `/compare?runs=${c.run},${a.run},${b.run}`,
    loaded: (p) => p.getByRole('heading', { level: 1, name: 'Compare 3 runs' }),
    figures: (p) => [{ locator: compareCalls(p, 0), runs: [c.run], read: titled }],
  });
  return list;
}

describe('live updates across many tabs', () => {
  it('12 tabs in one browser all load and follow appended calls over one /api/events stream, and keep following when its tab closes', async () => {
    const ts = await targets();
    const plan = tabs(ts);
    expect(plan).toHaveLength(12);
    const first: TrackedPage = await openPage(browser, served.url);
    const { context } = first;
    const streams: Page[] = [];
    const opened: string[] = [];
    context.on('request', (req) => {
      if (new URL(req.url()).pathname !== '/api/events') return;
      streams.push(req.frame().page());
    });
    context.on('response', (res) => {
      if (new URL(res.url()).pathname === '/api/events') opened.push(res.url());
    });
    const errors: string[] = [];
    const pages: Page[] = [];
    for (const [i, tab] of plan.entries()) {
      const page = i === 0 ? first.page : await context.newPage();
      if (i > 0) {
        page.on('pageerror', (err) => errors.push(`${tab.name}: ${err.message}`));
        page.on('console', (msg) => msg.type() === 'error' && errors.push(`${tab.name}: ${msg.text()}`));
      }
      // With one stream per tab, the seventh tab's document never got a connection.
      const loaded = page.goto(tab.url, { waitUntil: 'load', timeout: 30_000 }).then(() => tab.loaded(page).first().waitFor({ timeout: 30_000 }));
      await loaded.catch((err: Error) => {
        throw new Error(`tab ${i + 1} (${tab.name}) did not load: ${err.message}`);
      });
      pages.push(page);
    }
    // Every tab, leader or not, shows the stream's real state.
    for (const [i, page] of pages.entries()) {
      await page.getByRole('status').filter({ hasText: /^Live$/ }).first().waitFor({ timeout: 30_000 }).catch(() => {
        throw new Error(`${plan[i].name}: not Live`);
      });
      await page.evaluate(() => Object.assign(window, { __sameDocument: true }));
    }
    expect(streams).toHaveLength(1);

    const follow = async (round: number, live: number[]) => {
      const before = await Promise.all(live.map((i) => Promise.all(plan[i].figures(pages[i]).map((f) => (f.read ?? count)(f.locator)))));
      for (const t of ts) await appendCall(t, `tabs-${round}-${t.run}`);
      for (const [j, i] of live.entries()) {
        for (const [k, f] of plan[i].figures(pages[i]).entries()) {
          const grown = before[j][k] + f.runs.length;
          await expect.poll(() => (f.read ?? count)(f.locator), { ...FOLLOW, message: `${plan[i].name}, figure ${k}` }).toBe(grown);
        }
        expect(await pages[i].evaluate(() => (window as { __sameDocument?: boolean }).__sameDocument), plan[i].name).toBe(true);
      }
    };
    await follow(1, plan.map((_, i) => i));
    expect(streams).toHaveLength(1);

    // The tab holding the stream closes; another tab takes it over, and every remaining tab keeps following.
    const leader = pages.indexOf(streams[0]);
    expect(leader).toBeGreaterThanOrEqual(0);
    await pages[leader].close();
    await expect.poll(() => opened.length, FOLLOW).toBe(2);
    expect(streams).toHaveLength(2);
    expect(streams[1]).not.toBe(streams[0]);
    const rest = plan.map((_, i) => i).filter((i) => i !== leader);
    for (const i of rest) await pages[i].getByRole('status').filter({ hasText: /^Live$/ }).first().waitFor({ timeout: 30_000 });
    await follow(2, rest);
    expect(streams).toHaveLength(2);

    await settle(pages[rest[0]]);
    expect(errors).toEqual([]);
    if (leader !== 0) expect(problems(first)).toEqual(CLEAN);
    await first.close();
  }, 300_000);
});
