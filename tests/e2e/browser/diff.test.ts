// The diff page over a results dir laid out as NeMo Gym leaves it (tests/support/diff-data.ts): what it SAYS is
// checked against the data it was built from and against the API: the first divergence it marks is the one the API
// names, and is in view on open even far down a long diff; the deltas shown are the data's; the shared history is
// folded with its right length; j/k move between pairs; links lead to each call; "Diff with…" on a rollout page
// offers the task's best other rollout; a bad or unknown rollout is the not-found page. No page problems anywhere.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiJson, CLEAN, isInView, problems, settle } from '../../support/browser';
import { A, B, DIFF_RUN, expectedDiff, itemsBefore, LONG, UNCAPTURED_RUN, writeDiffData } from '../../support/diff-data';
import { closeSession, openSession, type Session } from '../../support/session';

let session: Session;

beforeAll(async () => {
  session = await openSession('diff', (dir) => [writeDiffData(dir)]);
}, 600_000);
afterAll(() => closeSession(session));

const diffPath = (a: string, b: string, extra = '') => `/diff?a=${encodeURIComponent(`${DIFF_RUN}/${a}`)}&b=${encodeURIComponent(`${DIFF_RUN}/${b}`)}${extra}`;

async function visit(p: string, status = 200): Promise<Page> {
  const { t } = session;
  t.reset();
  const res = await t.goto(p);
  expect(res.status(), p).toBe(status);
  await settle(t.page);
  return t.page;
}

const clean = (allowConsole: RegExp[] = []) => expect.soft(problems(session.t, allowConsole)).toEqual(CLEAN);
const signed = (n: number, unit: string) => `${n > 0 ? '+' : n < 0 ? '\u2212' : '±'}${Math.abs(n).toLocaleString('en-US')} ${unit}`;

describe('the diff page', () => {
  it('marks the divergence the API names, shows each pair\'s deltas as the data has them, and opens the divergence', async () => {
    const want = expectedDiff();
    const api = await apiJson<{ first_divergence: { pair: number } }>(session.served.url, `/api${diffPath(A, B)}`);
    expect(api.first_divergence.pair).toBe(want.first_divergence.pair);
    const page = await visit(diffPath(A, B));
    const marked = page.getByRole('row', { name: /first divergence/ });
    await expect.poll(() => marked.count()).toBe(1);
    expect(await marked.getAttribute('data-pair')).toBe(String(api.first_divergence.pair));
    expect(await page.getByRole('status', { name: 'first divergence' }).textContent()).toContain(`pair ${want.first_divergence.pair}: a call 3, b call 3: the same request, different responses`);
    for (const [i, [ac, bc]] of want.pairs.entries()) {
      const row = page.locator(`[role=row][data-pair="${i}"]`);
      expect(await row.getByLabel('tokens delta').textContent(), `pair ${i}`).toBe(signed(want.tokens_delta[i], 'tok'));
      expect(await row.getByLabel('latency delta').textContent(), `pair ${i}`).toBe(signed(want.latency_delta[i], 'ms'));
      expect(await row.getByRole('link', { name: `a call ${ac}` }).count()).toBe(ac === null ? 0 : 1);
      expect(await row.getByRole('link', { name: `b call ${bc}` }).count()).toBe(bc === null ? 0 : 1);
    }
    // Without a pair in the link, the divergence is open: its requests are the shared history, ids aside.
    const open = page.getByRole('region', { name: `pair ${want.first_divergence.pair}` });
    await expect.poll(async () => (await open.getByLabel('shared history').textContent()) ?? '').toBe(
      `The two requests are the same but for ids and timestamps: ${want.shared_prefix_at_divergence} conversation items.`,
    );
    clean();
  });

  it('a pair opened from the link: the shared history folded to its length, and opened whole', async () => {
    const page = await visit(diffPath(A, B, '&pair=5'));
    const pair = page.getByRole('region', { name: 'pair 5' });
    const request = pair.getByRole('region', { name: 'request diff' });
    await request.getByLabel('shared history').waitFor();
    expect(await request.getByLabel('shared history').textContent()).toContain(`The first ${itemsBefore(3)} conversation items are the same in both requests`);
    const fold = request.getByRole('button', { name: new RegExp(`^${itemsBefore(3)} items unchanged`) });
    expect(await fold.textContent()).toBe(`${itemsBefore(3)} items unchanged (ids and timestamps aside) · a[0–${itemsBefore(3) - 1}] = b[0–${itemsBefore(3) - 1}]`);
    await fold.click();
    await expect.poll(() => fold.locator('xpath=..').getByText('Fix the failing test in quillpress/render.py.', { exact: false }).count()).toBe(1);
    // After the history: b's extra search is only in b, and the changed tool output is diffed by lines.
    expect(await request.getByText('only in b: b[10]').count()).toBe(1);
    expect(await request.getByRole('group', { name: 'line diff' }).first().textContent()).toContain('retry with q=errors');
    // The pair's calls link to their call pages.
    expect(await pair.getByRole('link', { name: 'a call #4' }).getAttribute('href')).toBe(`/runs/${DIFF_RUN}/rollouts/${A}/calls/a-call-4`);
    expect(await pair.getByRole('link', { name: 'b call #5' }).getAttribute('href')).toBe(`/runs/${DIFF_RUN}/rollouts/${B}/calls/b-call-5`);
    clean();
  });

  it('j and k move between pairs, and the URL follows', async () => {
    const page = await visit(diffPath(A, B, '&pair=2'));
    await page.getByRole('region', { name: 'pair 2' }).waitFor();
    await page.keyboard.press('j');
    await page.getByRole('region', { name: 'pair 3' }).waitFor();
    await expect.poll(() => new URL(page.url()).searchParams.get('pair')).toBe('3');
    await page.keyboard.press('k');
    await page.keyboard.press('k');
    await page.getByRole('region', { name: 'pair 1' }).waitFor();
    expect(await page.locator('[role=row][aria-selected=true]').getAttribute('data-pair')).toBe('1');
    clean();
  });

  it('a long diff opens scrolled to its divergence, far down the list', async () => {
    const page = await visit(diffPath(LONG.a, LONG.b));
    const marked = page.getByRole('row', { name: `pair ${LONG.divergeAt}, first divergence` });
    await marked.waitFor();
    await expect.poll(() => marked.evaluate(isInView)).toBe(true);
    expect(await page.locator('[role=row][data-pair="0"]').count()).toBe(0); // virtualized: the top is not drawn
    clean();
  });

  it('a run without capture: each rollout is its line\'s conversation, and the page says so', async () => {
    const page = await visit(`/diff?a=${UNCAPTURED_RUN}/0-0&b=${UNCAPTURED_RUN}/1-0`);
    expect(await page.getByText("A rollout without captured calls is diffed as its line's conversation", { exact: false }).count()).toBe(1);
    expect(await page.locator('[role=row][data-pair]').count()).toBe(1);
    clean();
  });
});

describe('reaching the diff', () => {
  it('"Diff with…" on a rollout page offers the task\'s best other rollout and opens the diff', async () => {
    const page = await visit(`/runs/${DIFF_RUN}/rollouts/${A}`);
    const form = page.getByRole('form', { name: 'diff with another rollout' });
    expect(await form.getByLabel('Diff with').inputValue()).toBe(`${DIFF_RUN}/${B}`); // reward 1: the best of task 0
    await form.getByRole('button', { name: 'Diff' }).click();
    await page.waitForURL(/\/diff\?/);
    await page.getByRole('row', { name: /first divergence/ }).waitFor();
    expect(new URL(page.url()).searchParams.get('a')).toBe(`${DIFF_RUN}/${A}`);
    expect(new URL(page.url()).searchParams.get('b')).toBe(`${DIFF_RUN}/${B}`);
    clean();
  });

  it('without rollouts, a form to pick two; a bad or unknown rollout is the not-found page', async () => {
    const page = await visit('/diff');
    expect(await page.getByRole('form', { name: 'pick two rollouts' }).count()).toBe(1);
    clean();
    const notFound = [/status of 404/];
    for (const p of [`/diff?a=${DIFF_RUN}/9-9&b=${DIFF_RUN}/${B}`, `/diff?a=nope/${A}&b=${DIFF_RUN}/${B}`, `/diff?a=${DIFF_RUN}&b=${DIFF_RUN}/${B}`, `/diff?a=..%2Fx%2Fy&b=${DIFF_RUN}/${B}`]) {
      const missing = await visit(p, 404);
      expect(await missing.getByText('Rollout not found').count(), p).toBe(1);
      expect(await missing.getByRole('form', { name: 'pick two rollouts' }).count(), p).toBe(1);
      clean(notFound);
    }
  });
});
