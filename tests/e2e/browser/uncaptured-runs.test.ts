// Runs collected without capture, as NeMo Gym's own example files are (here: our NeMo Gym-shaped fixtures): what the
// rollouts table and the rollout page SAY is checked against the lines themselves, read with JSON.parse: the prompt
// (the first user message), the expected and extracted answers, the outcome fields, the conversation, and calls and
// errors as unknown (never 0).
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiJson, visit } from '../../support/browser';
import { FIXTURES } from '../../support/nemo-gym-data';
import { closeSession, openSession, type Session } from '../../support/session';

type Line = Record<string, unknown> & { responses_create_params: { input: unknown }; response: { output?: unknown[] } | null };

const lines = (file: string): Line[] => readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Line);

/** The first user message's text, as a reader of the line would find it. */
function firstUserText(line: Line): string {
  const input = line.responses_create_params.input;
  if (typeof input === 'string') return input;
  const item = (input as { role?: string; content: unknown }[]).find((m) => m.role === 'user')!;
  return typeof item.content === 'string' ? item.content : (item.content as { text?: string }[]).map((p) => p.text ?? '').filter(Boolean).join('\n');
}

let session: Session;

beforeAll(async () => {
  session = await openSession('uncaptured', (dir) => {
    const results = path.join(dir, 'results');
    mkdirSync(results);
    for (const f of ['string_match.jsonl', 'hermes_agent_math.jsonl', 'anyswe_claude_code.jsonl', 'browsecomp.jsonl']) copyFileSync(path.join(FIXTURES.dir, f), path.join(results, f));
    return [results];
  });
}, 600_000);
afterAll(() => closeSession(session));

describe('a run collected without capture', () => {
  it('the rollouts table shows each rollout\'s prompt and answers, and its calls as unknown', async () => {
    const expected = lines(path.join(FIXTURES.dir, 'string_match.jsonl'));
    const { rollouts } = await apiJson<{ rollouts: { key: string; source: string; prompt: string | null; expected_answer: string | null; num_calls: number }[] }>(session.served.url, '/api/runs/string_match/rollouts?limit=500');
    expect(rollouts).toHaveLength(expected.length);
    expect(rollouts.every((r) => r.source === 'none')).toBe(true);
    const page = await visit(session.t, '/runs/string_match', (p) => p.getByRole('heading', { level: 1, name: 'string_match' }).waitFor());
    const first = expected.find((l) => l._ng_task_index === 0 && l._ng_rollout_index === 0)!;
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: '0-0', exact: true }) });
    await row.waitFor();
    const text = (await row.textContent()) ?? '';
    expect(text).toContain(firstUserText(first).slice(0, 40));
    expect(text).toContain(String(first.expected_answer));
    expect(text).toContain(String(first.extracted_answer));
    expect(text).toContain('unknown'); // calls and errors: nothing recorded them
    // The run's own header says the same of the run: its calls and errors are unknown, not 0.
    const header = (await page.locator('header dl').first().textContent()) ?? '';
    expect(header).toMatch(/Callsunknown/);
    expect(header).toMatch(/Errorsunknown/);
    expect(text).not.toMatch(/unknown.*\b0\b.*unknown/);
  });

  it('search finds a rollout by a word of its prompt', async () => {
    const target = lines(path.join(FIXTURES.dir, 'string_match.jsonl'))[3];
    const words = firstUserText(target).split(/\s+/).filter((w) => /^[a-z]{6,}$/i.test(w));
    const { rollouts } = await apiJson<{ rollouts: { key: string }[] }>(session.served.url, `/api/runs/string_match/rollouts?q=${encodeURIComponent(words[0])}`);
    expect(rollouts.map((r) => r.key)).toContain(`${target._ng_task_index}-${target._ng_rollout_index}`);
  });

  it("the rollouts page's search box: typing settles into the URL's query and narrows the table to the matching rollout", async () => {
    const all = lines(path.join(FIXTURES.dir, 'browsecomp.jsonl'));
    const target = all[2];
    const word = String(target.ground_truth).split(' ')[0];
    expect(all.filter((l) => JSON.stringify(l).includes(word))).toHaveLength(1);
    const page = await visit(session.t, '/runs/browsecomp', (p) => p.getByRole('status').filter({ hasText: /^Live$/ }).first().waitFor());
    const links = page.locator('tbody').getByRole('link', { name: /^\d+-\d+$/ });
    await expect.poll(() => links.count()).toBe(all.length);
    await page.getByRole('searchbox', { name: 'Search' }).fill(`  ${word} `);
    await page.waitForURL((u) => u.searchParams.get('q') === word);
    await expect.poll(() => links.allTextContents()).toEqual([`${target._ng_task_index}-${target._ng_rollout_index}`]);
    expect(await page.getByRole('searchbox', { name: 'Search' }).inputValue()).toBe(`  ${word} `); // the box keeps what was typed
  });

  it('the rollout page: the conversation first, the prompt, the answers and the outcome, calls and errors unknown', async () => {
    const line = lines(path.join(FIXTURES.dir, 'hermes_agent_math.jsonl'))[0];
    const key = `${line._ng_task_index}-${line._ng_rollout_index}`;
    const page = await visit(session.t, `/runs/hermes_agent_math/rollouts/${key}`, (p) => p.getByRole('heading', { level: 1, name: key }).waitFor());
    const conversation = page.getByRole('region', { name: 'Conversation' });
    await conversation.getByText(firstUserText(line).slice(0, 60), { exact: false }).first().waitFor();
    const finalText = JSON.stringify(line.response?.output ?? []);
    const said = /"text":\s*"((?:[^"\\]|\\.){20,})"/.exec(finalText);
    if (said) await conversation.getByText(JSON.parse(`"${said[1]}"`).slice(0, 30), { exact: false }).first().waitFor();
    // The conversation comes before the gaps panel and the calls.
    const order = await page.evaluate(() => [...document.querySelectorAll('section[aria-label]')].map((s) => s.getAttribute('aria-label')));
    expect(order.indexOf('Conversation')).toBeLessThan(order.findIndex((l) => l?.startsWith('Gaps')));
    const evidence = page.getByRole('definition').filter({ hasText: 'expected' });
    await expect.poll(async () => (await evidence.first().textContent()) ?? '').toContain(`expected ${line.expected_answer} · extracted ${line.extracted_answer}`);
    const outcome = (await page.getByLabel('reward evidence').textContent()) ?? '';
    expect(outcome).toContain(line.finished_naturally ? 'finished naturally' : 'not finished naturally');
    expect(outcome).toContain(`turns used: ${line.turns_used}`);
    const stats = (await page.locator('dl').first().textContent()) ?? '';
    expect(stats).toMatch(/Callsunknown/);
    expect(stats).toMatch(/Errorsunknown/);
  });

  it("a judge-graded search agent (browsecomp): the question as the prompt, ground_truth and the judge's extracted_final_answer as the answers", async () => {
    const all = lines(path.join(FIXTURES.dir, 'browsecomp.jsonl'));
    const line = all.find((l) => l.reward === 0 && l.extracted_final_answer !== 'None')!;
    const key = `${line._ng_task_index}-${line._ng_rollout_index}`;
    const table = await visit(session.t, '/runs/browsecomp', (p) => p.getByRole('heading', { level: 1, name: 'browsecomp' }).waitFor());
    const row = table.getByRole('row').filter({ has: table.getByRole('link', { name: key, exact: true }) });
    await row.waitFor();
    const text = (await row.textContent()) ?? '';
    expect(text).toContain(String(line.question).slice(0, 40));
    expect(text).toContain(String(line.ground_truth));
    expect(text).toContain(String(line.extracted_final_answer));
    const page = await visit(session.t, `/runs/browsecomp/rollouts/${key}`, (p) => p.getByRole('heading', { level: 1, name: key }).waitFor());
    const evidence = page.getByLabel('reward evidence');
    await expect.poll(async () => (await evidence.textContent()) ?? '').toContain(`expected ${line.ground_truth} · extracted ${line.extracted_final_answer}`);
    const said = (await evidence.textContent()) ?? '';
    expect(said).toContain(`Prompt${String(line.question).slice(0, 80)}`);
    expect(said).toContain(`num tool calls: ${line.num_tool_calls}`);
    // The conversation: the question, the searches, and the final answer.
    const conversation = page.getByRole('region', { name: 'Conversation' });
    await conversation.getByText(String(line.question).slice(0, 60), { exact: false }).first().waitFor();
    const output = line.response!.output as { type: string; name?: string; content?: { text: string }[] }[];
    expect(output.some((o) => o.type === 'function_call' && o.name === 'search')).toBe(true);
    const answer = /Exact Answer: [^\n]+/.exec(output[output.length - 1].content![0].text)![0];
    await conversation.getByText(answer, { exact: false }).first().waitFor();
  });

  it('a coding agent\'s outcome: resolved or not, timeouts, error kinds', async () => {
    const line = lines(path.join(FIXTURES.dir, 'anyswe_claude_code.jsonl'))[0];
    const key = `${line._ng_task_index}-${line._ng_rollout_index}`;
    const page = await visit(session.t, `/runs/anyswe_claude_code/rollouts/${key}`, (p) => p.getByRole('heading', { level: 1, name: key }).waitFor());
    const outcome = (await page.getByLabel('reward evidence').textContent()) ?? '';
    expect(outcome).toContain(line.resolved ? 'resolved' : 'not resolved');
    if (line.agent_timed_out) expect(outcome).toContain('agent timed out');
    else expect(outcome).not.toContain('agent timed out');
    if (typeof line.agent_error_kind === 'string') expect(outcome).toContain(`agent error kind: ${line.agent_error_kind}`);
  });
});
