// Every page of the dashboard, opened in Chromium against the production build: it renders what the API
// says is there, with zero uncaught page errors, zero console errors and no request leaving the server.
// Unknown ids answer the not-found page with status 404.
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiJson, visit, type TrackedPage } from '../../support/browser';
import { FIXTURES, REAL, type NemoGymData } from '../../support/nemo-gym-data';
import type { Served } from '../../support/server';
import { closeSession, demoRuns, openSession, type Session } from '../../support/session';

// NeMo Gym's own files beside our fixtures where they are present (their runs have other ids).
const NEMO_GYM = REAL.present ? [FIXTURES, REAL] : [FIXTURES];
const TABS = ['conversation', 'request', 'response', 'raw', 'delta'] as const;
const TAB_NAMES = { conversation: 'Conversation', request: 'Request', response: 'Response', raw: 'Raw line', delta: 'Delta' };

interface RunInfo {
  id: string;
  rollouts_file: string | null;
  capture_dir: string | null;
  totals: { rollouts: number; calls: number; uncaptured: number };
}
interface RolloutRow {
  key: string;
  rollout_id: string | null;
  num_calls: number;
}
interface CallInfo {
  model_call_id: string | null;
  call_index: number;
  dialect: string | null;
  status_code: number | null;
  error_category: string | null;
  model_ref: { name: string } | null;
  latency_ttft_ms: number | null;
}
interface Detail {
  capture: { calls: CallInfo[] };
}

let session: Session;
let served: Served;
let t: TrackedPage;
let runs: RunInfo[];

const api = <T,>(p: string) => apiJson<T>(served.url, p);
const callRef = (c: CallInfo) => c.model_call_id ?? `i${c.call_index}`;
const callPath = (run: string, rollout: string, c: CallInfo) => `/runs/${run}/rollouts/${encodeURIComponent(rollout)}/calls/${encodeURIComponent(callRef(c))}`;

beforeAll(async () => {
  session = await openSession('pages', (dir) => [demoRuns(dir), ...NEMO_GYM.map((d) => d.dir)]);
  ({ served, t } = session);
  runs = (await api<{ runs: RunInfo[] }>('/api/runs')).runs;
});

afterAll(() => closeSession(session));

const heading = (page: Page, name: string | RegExp) => page.getByRole('heading', { level: 1, name }).waitFor();

/** The run of one NeMo Gym-shaped file. */
const runOf = (file: string) => {
  const run = runs.find((r) => r.rollouts_file === file);
  if (!run) throw new Error(`no run for ${file}`);
  return run;
};

async function rolloutsReady(page: Page, run: RunInfo): Promise<void> {
  await heading(page, run.id);
  const { total, rollouts } = await api<{ total: number; rollouts: RolloutRow[] }>(`/api/runs/${run.id}/rollouts?limit=5`);
  await page.getByText(new RegExp(`^${total.toLocaleString('en-US')} rollouts?$`)).waitFor();
  // The first rollout of the default order (by id) is the first row's link.
  const first = rollouts[0];
  await page.getByRole('table').getByRole('link', { name: first.rollout_id ?? /^line / }).first().waitFor();
}

async function rolloutReady(page: Page, rollout: string, calls: number): Promise<void> {
  await heading(page, rollout);
  if (calls === 0) {
    await page.getByText('This rollout has no captured calls to draw').waitFor();
    return;
  }
  await page.getByRole('img', { name: new RegExp(`^Timeline of ${calls} calls`) }).waitFor();
  const table = page.getByRole('table', { name: 'calls' });
  await table.getByRole('row').nth(1).waitFor();
  expect(await table.getAttribute('aria-rowcount')).toBe(String(calls + 1));
}

async function callReady(page: Page, c: CallInfo, tab: (typeof TABS)[number]): Promise<void> {
  await heading(page, `Call #${c.call_index}`);
  await page.getByRole('tab', { name: TAB_NAMES[tab], selected: true }).waitFor();
  const panel = page.getByRole('tabpanel');
  if (tab === 'conversation') await panel.getByRole('article').first().waitFor();
  if (tab === 'request') await panel.getByRole('tree', { name: 'request' }).or(panel.getByText(/No request object was stored/)).first().waitFor();
  if (tab === 'response') await panel.getByRole('tree', { name: 'normalized record' }).waitFor();
  if (tab === 'raw') await panel.getByText(/as stored in the capture file|has no stored capture line/).waitFor();
  if (tab === 'delta') await panel.getByText(/Compared with|first call of its model server/).waitFor();
}

// What the SWE file's rollout 0-0 and its run show, read off the file with Python's json.loads: the line's
// response.usage input and total tokens, and the input tokens summed over the file's 5 lines.
const SWE_USAGE = {
  fixtures: { tokensIn: '163,841', tokensTotal: '182,116', runTokensIn: '307,681' },
  real: { tokensIn: '174,322', tokensTotal: '195,719', runTokensIn: '321,734' },
};

async function nemoGymRolloutsPages(data: NemoGymData): Promise<void> {
  for (const file of [data.file.mcqa, data.file.tau2]) {
    const run = runOf(file);
    await visit(t, `/runs/${run.id}`, (page) => rolloutsReady(page, run));
  }
}

async function rolloutWithoutCalls(data: NemoGymData): Promise<void> {
  const run = runOf(data.file.mcqa).id;
  const key = (await api<{ rollouts: RolloutRow[] }>(`/api/runs/${run}/rollouts?limit=1`)).rollouts[0].key;
  const r = await api<{ rollout: { num_calls: number; rollout_id: string | null; line_no: number | null } }>(`/api/runs/${run}/rollouts/${encodeURIComponent(key)}`);
  expect(r.rollout.num_calls).toBe(0);
  await visit(t, `/runs/${run}/rollouts/${encodeURIComponent(key)}`, (page) => rolloutReady(page, r.rollout.rollout_id ?? `line ${r.rollout.line_no}`, 0));
}

async function responseUsageShown(data: NemoGymData): Promise<void> {
  const run = runOf(data.file.anyswe_claude_code);
  const want = SWE_USAGE[data.tier];
  await visit(t, `/runs/${run.id}/rollouts/0-0`, async (page) => {
    await rolloutReady(page, '0-0', 0);
    await page.getByText(/are the rollout line's own response\.usage: this rollout has no captured calls/).waitFor();
    await page.getByTitle(new RegExp(`^${want.tokensIn} — from the rollout line's response\\.usage: no captured calls$`)).waitFor();
    await page.getByTitle(new RegExp(`^${want.tokensTotal} — from the rollout line's response\\.usage`)).waitFor();
    await page.getByText(/^No capture evidence: the rollout line has no ng_model_call_capture/).waitFor(); // not "the capture is complete"
  });
  await visit(t, '/', async (page) => {
    await heading(page, 'Runs');
    await page.getByText(/are sums of the rollout lines' own/).waitFor();
    const row = page.getByRole('row', { name: `run ${run.id}`, exact: true });
    await row.getByTitle(new RegExp(`^${want.runTokensIn} tokens \\(the response\\.usage of 5 rollout lines: no captured calls\\)$`)).waitFor();
  });
}

async function lineTreeAtOnce(data: NemoGymData): Promise<void> {
  await visit(t, `/runs/${runOf(data.file.anyswe_claude_code).id}/rollouts/0-0`, async (page) => {
    const tree = page.getByRole('tree', { name: 'rollout line' });
    await tree.waitFor();
    await tree.locator('[data-pointer="/line/responses_create_params"]').waitFor(); // the line's first key (the tree is virtualized)
  });
}

/** Text on the page drawn with a system font, not the page's web fonts (app/fonts.ts): `font: element`. */
async function systemFontText(page: Page): Promise<string[]> {
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send('DOM.enable');
    await cdp.send('CSS.enable');
    const { root } = await cdp.send('DOM.getDocument', { depth: -1 });
    const { nodeIds } = await cdp.send('DOM.querySelectorAll', { nodeId: root.nodeId, selector: 'body *' });
    const found: string[] = [];
    for (const nodeId of nodeIds) {
      const { fonts } = await cdp.send('CSS.getPlatformFontsForNode', { nodeId });
      for (const f of fonts.filter((f) => !f.isCustomFont)) {
        const { outerHTML } = await cdp.send('DOM.getOuterHTML', { nodeId });
        found.push(`${f.familyName}: ${outerHTML.slice(0, 160)}`);
      }
    }
    return found;
  } finally {
    await cdp.detach();
  }
}

describe('every page renders cleanly', () => {
  it('runs: every run is a row with its call count', async () => {
    await visit(t, '/', async (page) => {
      await heading(page, 'Runs');
      for (const run of runs) {
        const row = page.getByRole('row', { name: `run ${run.id}`, exact: true });
        await row.getByRole('link', { name: run.id }).waitFor();
        // Calls of rollouts without capture evidence are unknown, not 0 (the NeMo Gym files were collected without capture).
        const { calls, rollouts, uncaptured } = run.totals;
        const said = rollouts > 0 && uncaptured === rollouts ? 'unknown' : `${calls.toLocaleString('en-US')}${uncaptured ? ` (+${uncaptured.toLocaleString('en-US')} unknown)` : ''}`;
        await expect.poll(() => row.getByRole('cell').nth(3).textContent()).toBe(said);
      }
    });
    expect(runs.length).toBe(8 + NEMO_GYM.reduce((n, d) => n + d.files.length, 0));
  }, 60_000);

  it('rollouts of a capture run, the rollouts-only run, the capture-only run and NeMo Gym-shaped files', async () => {
    const ids = ['workplace-assistant', 'tau2-retail', 'proxy-sessions'];
    const chosen = runs.filter((r) => ids.includes(r.id));
    expect(chosen.map((r) => r.id).sort()).toEqual([...ids].sort());
    for (const run of chosen) await visit(t, `/runs/${run.id}`, (page) => rolloutsReady(page, run));
    await nemoGymRolloutsPages(FIXTURES);
  }, 120_000);

  it("the pages' own text needs no system font (a glyph the web fonts lack costs a synchronous font lookup)", async () => {
    const r = (await api<{ rollouts: RolloutRow[] }>('/api/runs/workplace-assistant/rollouts?limit=1')).rollouts[0];
    const call = (await api<Detail>(`/api/runs/workplace-assistant/rollouts/${encodeURIComponent(r.key)}`)).capture.calls[0];
    const pages: [string, (page: Page) => Promise<void>][] = [
      ['/', (page) => heading(page, 'Runs')],
      ['/runs/workplace-assistant', (page) => rolloutsReady(page, runs.find((x) => x.id === 'workplace-assistant')!)],
      [`/runs/workplace-assistant/rollouts/${encodeURIComponent(r.key)}`, (page) => rolloutReady(page, r.rollout_id!, r.num_calls)],
      [`${callPath('workplace-assistant', r.key, call)}?tab=conversation`, (page) => callReady(page, call, 'conversation')],
      ['/compare?runs=math-with-judge,swe-claude-code,workplace-assistant', async (page) => {
        await heading(page, 'Compare 3 runs');
        await page.getByRole('region', { name: 'Paired by task' }).getByText(/^Unrelated tasks: /).waitFor();
      }],
    ];
    for (const [p, ready] of pages) {
      await visit(t, p, ready);
      expect(await systemFontText(t.page), p).toEqual([]);
    }
  }, 120_000);

  it("token bars: each is its count over the largest of the rows loaded (CSS from the table's scale)", async () => {
    const run = runs.find((r) => r.id === 'workplace-assistant')!;
    const { rollouts } = await api<{ rollouts: (RolloutRow & { tokens_in: number | null })[] }>(`/api/runs/${run.id}/rollouts?limit=100`);
    const max = Math.max(...rollouts.map((r) => r.tokens_in ?? 0));
    expect(max).toBeGreaterThan(0);
    await visit(t, `/runs/${run.id}`, async (page) => {
      await rolloutsReady(page, run);
      const bars = await page.evaluate(() =>
        [...document.querySelectorAll('tbody [title*=" tokens in"]')].map((cell) => {
          const track = cell.querySelector('[aria-hidden]');
          const bar = track?.firstElementChild;
          return { title: cell.getAttribute('title')!, ratio: bar && track ? bar.getBoundingClientRect().width / track.getBoundingClientRect().width : null };
        }),
      );
      expect(bars.length).toBeGreaterThan(3);
      for (const { title, ratio } of bars) {
        const value = Number(/^([\d,]+) tokens in/.exec(title)![1].replace(/,/g, ''));
        expect(ratio, title).not.toBeNull();
        expect(Math.abs(ratio! - value / max), title).toBeLessThan(0.02);
      }
      expect(Math.max(...bars.map((b) => b.ratio!))).toBeGreaterThan(0.98);
    });
  });

  it('rollouts: two model servers, attachment-only, capture-only, a failed attempt, and a NeMo Gym-shaped rollout without calls', async () => {
    const first = async (run: string, pick: (r: RolloutRow & { failure_class: string | null }) => boolean = () => true) =>
      [run, (await api<{ rollouts: (RolloutRow & { failure_class: string | null })[] }>(`/api/runs/${run}/rollouts?limit=100`)).rollouts.find(pick)!.key] as const;
    const picks = [
      await first('math-with-judge', (r) => r.num_calls > 2),
      await first('tau2-retail'),
      await first('proxy-sessions'),
      await first('swe-claude-code', (r) => r.failure_class !== null),
      await first(runOf(FIXTURES.file.mcqa).id),
    ];
    for (const [run, key] of picks) {
      const r = await api<{ rollout: { num_calls: number; rollout_id: string | null; line_no: number | null } }>(`/api/runs/${run}/rollouts/${encodeURIComponent(key)}`);
      await visit(t, `/runs/${run}/rollouts/${encodeURIComponent(key)}`, (page) => rolloutReady(page, r.rollout.rollout_id ?? `line ${r.rollout.line_no}`, r.rollout.num_calls));
    }
  }, 120_000);

  it('payload numbers read as the line stores them: `1.0` stays `1.0` in the tree and in the indented raw line', async () => {
    const { rollouts } = await api<{ rollouts: RolloutRow[] }>('/api/runs/math-with-judge/rollouts?limit=50');
    for (const r of rollouts.filter((x) => x.num_calls > 0)) {
      const { capture } = await api<Detail>(`/api/runs/math-with-judge/rollouts/${encodeURIComponent(r.key)}`);
      const call = capture.calls.find((c) => c.dialect === 'responses' && c.status_code === 200 && c.error_category === null);
      if (!call) continue;
      const stored = await (await fetch(`${served.url}/api${callPath('math-with-judge', r.key, call)}/raw`)).text();
      expect(stored).toContain('"temperature":1.0');
      await visit(t, `${callPath('math-with-judge', r.key, call)}#/response/temperature`, (page) => callReady(page, call, 'response'));
      const row = t.page.getByRole('tree', { name: 'response' }).locator('[data-pointer="/response/temperature"]');
      await expect.poll(() => row.textContent()).toBe('temperature:1.0');
      await visit(t, `${callPath('math-with-judge', r.key, call)}?tab=raw`, (page) => callReady(page, call, 'raw'));
      await t.page.getByRole('checkbox', { name: /^indent/ }).check();
      await expect.poll(() => t.page.locator('pre').first().textContent()).toContain('"temperature": 1.0,');
      expect(await t.page.getByText('numbers as JavaScript reads them').count()).toBe(0);
      return;
    }
    throw new Error('no successful Responses call in math-with-judge');
  }, 60_000);

  it("a NeMo Gym-shaped rollout without calls shows its line's response.usage, said to be that; the runs page marks the sums", async () => {
    await responseUsageShown(FIXTURES);
  }, 120_000);

  it("the rollout's own line as a tree: at once without calls, on demand with them, and opened by a #/line/... link", async () => {
    await lineTreeAtOnce(FIXTURES);
    // A rollout with calls: the line waits for "Show"; a link to a node inside it opens it with the node highlighted.
    const { rollout } = await api<{ rollout: { reward: number | null } }>('/api/runs/swe-claude-code/rollouts/0-0');
    await visit(t, '/runs/swe-claude-code/rollouts/0-0', async (page) => {
      const card = page.getByRole('region', { name: 'Rollout line' });
      await card.getByRole('button', { name: 'Show' }).waitFor();
      expect(await card.getByRole('tree').count()).toBe(0);
    });
    await t.page.goto('about:blank');
    await visit(t, '/runs/swe-claude-code/rollouts/0-0#/line/reward', async (page) => {
      const node = page.locator('[role=tree] [data-pointer="/line/reward"]');
      await node.waitFor();
      await expect.poll(() => node.evaluate((e) => getComputedStyle(e).boxShadow !== 'none' && getComputedStyle(e).boxShadow !== '')).toBe(true);
      expect(await node.textContent()).toContain(String(rollout.reward));
    });
  }, 120_000);

  it('calls on every tab: chat, responses, messages, streamed, an HTTP error, and a call from a rollouts-only run', async () => {
    const picks = new Map<string, [string, string, CallInfo]>();
    for (const run of ['workplace-assistant', 'math-with-judge', 'swe-claude-code', 'proxy-sessions', 'tau2-retail']) {
      const { rollouts } = await api<{ rollouts: RolloutRow[] }>(`/api/runs/${run}/rollouts?limit=100`);
      for (const r of rollouts.filter((x) => x.num_calls > 1)) {
        const { capture } = await api<Detail>(`/api/runs/${run}/rollouts/${encodeURIComponent(r.key)}`);
        for (const c of capture.calls) {
          const kinds = [`dialect:${c.dialect}`, c.error_category && (c.status_code ?? 0) >= 400 ? 'http-error' : '', c.latency_ttft_ms !== null ? 'streamed' : '', run === 'tau2-retail' ? 'attachment' : ''];
          for (const k of kinds.filter(Boolean)) if (!picks.has(k) && c.call_index > 0) picks.set(k, [run, r.key, c]);
        }
      }
    }
    expect([...picks.keys()].sort()).toEqual(['attachment', 'dialect:chat', 'dialect:messages', 'dialect:responses', 'http-error', 'streamed']);
    // Each call opens on its conversation; the other tabs are clicked, as a reader would.
    for (const [kind, [run, rollout, c]] of picks) {
      await visit(t, callPath(run, rollout, c), async (page) => {
        await callReady(page, c, 'conversation');
        for (const tab of TABS.slice(1)) {
          await page.getByRole('tab', { name: TAB_NAMES[tab] }).click();
          await page.waitForURL((u) => u.searchParams.get('tab') === tab);
          await callReady(page, c, tab).catch((err: Error) => {
            throw new Error(`${kind} call, ${tab} tab: ${err.message}`);
          });
        }
      });
    }
  }, 150_000);

  it('compare: every demo run (with and without captures or rollouts files), and the run picker', async () => {
    const demo = runs.filter((r) => !NEMO_GYM.some((d) => r.rollouts_file?.startsWith(d.dir + path.sep))).map((r) => r.id);
    expect(demo.length).toBe(8);
    await visit(t, `/compare?runs=${demo.join(',')}`, async (page) => {
      await heading(page, `Compare ${demo.length} runs`);
      for (const id of demo) await page.getByRole('region', { name: 'Totals' }).getByRole('columnheader', { name: id, exact: true }).waitFor();
      await page.getByRole('img', { name: /^Reward against tokens per rollout/ }).waitFor();
    });
    await visit(t, '/compare', async (page) => {
      await page.getByText('Choose runs to compare').waitFor();
      await page.getByRole('checkbox').first().waitFor();
    });
  }, 60_000);
});

describe.skipIf(!REAL.present)(`${REAL.title}: their pages`, () => {
  it('rollouts of the mcqa and tau2 files', async () => {
    await nemoGymRolloutsPages(REAL);
  }, 120_000);

  it('an mcqa rollout without calls', async () => {
    await rolloutWithoutCalls(REAL);
  }, 60_000);

  it("a SWE rollout without calls shows its line's response.usage, said to be that; the runs page marks the sums", async () => {
    await responseUsageShown(REAL);
  }, 120_000);

  it("a SWE rollout's own line as a tree, at once", async () => {
    await lineTreeAtOnce(REAL);
  }, 60_000);
});

describe('unknown ids answer the not-found page with 404', () => {
  const cases: [string, RegExp][] = [
    ['/runs/no-such-run', /^Not found$/],
    ['/runs/workplace-assistant/rollouts/no-such-rollout', /^Rollout not found$/],
    ['/runs/no-such-run/rollouts/0-1', /not found$/i],
    ['/runs/workplace-assistant/rollouts/0-1/calls/no-such-call', /^Call not found$/],
    ['/runs/workplace-assistant/rollouts/0-1/calls/i999', /^Call not found$/],
    ['/runs/workplace-assistant/rollouts/..%2f..%2fetc/calls/x', /not found$/i],
    ['/compare?runs=no-such-run,workplace-assistant', /not found$/i],
    ['/no/such/page', /^Page not found$/],
  ];
  it.each(cases)('%s', async (p, title) => {
    // Chromium logs the document's own 404 as a console error: exactly that one, nothing else.
    const notFound = /Failed to load resource: the server responded with a status of 404/;
    await visit(t, p, async (page) => {
      await page.getByText(title).first().waitFor();
      await page.getByRole('link', { name: /Back to the runs|Pick runs to compare/ }).waitFor();
    }, { status: 404, soft: false, allowConsole: [notFound] });
    expect(t.consoleErrors.filter((e) => notFound.test(e))).toHaveLength(1);
  });
});
