// Moving around the dashboard as a user does: links from the runs down to one call, the call page's keys,
// shared links (a call URL, a call URL with `#/<json-pointer>` naming a payload node), and the rollouts
// view kept in the URL so that a reload shows the same order the API gives.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { apiJson, expectClean, isInView, type TrackedPage } from '../../support/browser';
import type { Served } from '../../support/server';
import { closeSession, demoRuns, openSession, type Session } from '../../support/session';
import { formatBytes } from '../../../lib/view/format';

interface CallInfo {
  model_call_id: string | null;
  call_index: number;
  model: string | null;
}
interface CallRecord {
  request: Record<string, unknown>;
  response: Record<string, unknown>;
}

let session: Session;
let served: Served;
let t: TrackedPage;

const api = <T,>(p: string) => apiJson<T>(served.url, p);
const calls = async (run: string, rollout: string) => (await api<{ capture: { calls: CallInfo[] } }>(`/api/runs/${run}/rollouts/${rollout}`)).capture.calls;
const callPath = (run: string, rollout: string, c: CallInfo) => `/runs/${run}/rollouts/${rollout}/calls/${c.model_call_id ?? `i${c.call_index}`}`;
const h1 = (page: Page) => page.getByRole('heading', { level: 1 });
/** The live indicator connects from a client effect: once it says Live, the page is hydrated and clicks land. */
const hydrated = (page: Page) => page.getByRole('status').filter({ hasText: /^Live$/ }).first().waitFor();

beforeAll(async () => {
  session = await openSession('nav', (dir) => [demoRuns(dir)]);
  ({ served, t } = session);
});

afterAll(() => closeSession(session));

// One page for the file; every test starts by opening its own URL, and ends with a clean record.
beforeEach(() => {
  t.reset();
  return async () => {
    await expectClean(t);
  };
});

/** Waits until the call page is hydrated and its payloads are loaded (the keys work from then on). */
async function callLoaded(page: Page, index: number): Promise<void> {
  await h1(page).filter({ hasText: `Call #${index}` }).waitFor();
  await page.getByRole('tabpanel').getByText(/loaded in \d+ ms/).waitFor();
}

describe('navigation by links', () => {
  it('runs → run → rollout → call, and back up the breadcrumb', async () => {
    const [first, second] = await calls('workplace-assistant', '0-1');
    const { page } = t;
    await t.goto('/');
    await page.getByRole('row', { name: 'run workplace-assistant' }).getByRole('link', { name: 'workplace-assistant' }).click();
    await page.waitForURL('**/runs/workplace-assistant');
    await expect.poll(() => h1(page).textContent()).toBe('workplace-assistant');

    await page.getByRole('table').getByRole('link', { name: '0-1', exact: true }).click();
    await page.waitForURL('**/runs/workplace-assistant/rollouts/0-1');
    await expect.poll(() => h1(page).textContent()).toBe('0-1');

    await page.getByRole('table', { name: 'calls' }).getByRole('row', { name: new RegExp(`^${second.call_index} `) }).click();
    await page.waitForURL(`**${callPath('workplace-assistant', '0-1', second)}`);
    await callLoaded(page, second.call_index);
    await expect(page.getByText(second.model_call_id!, { exact: true }).isVisible()).resolves.toBe(true);

    await page.getByRole('link', { name: 'Previous call' }).click();
    await page.waitForURL(`**${callPath('workplace-assistant', '0-1', first)}`);
    await callLoaded(page, first.call_index);

    await page.getByRole('navigation', { name: 'breadcrumb' }).getByRole('link', { name: '0-1' }).click();
    await page.waitForURL('**/runs/workplace-assistant/rollouts/0-1');
    await page.getByRole('navigation', { name: 'breadcrumb' }).getByRole('link', { name: 'workplace-assistant' }).click();
    await page.waitForURL('**/runs/workplace-assistant');
    await page.getByRole('navigation', { name: 'breadcrumb' }).getByRole('link', { name: 'Runs' }).click();
    await page.waitForURL((u) => u.pathname === '/');
    await page.getByRole('row', { name: 'run workplace-assistant' }).waitFor();
  }, 90_000);

  it('keys on a call page: j/→ next call, k/← previous, 1–5 switch tabs (and the tab carries over)', async () => {
    const list = await calls('workplace-assistant', '0-1');
    expect(list.length).toBe(3);
    const { page } = t;
    await t.goto(callPath('workplace-assistant', '0-1', list[0]));
    await callLoaded(page, 0);

    await page.keyboard.press('j');
    await page.waitForURL(`**${callPath('workplace-assistant', '0-1', list[1])}`);
    await callLoaded(page, 1);

    await page.keyboard.press('3');
    await page.waitForURL((u) => u.searchParams.get('tab') === 'response');
    await page.getByRole('tab', { name: 'Response', selected: true }).waitFor();
    await page.getByRole('tree', { name: 'response' }).waitFor();

    await page.keyboard.press('ArrowRight');
    await page.waitForURL((u) => u.pathname === callPath('workplace-assistant', '0-1', list[2]) && u.searchParams.get('tab') === 'response');
    await callLoaded(page, 2);
    await page.getByRole('tab', { name: 'Response', selected: true }).waitFor();

    // The last call has no next one: j stays put.
    await page.keyboard.press('j');
    await page.waitForTimeout(300);
    expect(new URL(page.url()).pathname).toBe(callPath('workplace-assistant', '0-1', list[2]));

    await page.keyboard.press('k');
    await page.waitForURL((u) => u.pathname === callPath('workplace-assistant', '0-1', list[1]));
    await callLoaded(page, 1);
    await page.keyboard.press('ArrowLeft');
    await page.waitForURL((u) => u.pathname === callPath('workplace-assistant', '0-1', list[0]));
    await callLoaded(page, 0);

    await page.keyboard.press('4');
    await page.getByRole('tab', { name: 'Raw line', selected: true }).waitFor();
    await page.getByRole('tabpanel').getByText(/as stored in the capture file/).waitFor();
    await page.keyboard.press('1');
    await page.getByRole('tab', { name: 'Conversation', selected: true }).waitFor();
    await page.getByRole('tabpanel').getByRole('article').first().waitFor();

    // Typing in a field is not a shortcut.
    await page.getByRole('tab', { name: 'Request' }).click();
    await page.getByRole('searchbox', { name: 'Search the payload' }).fill('j3');
    await page.waitForTimeout(300);
    expect(new URL(page.url()).pathname).toBe(callPath('workplace-assistant', '0-1', list[0]));
    await page.getByRole('tab', { name: 'Request', selected: true }).waitFor();
  }, 90_000);
});

/** A JSON pointer to the deepest last string inside `value` (under `base`), with the string. */
function lastString(value: unknown, base: string): { pointer: string; text: string } | null {
  if (typeof value === 'string') return { pointer: base, text: value };
  const entries: [string, unknown][] = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : value && typeof value === 'object' ? Object.entries(value) : [];
  for (const [k, v] of entries.reverse()) {
    const found = lastString(v, `${base}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`);
    if (found) return found;
  }
  return null;
}

/** The highlighted node of the open payload tree: its pointer, text, and whether it is in view. */
async function highlighted(page: Page) {
  const rows = page.locator('[role=tree] [data-pointer]');
  await page.getByRole('tree').first().waitFor();
  return rows.evaluateAll((els) =>
    els.filter((e) => getComputedStyle(e).boxShadow !== 'none' && getComputedStyle(e).boxShadow !== '').map((e) => ({ pointer: e.getAttribute('data-pointer'), text: e.textContent ?? '' })),
  );
}

describe('shared links', () => {
  it('a call URL opened directly shows that call, as the API has it', async () => {
    const list = await calls('swe-claude-code', '0-0');
    const c = list[2];
    await t.goto(callPath('swe-claude-code', '0-0', c));
    await callLoaded(t.page, c.call_index);
    await t.page.getByText(c.model_call_id!, { exact: true }).waitFor();
    await t.page.getByRole('definition').filter({ hasText: c.model! }).first().waitFor();
    expect(await t.page.getByText(`${3} of ${list.length} in the rollout`).isVisible()).toBe(true);
    // The size shown is the size of the body the API sent, in bytes.
    const body = await (await fetch(`${served.url}/api${callPath('swe-claude-code', '0-0', c)}`)).arrayBuffer();
    expect(await t.page.getByRole('tabpanel').getByText(/loaded in \d+ ms/).textContent()).toMatch(new RegExp(`^${formatBytes(body.byteLength).replace('.', '\\.')} loaded in`));
  }, 60_000);

  const cases = [
    // A node shown at the default depth, near the top of the request.
    { name: 'a shallow request node', run: 'workplace-assistant', rollout: '0-1', at: 1, pick: (r: CallRecord) => ({ pointer: '/request/input/1/content', text: ((r.request.input as { content: string }[])[1]).content }), tab: 'Request' },
    // The last message's deepest string: collapsed by default and below the fold, so it must be revealed and scrolled to.
    { name: 'a deep node that must be revealed and scrolled to', run: 'swe-claude-code', rollout: '0-0', at: -1, pick: (r: CallRecord) => lastString((r.request.messages as unknown[]).at(-1), `/request/messages/${(r.request.messages as unknown[]).length - 1}`)!, tab: 'Request' },
    { name: 'a response node', run: 'workplace-assistant', rollout: '0-1', at: 1, pick: (r: CallRecord) => ({ pointer: '/response/usage/input_tokens', text: String((r.response.usage as { input_tokens: number }).input_tokens) }), tab: 'Response' },
  ];
  it.each(cases)('#/<pointer> to $name opens its tab with the node highlighted and in view', async ({ run, rollout, at, pick, tab }) => {
    const list = await calls(run, rollout);
    const c = list.at(at)!;
    const record = await api<CallRecord>(`/api${callPath(run, rollout, c)}`);
    const { pointer, text } = pick(record);
    expect(text.length).toBeGreaterThan(0);
    const { page } = t;
    await page.goto('about:blank'); // a fresh document, as a link opened in a new tab
    await t.goto(`${callPath(run, rollout, c)}#${pointer.split('/').map(encodeURIComponent).join('/')}`);
    await page.getByRole('tab', { name: tab, selected: true }).waitFor();
    await expect.poll(() => new URL(page.url()).searchParams.get('tab')).toBe(tab.toLowerCase());
    await expect.poll(async () => (await highlighted(page)).map((h) => h.pointer), { timeout: 10_000 }).toEqual([pointer]);
    const node = page.locator(`[role=tree] [data-pointer="${pointer}"]`);
    expect(await node.textContent()).toContain(text.slice(0, 40));
    await expect.poll(() => node.evaluate(isInView), { timeout: 5_000, message: `${pointer} is not in view` }).toBe(true);
  }, 60_000);
});

/** The rollout ids of the rows the table has drawn, top to bottom. */
const drawnRollouts = (page: Page) =>
  page
    .getByRole('table')
    .getByRole('row')
    .filter({ has: page.getByRole('link') })
    .evaluateAll((rows) => rows.map((r) => r.querySelector('a')?.textContent ?? ''));

describe('URL state', () => {
  it('sorting by a header is in the URL, and reloading that URL shows the order the API gives', async () => {
    const run = 'workplace-assistant';
    const apiOrder = async (sort: string, order: string) =>
      (await api<{ rollouts: { rollout_id: string | null; line_no: number | null }[] }>(`/api/runs/${run}/rollouts?sort=${sort}&order=${order}&limit=100`)).rollouts.map((r) => r.rollout_id ?? `line ${r.line_no}`);
    const { page } = t;
    await t.goto(`/runs/${run}`);
    await hydrated(page);
    const byId = await drawnRollouts(page);
    expect(byId).toEqual((await apiOrder('rollout', 'asc')).slice(0, byId.length));

    for (const order of ['desc', 'asc']) {
      await page.getByRole('columnheader', { name: 'Reward' }).getByRole('button').click();
      // 'asc' is the default order, which the URL leaves out.
      await page.waitForURL((u) => u.searchParams.get('sort') === 'reward' && (u.searchParams.get('order') ?? 'asc') === order);
      const header = page.getByRole('columnheader', { name: 'Reward' });
      await expect.poll(() => header.getAttribute('aria-sort')).toBe(order === 'desc' ? 'descending' : 'ascending');
      const expected = await apiOrder('reward', order);
      await expect.poll(async () => (await drawnRollouts(page)).join()).toBe(expected.slice(0, (await drawnRollouts(page)).length).join());
      const clicked = await drawnRollouts(page);
      expect(clicked).not.toEqual(byId.slice(0, clicked.length));
      expect(clicked.length).toBeGreaterThanOrEqual(10);

      await page.reload();
      await hydrated(page);
      expect(await page.getByRole('columnheader', { name: 'Reward' }).getAttribute('aria-sort')).toBe(order === 'desc' ? 'descending' : 'ascending');
      const reloaded = await drawnRollouts(page);
      expect(reloaded).toEqual(expected.slice(0, reloaded.length));
      expect(reloaded.length).toBeGreaterThanOrEqual(10);
    }
  }, 90_000);

  it('a filter and a search are in the URL too, and the link reproduces the view', async () => {
    const run = 'workplace-assistant';
    const { page } = t;
    await t.goto(`/runs/${run}`);
    await hydrated(page);
    await page.getByRole('combobox', { name: 'Errors' }).selectOption('true');
    await page.waitForURL((u) => u.searchParams.get('has_errors') === 'true');
    const { total } = await api<{ total: number }>(`/api/runs/${run}/rollouts?has_errors=true&limit=1`);
    expect(total).toBeGreaterThan(0);
    await page.getByText(new RegExp(`^${total} rollouts? match$`)).waitFor();
    const url = page.url();
    await t.goto(url);
    await page.getByText(new RegExp(`^${total} rollouts? match$`)).waitFor();
    expect(await page.getByRole('combobox', { name: 'Errors' }).inputValue()).toBe('true');
  }, 60_000);
});
