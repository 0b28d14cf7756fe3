// A run still in progress: a call appended to a capture file shows up in the open pages without a reload,
// and the reader keeps their place (the rollouts table's scroll position is unchanged). All of it twice: with
// the watcher on inotify, and polling (`serve --poll`, what a capture dir on NFS or Lustre gets).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../lib/capture/json-value';
import { parseStrict } from '../../../lib/capture/json-parse';
import { apiJson, CLEAN, launchBrowser, openPage, problems, settle } from '../../support/browser';
import { line } from '../../support/exchange';
import { ROOT, startServe, type Served } from '../../support/server';

const RUN = 'workplace-assistant';

describe.each<[string, string[]]>([
  ['inotify', []],
  ['polling', ['--poll']],
])('live updates (%s)', (mode, extra) => {
  let dir: string;
  let served: Served;
  let browser: Browser;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'callscope-live-'));
    const gen = spawnSync(process.execPath, ['bin/callscope.js', 'demo', '--out', path.join(dir, 'runs')], { cwd: ROOT, encoding: 'utf8' });
    expect(gen.status, gen.stderr).toBe(0);
    [served, browser] = await Promise.all([startServe([path.join(dir, 'runs'), '--index-dir', path.join(dir, 'idx'), ...extra]), launchBrowser()]);
  });

  afterAll(async () => {
    await browser?.close();
    await served?.stop();
    if (dir) await fsp.rm(dir, { recursive: true, force: true });
  });

  /** Appends a copy of the file's last call with a new model_call_id, started after it: one more call. */
  async function appendCall(rollout: string, id: string): Promise<void> {
    const file = path.join(dir, 'runs', RUN, 'captures', `${rollout}.capture.jsonl`);
    const lines = (await fsp.readFile(file, 'utf8')).split('\n').filter(Boolean);
    const last = parseStrict(lines.at(-1)!) as JsonObject;
    await fsp.appendFile(file, line({ ...last, model_call_id: id, started_at: (last.completed_at as number) + 1, completed_at: (last.completed_at as number) + 2 }));
  }

  it('says whether it polls', () => {
    expect(/by polling \(--poll\)/.test(served.output())).toBe(mode === 'polling');
  });

  it('the rollouts table and the run header show an appended call without a reload, keeping the scroll position', async () => {
    const t = await openPage(browser, served.url);
    const { page } = t;
    await t.goto(`/runs/${RUN}`);
    const table = page.getByRole('table');
    await table.getByRole('link').first().waitFor();
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();

    // Scroll the table so that the rollout we change sits mid-view, not at the top.
    const { rollouts } = await apiJson<{ rollouts: { key: string; rollout_id: string; num_calls: number }[] }>(served.url, `/api/runs/${RUN}/rollouts?limit=100`);
    expect(rollouts.length).toBeGreaterThan(30);
    const target = rollouts[14];
    const scroller = table.locator('xpath=..');
    await scroller.evaluate((el) => el.scrollTo(0, 8 * 38));
    await settle(page, 300);
    const before = await scroller.evaluate((el) => ({ top: el.scrollTop, window: window.scrollY, height: el.scrollHeight }));
    expect(before.top).toBeGreaterThan(0);
    const row = table.getByRole('row').filter({ has: page.getByRole('link', { name: target.rollout_id, exact: true }) });
    // The Calls column, found by its header (columns before it come and go).
    const headers = await table.getByRole('columnheader').allTextContents();
    const callsColumn = headers.findIndex((h) => /^\W*Calls\W*$/.test(h.trim()));
    expect(callsColumn).toBeGreaterThan(0);
    await expect.poll(() => row.getByRole('cell').nth(callsColumn).textContent()).toBe(String(target.num_calls));
    const runCalls = page.getByRole('term').filter({ hasText: /^Calls$/ }).locator('xpath=following-sibling::dd[1]');
    const callsBefore = Number((await runCalls.textContent())!.replace(/,/g, ''));

    // A document reload would drop this mark.
    await page.evaluate(() => Object.assign(window, { __sameDocument: true }));
    await appendCall(target.key, 'live-test-call-1');
    await expect.poll(() => row.getByRole('cell').nth(callsColumn).textContent(), { timeout: 10_000 }).toBe(String(target.num_calls + 1));
    await expect.poll(async () => Number((await runCalls.textContent())!.replace(/,/g, '')), { timeout: 10_000 }).toBe(callsBefore + 1);
    const after = await scroller.evaluate((el) => ({ top: el.scrollTop, window: window.scrollY, height: el.scrollHeight }));
    expect(after).toEqual(before);
    expect(await page.evaluate(() => (window as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
    await settle(page);
    expect(problems(t)).toEqual(CLEAN);
    await t.close();
  }, 60_000);

  it('the runs page updates the run’s call count without a reload', async () => {
    const t = await openPage(browser, served.url);
    const { page } = t;
    await t.goto('/');
    const cell = page.getByRole('row', { name: `run ${RUN}` }).getByRole('cell').nth(3);
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    const before = Number((await cell.textContent())!.replace(/,/g, ''));
    await page.evaluate(() => Object.assign(window, { __sameDocument: true }));
    const { rollouts } = await apiJson<{ rollouts: { key: string }[] }>(served.url, `/api/runs/${RUN}/rollouts?limit=1`);
    await appendCall(rollouts[0].key, 'live-test-call-2');
    await expect.poll(async () => Number((await cell.textContent())!.replace(/,/g, '')), { timeout: 10_000 }).toBe(before + 1);
    expect(await page.evaluate(() => (window as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
    await settle(page);
    expect(problems(t)).toEqual(CLEAN);
    await t.close();
  }, 60_000);

  it('the rollout page shows an appended call in its header, timeline and calls table without a reload, keeping the zoom and the table scroll', async () => {
    const t = await openPage(browser, served.url);
    const { page } = t;
    const { rollouts } = await apiJson<{ rollouts: { key: string; rollout_id: string; num_calls: number }[] }>(served.url, `/api/runs/${RUN}/rollouts?sort=calls&order=desc&limit=1`);
    const target = rollouts[0];
    expect(target.num_calls).toBeGreaterThan(3);
    await t.goto(`/runs/${RUN}/rollouts/${encodeURIComponent(target.key)}`);
    const n = target.num_calls;
    const timeline = (calls: number) => page.getByRole('img', { name: new RegExp(`^Timeline of ${calls} calls`) });
    await timeline(n).waitFor();
    const table = page.getByRole('table', { name: 'calls' });
    await table.getByRole('row').nth(1).waitFor();
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    const headerCalls = page.getByRole('term').filter({ hasText: /^Calls$/ }).locator('xpath=following-sibling::dd[1]');
    expect(await headerCalls.textContent()).toBe(String(n));

    // The reader zoomed into the timeline and scrolled the calls table; both stay as they are.
    await page.getByRole('button', { name: 'Zoom in' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Reset zoom' }).isEnabled()).toBe(true);
    await table.evaluate((el) => el.scrollTo(0, 40));
    await settle(page, 300);
    const scrollBefore = await table.evaluate((el) => el.scrollTop);

    await page.evaluate(() => Object.assign(window, { __sameDocument: true }));
    await appendCall(target.key, 'live-test-call-3');
    await expect.poll(() => headerCalls.textContent(), { timeout: 10_000 }).toBe(String(n + 1));
    await timeline(n + 1).waitFor({ timeout: 10_000 });
    await expect.poll(() => table.getAttribute('aria-rowcount'), { timeout: 10_000 }).toBe(String(n + 2));
    expect(await page.getByRole('button', { name: 'Reset zoom' }).isEnabled()).toBe(true);
    expect(await table.evaluate((el) => el.scrollTop)).toBe(scrollBefore);
    expect(await page.evaluate(() => (window as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
    // The new call is one click away: its page opens from the table.
    await table.evaluate((el) => el.scrollTo(0, el.scrollHeight));
    const last = table.locator(`[aria-rowindex="${n + 2}"]`);
    await last.waitFor();
    const detail = await apiJson<{ capture: { calls: { call_index: number; model_call_id: string | null }[] } }>(served.url, `/api/runs/${RUN}/rollouts/${encodeURIComponent(target.key)}`);
    const added = detail.capture.calls.find((c) => c.model_call_id === 'live-test-call-3')!;
    expect(await last.getByRole('cell').first().textContent()).toBe(String(added.call_index));
    expect(await last.getAttribute('href')).toMatch(/\/calls\/live-test-call-3$/);
    await settle(page);
    expect(problems(t)).toEqual(CLEAN);
    await t.close();
  }, 60_000);
});
