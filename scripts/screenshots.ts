// `npm run screenshots`: serves a fresh demo data set and saves a 1440x900 PNG of each page into
// docs/screenshots/ (runs, rollouts, rollout, one call on each of its tabs, compare, a run's tasks, and the rollout page in
// dark mode). Times are shown in UTC so the images do not depend on the machine's time zone. Fails, without
// writing a partial set, if a page logs an error.
//
//   npm run screenshots                  # into docs/screenshots
//   npm run screenshots -- --out DIR
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Page } from 'playwright-core';
import { apiJson, CLEAN, launchBrowser, openPage, problems, settle, type TrackedPage } from '../tests/support/browser';
import { ROOT, startServe } from '../tests/support/server';

const { values } = parseArgs({ options: { out: { type: 'string', default: path.join(ROOT, 'docs', 'screenshots') } } });
const OUT = path.resolve(values.out!);
const VIEWPORT = { width: 1440, height: 900 };
// A rollout with two model servers, tool calls, reasoning and an error: the timeline and charts have content.
const RUN = 'workplace-assistant';
const ROLLOUT = '5-0';
const COMPARED = ['math-with-judge', 'swe-claude-code', 'workplace-assistant'];
const UNCAPTURED = 'hermes_agent_math';

interface CallInfo {
  model_call_id: string | null;
  call_index: number;
  model_ref: { name: string } | null;
  tool_calls: unknown[] | null;
  reasoning_content: string | null;
}

const live = (page: Page) => page.getByRole('status').filter({ hasText: /^Live$/ }).first().waitFor();
const loaded = (page: Page) => page.getByRole('tabpanel').getByText(/loaded in \d+ ms/).waitFor();

async function main(): Promise<void> {
  const work = mkdtempSync(path.join(os.tmpdir(), 'callscope-shots-'));
  const gen = spawnSync(process.execPath, ['bin/callscope.js', 'demo', '--out', path.join(work, 'runs')], { cwd: ROOT, encoding: 'utf8' });
  if (gen.status !== 0) throw new Error(`demo failed: ${gen.stderr}`);
  // A run collected without capture, as NeMo Gym's own example files are (our NeMo Gym-shaped fixture).
  mkdirSync(path.join(work, 'nemo-gym'));
  copyFileSync(path.join(ROOT, 'tests', 'fixtures', 'nemo-gym', 'hermes_agent_math.jsonl'), path.join(work, 'nemo-gym', `${UNCAPTURED}.jsonl`));
  const served = await startServe([path.join(work, 'runs'), path.join(work, 'nemo-gym'), '--index-dir', path.join(work, 'idx')]);
  const browser = await launchBrowser();
  const shots: { name: string; png: Buffer; url: string }[] = [];
  try {
    const { capture } = await apiJson<{ capture: { calls: CallInfo[] } }>(served.url, `/api/runs/${RUN}/rollouts/${ROLLOUT}`);
    // A call worth showing: it calls tools and reasons, and an earlier call of its server gives the delta tab content.
    const call =
      capture.calls.find((c, i) => i > 0 && c.tool_calls?.length && c.reasoning_content && capture.calls.slice(0, i).some((p) => p.model_ref?.name === c.model_ref?.name)) ?? capture.calls[1];
    const callPath = `/runs/${RUN}/rollouts/${ROLLOUT}/calls/${call.model_call_id ?? `i${call.call_index}`}`;
    const views: { name: string; path: string; ready: (page: Page) => Promise<unknown>; dark?: boolean }[] = [
      { name: 'runs', path: '/', ready: live },
      { name: 'rollouts', path: `/runs/${RUN}`, ready: live },
      { name: 'rollout', path: `/runs/${RUN}/rollouts/${ROLLOUT}`, ready: (page) => page.getByRole('table', { name: 'calls' }).getByRole('row').nth(1).waitFor() },
      ...(['conversation', 'request', 'response', 'raw', 'delta'] as const).map((tab) => ({
        name: `call-${tab}`,
        path: `${callPath}?tab=${tab}`,
        ready: (page: Page) => (tab === 'raw' ? page.getByText(/as stored in the capture file/).waitFor() : loaded(page)),
      })),
      { name: 'compare', path: `/compare?runs=${COMPARED.join(',')}`, ready: (page) => page.getByRole('img', { name: /^Reward against tokens per rollout/ }).waitFor() },
      { name: 'tasks', path: '/runs/math-with-judge/tasks?open=0', ready: (page) => page.getByRole('table', { name: 'Rollouts of task 0' }).waitFor() },
      { name: 'uncaptured-rollouts', path: `/runs/${UNCAPTURED}`, ready: live },
      { name: 'uncaptured-rollout', path: `/runs/${UNCAPTURED}/rollouts/0-0`, ready: (page) => page.getByRole('region', { name: 'Conversation' }).getByText(/messages/).first().waitFor() },
      { name: 'rollout-dark', path: `/runs/${RUN}/rollouts/${ROLLOUT}`, dark: true, ready: (page) => page.getByRole('table', { name: 'calls' }).getByRole('row').nth(1).waitFor() },
    ];
    for (const view of views) {
      const t: TrackedPage = await openPage(browser, served.url, { viewport: VIEWPORT, colorScheme: view.dark ? 'dark' : 'light' });
      try {
        const res = await t.goto(view.path);
        if (res.status() !== 200) throw new Error(`${view.path}: ${res.status()}`);
        await view.ready(t.page);
        await settle(t.page, 600); // canvases draw in a task after the commit
        const found = problems(t);
        if (JSON.stringify(found) !== JSON.stringify(CLEAN)) throw new Error(`${view.path}: ${JSON.stringify(found)}`);
        shots.push({ name: view.name, url: view.path, png: await t.page.screenshot({ type: 'png', fullPage: /(^|-)rollout$|rollout-dark/.test(view.name) }) });
        console.log(`  ${view.name.padEnd(18)} ${view.path}`);
      } finally {
        await t.close();
      }
    }
  } finally {
    await browser.close();
    await served.stop();
    rmSync(work, { recursive: true, force: true });
  }
  mkdirSync(OUT, { recursive: true });
  for (const s of shots) writeFileSync(path.join(OUT, `${s.name}.png`), s.png);
  console.log(`wrote ${shots.length} screenshots (${VIEWPORT.width}x${VIEWPORT.height}) to ${path.relative(process.cwd(), OUT) || '.'}`);
}

main().catch((err: Error) => {
  console.error(`screenshots: ${err.message}`);
  process.exit(1);
});
