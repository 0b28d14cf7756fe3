// The runs page over what NeMo Gym writes, at its scale: 182 runs made of NeMo Gym-shaped rollout files (several
// agents, none captured) plus the demo. Asserts what the page says: every run by a distinct full name, search by
// name and by agent, an agent filter, sorting by a column, the view kept in the URL across a reload, rewards of
// one precision, calls of uncaptured runs as unknown (never 0), and a date with its year and zone.
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { apiJson, expectClean, openPage, type TrackedPage } from '../../support/browser';
import { SHAPES } from '../../support/nemo-gym-data';
import type { Served } from '../../support/server';
import { closeSession, demoRuns, openSession, type Session } from '../../support/session';

const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures/nemo-gym');
const SEEDS = 26;
const LRS = ['1e-6', '3e-6', '1e-5'];

interface Run {
  id: string;
  capture_dir: string | null;
  totals: { rollouts: number; calls: number; uncaptured: number; mean_reward: number | null; agents: string[] };
}

let session: Session;
let served: Served;
let t: TrackedPage;
let runs: Run[];

beforeAll(async () => {
  session = await openSession('runs-page', (dir) => {
    // nemo/<shape>/lr-<lr>/seed-<n>.jsonl: ids such as `tau2-lr-3e-6-seed-17`, long and alike but for their ends.
    const nemo = path.join(dir, 'nemo');
    for (const [shape, { fixture }] of Object.entries(SHAPES)) {
      for (let seed = 0; seed < SEEDS; seed++) {
        const to = path.join(nemo, shape, `lr-${LRS[seed % LRS.length]}`);
        mkdirSync(to, { recursive: true });
        copyFileSync(path.join(FIXTURES, fixture), path.join(to, `seed-${seed}.jsonl`));
      }
    }
    return [nemo, demoRuns(dir)];
  });
  ({ served, t } = session);
  runs = (await apiJson<{ runs: Run[] }>(served.url, '/api/runs')).runs;
}, 300_000);

afterAll(() => closeSession(session));

beforeEach(() => {
  t.reset();
  return async () => {
    await expectClean(t);
  };
});

/** The live indicator connects from a client effect: once it says Live, the page is hydrated and inputs work. */
const hydrated = (page: Page) => page.getByRole('status').filter({ hasText: /^Live$/ }).first().waitFor();

/** The table as the page shows it: the column headers and, per row, its run id (the row's name) and cell texts by header. */
async function table(page: Page): Promise<{ id: string; name: string; cells: Record<string, string> }[]> {
  return page.locator('table').evaluate((el) => {
    const headers = [...el.querySelectorAll('thead th')].map((th) => th.textContent!.trim());
    return [...el.querySelectorAll('tbody tr[aria-label^="run "]')].map((tr) => {
      const cells = [...tr.querySelectorAll('td')].map((td) => td.textContent!.trim());
      return {
        id: tr.getAttribute('aria-label')!.slice('run '.length),
        name: tr.querySelector('a')!.textContent!,
        cells: Object.fromEntries(headers.map((h, i) => [h, cells[i]])),
      };
    });
  });
}

const ids = async (page: Page) => (await table(page)).map((r) => r.id);
const shownCount = (page: Page) => page.getByRole('status', { name: 'runs shown' });

describe('the runs page at 150+ NeMo Gym runs', () => {
  it('lists every run under its full, distinct name, with one reward precision and calls of uncaptured runs as unknown', async () => {
    expect(runs.length).toBeGreaterThanOrEqual(150 + 3);
    expect(new Set(runs.flatMap((r) => r.totals.agents)).size).toBeGreaterThanOrEqual(4);
    await t.goto('/');
    await hydrated(t.page);
    await shownCount(t.page).filter({ hasText: `${runs.length} runs` }).waitFor();
    const rows = await table(t.page);
    expect(rows.map((r) => r.id).sort()).toEqual(runs.map((r) => r.id).sort());
    for (const r of rows) expect(r.name).toBe(r.id); // the whole id, not cut
    expect(new Set(rows.map((r) => r.name)).size).toBe(rows.length);

    // The NeMo Gym copies have no capture dir: said once above the table, not as a chip on 182 rows.
    const rolloutsOnly = runs.filter((r) => !r.capture_dir).length;
    expect(await t.page.getByLabel('shared by the runs').textContent()).toContain(`${rolloutsOnly} of ${runs.length} runs are rollouts only`);
    expect(await t.page.locator('tbody').getByText('rollouts only', { exact: true }).count()).toBe(0);
    expect(await t.page.locator('tbody').getByText('captured', { exact: true }).count()).toBe(runs.length - rolloutsOnly);

    // Rewards: three decimals in every row (an integer mean too), unknown as a dash.
    const byId = new Map(runs.map((r) => [r.id, r]));
    for (const r of rows) {
      expect(r.cells['Mean reward']).toMatch(/^(-?\d+\.\d{3}|—)$/);
      const mean = byId.get(r.id)!.totals.mean_reward;
      expect(r.cells['Mean reward'], r.id).toBe(mean === null ? '—' : mean.toFixed(3));
    }

    // Calls: unknown for runs none of whose rollouts has capture evidence, a count for the demo's captured runs.
    for (const r of rows) {
      const totals = byId.get(r.id)!.totals;
      if (totals.rollouts > 0 && totals.uncaptured === totals.rollouts) {
        expect(r.cells.Calls, r.id).toBe('unknown');
        expect(r.cells.Errors, r.id).toBe('unknown');
      } else if (totals.uncaptured === 0) {
        expect(r.cells.Calls, r.id).toBe(totals.calls.toLocaleString('en-US'));
      } else {
        expect(r.cells.Calls, r.id).toBe(`${totals.calls.toLocaleString('en-US')} (+${totals.uncaptured.toLocaleString('en-US')} unknown)`);
      }
    }
    // Most of the NeMo Gym copies have no capture evidence at all.
    expect(rows.filter((r) => r.cells.Calls === 'unknown').length).toBeGreaterThanOrEqual(SEEDS);
  }, 120_000);

  it('search by name and by agent, and the agent filter, narrow the list to the right runs; sorting orders the rows; both survive a reload', async () => {
    const { page } = t;
    await t.goto('/');
    await hydrated(page);
    const search = page.getByRole('searchbox', { name: 'Search runs' });

    await search.fill('tau2 seed-1');
    const byName = runs.filter((r) => [r.id, ...r.totals.agents].join('\n').includes('tau2') && [r.id, ...r.totals.agents].join('\n').includes('seed-1'));
    await shownCount(page).filter({ hasText: `${byName.length} of ${runs.length} runs` }).waitFor();
    expect((await ids(page)).sort()).toEqual(byName.map((r) => r.id).sort());
    expect(byName.length).toBe(11); // seed-1 and seed-10 … seed-19 of the tau2 copies

    await search.fill('hermes');
    const byAgent = runs.filter((r) => r.id.includes('hermes') || r.totals.agents.some((a) => a.includes('hermes')));
    await shownCount(page).filter({ hasText: `${byAgent.length} of ${runs.length} runs` }).waitFor();
    expect((await ids(page)).sort()).toEqual(byAgent.map((r) => r.id).sort());
    expect(byAgent.filter((r) => r.id.startsWith('hermes_math-')).length).toBe(SEEDS);

    await search.fill('');
    await page.getByLabel('Agent', { exact: true }).selectOption('anyswe_claude_code');
    const withAgent = runs.filter((r) => r.totals.agents.includes('anyswe_claude_code'));
    await shownCount(page).filter({ hasText: `${withAgent.length} of ${runs.length} runs` }).waitFor();
    expect((await ids(page)).sort()).toEqual(withAgent.map((r) => r.id).sort());

    // Sort by rollouts, highest first, then by name within a count.
    await page.getByRole('columnheader', { name: 'Rollouts' }).getByRole('button').click();
    await page.getByRole('columnheader', { name: 'Rollouts' }).and(page.locator('[aria-sort=descending]')).waitFor();
    await search.fill('lr-3e-6');
    const expected = runs
      .filter((r) => r.totals.agents.includes('anyswe_claude_code') && r.id.includes('lr-3e-6'))
      .sort((a, b) => b.totals.rollouts - a.totals.rollouts || a.id.localeCompare(b.id, 'en', { numeric: true }));
    await shownCount(page).filter({ hasText: `${expected.length} of ${runs.length} runs` }).waitFor();
    expect(await ids(page)).toEqual(expected.map((r) => r.id));

    // All runs by mean reward, highest first: the rewards the rows say do not increase, unknown last.
    await search.fill('');
    await page.getByLabel('Agent', { exact: true }).selectOption('');
    await page.getByRole('columnheader', { name: 'Mean reward' }).getByRole('button').click();
    await page.getByRole('columnheader', { name: 'Mean reward' }).and(page.locator('[aria-sort=descending]')).waitFor();
    const rewards = (await table(page)).map((r) => r.cells['Mean reward']);
    expect(rewards.length).toBe(runs.length);
    const known = rewards.filter((v) => v !== '—').map(Number);
    expect(known).toEqual([...known].sort((a, b) => b - a));
    expect(rewards.slice(known.length).every((v) => v === '—')).toBe(true);

    // A view in the URL comes back on reload: search, agent and sort.
    await search.fill('seed-2');
    await page.getByLabel('Agent', { exact: true }).selectOption('tau2_benchmark_agent');
    await page.waitForURL((u) => u.searchParams.get('q') === 'seed-2' && u.searchParams.get('agent') === 'tau2_benchmark_agent' && u.searchParams.get('sort') === 'mean_reward');
    const before = await ids(page);
    expect(before.length).toBe(7); // seed-2 and seed-20 … seed-25
    await t.goto(new URL(page.url()).pathname + new URL(page.url()).search);
    await hydrated(page);
    expect(await search.inputValue()).toBe('seed-2');
    expect(await page.getByLabel('Agent', { exact: true }).inputValue()).toBe('tau2_benchmark_agent');
    await page.getByRole('columnheader', { name: 'Mean reward' }).and(page.locator('[aria-sort=descending]')).waitFor();
    expect(await ids(page)).toEqual(before);
  }, 120_000);
});

describe('dates', () => {
  it('show their zone, and the year when it is not this year', async () => {
    // The demo's times are of 2026; the viewer's clock says 2027 and their zone is India's (UTC+5:30).
    const viewer = await openPage(session.browser, served.url, { timezoneId: 'Asia/Kolkata' });
    try {
      await viewer.page.clock.setFixedTime(new Date('2027-03-01T00:00:00Z'));
      const { rollouts } = await apiJson<{ rollouts: { rollout_id: string | null; started_at: number | null }[] }>(served.url, '/api/runs/workplace-assistant/rollouts?limit=5');
      const first = rollouts.find((r) => r.started_at !== null && r.rollout_id !== null)!;
      const local = new Date(first.started_at! * 1000 + 5.5 * 3600_000).toISOString(); // the wall clock in UTC+5:30
      const text = `${local.slice(0, 10)} ${local.slice(11, 19)} UTC+5:30`;
      await viewer.goto('/runs/workplace-assistant');
      const row = viewer.page.getByRole('row').filter({ has: viewer.page.getByRole('link', { name: first.rollout_id!, exact: true }) }).first();
      await row.locator('time').filter({ hasText: text }).waitFor();
      expect(await row.locator('time').first().getAttribute('title')).toMatch(/^2026-\d\d-\d\dT[\d:.]+Z \(UTC\)$/);
      await expectClean(viewer);
    } finally {
      await viewer.close();
    }
  }, 60_000);
});
