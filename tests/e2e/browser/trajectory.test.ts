// The trajectory views in Chromium against the production build: what the rollout page, the tool call page and the
// invocation page SAY is checked against the trajectory the API serves (GET .../trajectory), on NeMo Gym-shaped data
// (tests/support/trajectory-run.ts: a claude_code-like rollout projected as the collector would, the collector's own
// output of it with producer turns, a stored trajectory that does not validate; upstream's projection of its nested
// tree test, tests/fixtures/trajectory/) and on the demo's agent runs. Every view is held clean: no page error,
// console error, CSP violation or failed request.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serialize } from '../../../lib/capture/json-serialize';
import { apiJson, openView, visit, expectClean, type TrackedPage } from '../../support/browser';
import type { Served } from '../../support/server';
import { closeSession, demoRuns, openSession, type Session } from '../../support/session';
import { projectedLines } from '../../support/trajectory-fixtures';
import { TOOLS, writeTrajectoryRuns, XSS } from '../../support/trajectory-run';

interface Tool {
  invocation_id: string;
  tool_call_id: string;
  status: string;
  started_at: number | null;
  completed_at: number | null;
  duration_ms: number | null;
}
interface Trajectory {
  invocations: { invocation_id: string }[];
  model_calls: unknown[];
  tool_calls: Tool[];
  turns: unknown[];
}
interface Answer {
  source: string;
  trajectory: Trajectory | null;
  observations: { compactions: unknown[]; sandboxes: unknown[] } | null;
}

let session: Session;
let served: Served;
let t: TrackedPage;

beforeAll(async () => {
  session = await openSession('trajectory', (dir) => {
    const results = writeTrajectoryRuns(dir);
    // upstream's projection of test_extracts_nested_tree_model_refs_and_parallel_tool_timing, as its own run
    mkdirSync(path.join(results, 'upstream'));
    writeFileSync(path.join(results, 'upstream', 'rollouts.jsonl'), serialize(projectedLines().get('producer-project-0')!) + '\n');
    return [results, demoRuns(dir)];
  });
  ({ served, t } = session);
}, 600_000);
afterAll(() => closeSession(session));

const api = <T,>(p: string) => apiJson<T>(served.url, p);
const trajectoryOf = (run: string, rollout: string) => api<Answer>(`/api/runs/${run}/rollouts/${rollout}/trajectory`);
const outline = (page: Page) => page.getByRole('list', { name: 'trajectory outline' });
const drawn = (page: Page) => outline(page).getByRole('listitem').first().waitFor();
const unmeasured = (tc: Tool) => tc.duration_ms === null && (tc.started_at === null || tc.completed_at === null);

/** What the page's counts line and invocations list must say for this trajectory. */
async function expectCountsOf(page: Page, a: Answer) {
  const tr = a.trajectory!;
  const failed = tr.tool_calls.filter((c) => c.status === 'failed').length;
  const counts = (await page.getByLabel('trajectory counts').textContent()) ?? '';
  const n = (k: number, one: string) => `${k} ${k === 1 ? one : `${one}s`}`;
  expect(counts).toContain(`${n(tr.invocations.length, 'invocation')} · ${n(tr.tool_calls.length, 'tool call')}`);
  if (tr.tool_calls.length) expect(counts).toContain(`(${failed} failed, ${tr.tool_calls.filter(unmeasured).length} not measured)`);
  expect(counts).toContain(n(tr.turns.length, 'turn'));
  expect(counts).toContain(n(a.observations?.compactions.length ?? 0, 'compaction'));
  const invocations = page.getByRole('list', { name: 'invocations' });
  expect(new Set(await invocations.getByRole('link').allTextContents())).toEqual(new Set(tr.invocations.map((i) => i.invocation_id)));
  // the outline lists every item once: model calls, tool calls, compactions, sandbox runs
  const items = tr.model_calls.length + tr.tool_calls.length + (a.observations?.compactions.length ?? 0) + (a.observations?.sandboxes.length ?? 0);
  await expect.poll(async () => (await page.getByText(/^\d+ of \d+$/).first().textContent()) ?? '').toBe(`${items} of ${items}`);
}

describe('the rollout page draws the trajectory (a claude_code-like rollout, projected)', () => {
  const path0 = '/runs/agent/rollouts/0-0';

  it('says how many invocations and tool calls the trajectory has, lists each invocation, and replaces the call timeline', async () => {
    const a = await trajectoryOf('agent', '0-0');
    expect(a.source).toBe('projected');
    const page = await visit(t, path0, drawn);
    await expectCountsOf(page, a);
    expect(await page.getByRole('heading', { name: /^Timeline \(/ }).count()).toBe(0);
    await page.getByRole('region', { name: 'Per call' }).waitFor();
    // subagents nested under main, each saying which tool call spawned it
    const list = (await page.getByRole('list', { name: 'invocations' }).textContent()) ?? '';
    expect(list).toContain(`spawned by ${TOOLS.taskA.id}`);
    expect(list).toContain(`spawned by ${TOOLS.taskB.id}`);
    expect(list).toMatch(/sub-bfailedSubagentError/);
  });

  it('shows the failed tool call failed, and the unmeasured one as not measured, between its calls', async () => {
    const page = await visit(t, path0, drawn);
    const search = page.getByRole('searchbox', { name: 'Search the outline' });
    await search.fill(TOOLS.taskB.id);
    await expect.poll(() => outline(page).getByRole('listitem').count()).toBe(1); // one of the 15 items
    expect(await outline(page).getByRole('listitem').textContent()).toMatch(/tool call.*Task.*failed/);
    await search.fill(TOOLS.grep.id);
    await expect.poll(async () => (await outline(page).getByRole('listitem').allTextContents()).join('|')).toMatch(/^tool callGrep/);
    expect(await outline(page).getByRole('listitem').count()).toBe(1);
    expect(await outline(page).getByRole('listitem').textContent()).toContain('not measured; drawn between call-4, which requested it, and call-5');
    await expectClean(t);
  });

  it('keeps the selection in the URL, the same in the outline and the timeline; j / k move it in time order', async () => {
    const page = await visit(t, path0, drawn);
    await outline(page).getByRole('listitem', { name: 'tool call Grep' }).click();
    await page.waitForURL((u) => u.searchParams.get('item') === `tool:main/${TOOLS.grep.id}`);
    const selected = page.getByRole('region', { name: 'selected item' });
    expect(await selected.textContent()).toContain('tool call: Grep');
    expect(await selected.textContent()).toContain('requested by call-4');
    await page.keyboard.press('j');
    await page.waitForURL((u) => u.searchParams.get('item') === 'call:call-5');
    await page.keyboard.press('k');
    await page.keyboard.press('k');
    await page.waitForURL((u) => u.searchParams.get('item') === 'compaction:0');
    expect(await selected.textContent()).toContain('time not recorded; between call-4 and call-5');
    // the link opens the same selection
    const again = await visit(t, `${path0}?item=${encodeURIComponent(`tool:main/${TOOLS.taskB.id}`)}`, drawn);
    await expect.poll(async () => (await outline(again).locator('[aria-current="true"]').textContent()) ?? '').toMatch(/Task.*failed/);
  });

  it('a stored trajectory that does not validate is shown as stored, and the page says so', async () => {
    const page = await visit(t, '/runs/broken/rollouts/5-0', drawn);
    const alert = page.getByRole('alert').filter({ hasText: 'does not validate' });
    await alert.waitFor();
    expect(await alert.textContent()).toContain('lack their ids');
  });

  it('the collector-written line: the turns with question, answer, resolved and step count, each linked to its calls', async () => {
    const a = await trajectoryOf('collected', '0-0');
    expect(a.source).toBe('line');
    const page = await visit(t, '/runs/collected/rollouts/0-0', drawn);
    await expectCountsOf(page, a);
    const turns = page.getByRole('region', { name: 'turns' }).getByRole('listitem');
    expect(await turns.count()).toBe(2);
    const first = (await turns.first().textContent()) ?? '';
    for (const said of ['Turn 1', 'Q: Fix the failing test in src/utils.py', 'A: Found the bug in add()', 'not resolved', '4 steps']) expect(first).toContain(said);
    expect(await turns.nth(1).textContent()).toContain('resolved');
    expect(await turns.first().getByRole('link', { name: 'call-1' }).getAttribute('href')).toBe('/runs/collected/rollouts/0-0/calls/call-1');
  });

  it('a rollout without an agent trajectory keeps the call timeline', async () => {
    const { rollouts } = await api<{ rollouts: { key: string; trajectory: { invocations: number } | null }[] }>('/api/runs/math-with-judge/rollouts?limit=1');
    const page = await visit(t, `/runs/math-with-judge/rollouts/${rollouts[0].key}`, (p) => p.getByRole('heading', { name: /^Timeline \(/ }).waitFor());
    expect(await page.getByRole('region', { name: 'Trajectory', exact: true }).count()).toBe(0);
  });
});

describe('the tool call page', () => {
  const toolPath = (id: string, invocation = 'main') => `/runs/agent/rollouts/0-0/tool-calls/${id}?invocation=${invocation}`;
  const facts = async (page: Page) => (await page.getByLabel('tool call', { exact: true }).textContent()) ?? '';

  it('shows the arguments and the output the conversation holds, the timing and its source, the sandbox, and the calls around it', async () => {
    const page = await visit(t, toolPath(TOOLS.read.id), (p) => p.getByRole('heading', { level: 1, name: 'Read' }).waitFor());
    expect(await page.getByRole('region', { name: 'Arguments' }).textContent()).toContain(TOOLS.read.args.file_path);
    expect(await page.getByRole('region', { name: 'Output' }).textContent()).toContain(TOOLS.read.output.split('\n')[1].trim());
    const f = await facts(page);
    for (const said of ['took 300 ms', 'executor', 'sb-1', 'peak 512 MiB', 'completed']) expect(f).toContain(said);
    expect(await page.getByRole('link', { name: 'call-0' }).getAttribute('href')).toBe('/runs/agent/rollouts/0-0/calls/call-0');
    expect(await page.getByRole('link', { name: 'call-1' }).getAttribute('href')).toBe('/runs/agent/rollouts/0-0/calls/call-1');
  });

  it('says "not measured" for a tool call without timing, and names the calls it sits between', async () => {
    const page = await visit(t, toolPath(TOOLS.grep.id), (p) => p.getByRole('heading', { level: 1, name: 'Grep' }).waitFor());
    const f = await facts(page);
    expect(f).toContain('Timingnot measured');
    expect(f).toMatch(/Requested by \(call before\)call-4/);
    expect(f).toMatch(/Call aftercall-5/);
  });

  it('shows a failed tool call failed, with its error type and the subagent it spawned', async () => {
    const page = await visit(t, toolPath(TOOLS.taskB.id), (p) => p.getByRole('heading', { level: 1, name: 'Task' }).waitFor());
    const f = await facts(page);
    expect(f).toContain('Statusfailed');
    expect(f).toContain(`Error type${TOOLS.taskB.error}`);
    expect(await page.getByRole('link', { name: 'sub-b' }).getAttribute('href')).toBe('/runs/agent/rollouts/0-0/invocations/sub-b');
  });

  it('answers 404 for a tool call the trajectory does not have, or not in the invocation named', async () => {
    for (const p of ['/runs/agent/rollouts/0-0/tool-calls/toolu_nope', toolPath(TOOLS.read.id, 'sub-a'), '/runs/broken/rollouts/5-0/tool-calls/x']) {
      await openView(t, p, (page) => page.getByText('Tool call not found').waitFor(), 404);
    }
  });
});

describe('the invocation page', () => {
  it('shows the status, the parent and the tool call that spawned it, its calls, and its conversation', async () => {
    const page = await visit(t, '/runs/agent/rollouts/0-0/invocations/sub-b', (p) => p.getByRole('heading', { level: 1, name: 'sub-b' }).waitFor());
    const f = (await page.getByLabel('invocation', { exact: true }).textContent()) ?? '';
    expect(f).toContain('Statusfailed');
    expect(f).toContain('Error typeSubagentError');
    expect(await page.getByRole('link', { name: 'main', exact: true }).first().getAttribute('href')).toBe('/runs/agent/rollouts/0-0/invocations/main');
    expect(await page.getByRole('link', { name: `Task ${TOOLS.taskB.id}` }).getAttribute('href')).toBe(`/runs/agent/rollouts/0-0/tool-calls/${TOOLS.taskB.id}?invocation=main`);
    expect(await page.getByRole('region', { name: 'model calls' }).getByRole('link').allTextContents()).toEqual(['call-3']);
    await page.getByRole('region', { name: /^Conversation/ }).getByText('check the docs').waitFor();
  });

  it("shows the main agent's conversation with its tool calls, and its subagents", async () => {
    const page = await visit(t, '/runs/agent/rollouts/0-0/invocations/main', (p) => p.getByRole('heading', { level: 1, name: 'main' }).waitFor());
    const conversation = page.getByRole('region', { name: /^Conversation/ });
    await conversation.getByText('Fix the failing test in src/utils.py').waitFor();
    expect(await conversation.textContent()).toContain(TOOLS.read.name);
    expect(await page.getByRole('region', { name: 'tool calls' }).getByRole('link').count()).toBe(4);
    expect((await page.getByLabel('invocation', { exact: true }).textContent()) ?? '').toContain('Subagentssub-asub-b');
  });

  it('answers 404 for an invocation the trajectory does not have', async () => {
    await openView(t, '/runs/agent/rollouts/0-0/invocations/nobody', (page) => page.getByText('Invocation not found').waitFor(), 404);
  });
});

describe('payload text stays text', () => {
  it('markup in a tool output, a conversation and a turn shows as text: no script runs, no request leaves the server', async () => {
    const views: [string, (p: Page) => Promise<unknown>][] = [
      [`/runs/agent/rollouts/0-0/tool-calls/${TOOLS.ls.id}?invocation=sub-a`, (p) => p.getByRole('region', { name: 'Output' }).getByText(XSS, { exact: false }).first().waitFor()],
      ['/runs/agent/rollouts/0-0/invocations/sub-a', (p) => p.getByRole('region', { name: /^Conversation/ }).getByText(XSS, { exact: false }).first().waitFor()],
      ['/runs/collected/rollouts/0-0', (p) => p.getByRole('region', { name: 'turns' }).getByText(XSS, { exact: false }).first().waitFor()],
    ];
    for (const [p, ready] of views) {
      const page = await visit(t, p, ready);
      expect(await page.evaluate(() => (window as { __xss?: number }).__xss), p).toBeUndefined();
      expect(await page.locator('main img[src="x"]').count(), p).toBe(0);
    }
  });
});

describe('other producers and the demo', () => {
  it("upstream's nested tree (a producer trajectory's refs by response_id): three invocations nested, the timed-out tool call marked", async () => {
    const a = await trajectoryOf('upstream', '0-0');
    const page = await visit(t, '/runs/upstream/rollouts/0-0', drawn);
    await expectCountsOf(page, a);
    const rows = await page.getByRole('list', { name: 'invocations' }).getByRole('listitem').allTextContents();
    expect(rows.map((r) => r.split(/completed|incomplete/)[0].replace(/[▾▸]/g, '').trim()).slice(0, 3)).toEqual(['session-root', 'agent-child', 'agent-grandchild']);
    const search = page.getByRole('searchbox', { name: 'Search the outline' });
    await search.fill('tool-grandchild');
    await expect.poll(async () => (await outline(page).getByRole('listitem').first().textContent()) ?? '').toContain('timeout');
  });

  it('the demo agents: every rollout with a trajectory says its counts as the trajectory has them', async () => {
    for (const run of ['claude-code-agent', 'hermes-agent']) {
      const { rollouts } = await api<{ rollouts: { key: string; trajectory: { invocations: number; tool_calls: number } | null }[] }>(`/api/runs/${run}/rollouts?limit=4`);
      for (const r of rollouts.filter((x) => x.trajectory && x.trajectory.invocations + x.trajectory.tool_calls > 0).slice(0, 2)) {
        const a = await trajectoryOf(run, r.key);
        const page = await visit(t, `/runs/${run}/rollouts/${r.key}`, drawn);
        await expectCountsOf(page, a);
      }
    }
  });
});
