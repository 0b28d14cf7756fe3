// The rollout page's gaps panel says what the evidence says, in every case, over data shaped as NeMo Gym writes it
// (rollout lines in the shape of spec §8.4, capture lines in §2's key order): captured calls and no gaps; each capture
// gap; a line without a rollout id in a captured run; a run without a capture dir whose lines carry the attachment
// (with and without gaps); and one whose lines carry nothing. Each sentence is checked against the calls the page
// draws and the API's numbers, and the sentences that would be false are checked to be absent.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiJson, visit } from '../../support/browser';
import { closeSession, openSession, type Session } from '../../support/session';

const ref = (name: string) => ({ type: 'responses_api_models', name });

/** One capture line in NeMo Gym's key order (§2), compact as orjson writes it. */
function exchange(id: string, t0: number, tokensIn: number): string {
  const started = `${t0}.25`;
  return (
    `{"model_call_id":"${id}","dialect":"responses","model_ref":${JSON.stringify(ref('policy_model'))},"started_at":${started},` +
    `"completed_at":${t0 + 1}.5,"latency_ms":1250.0,"latency_ttft_ms":310.25,"status_code":200,"error_category":null,` +
    `"request":{"model":"gpt-4.1","input":[{"role":"user","content":"Solve 2+2."}]},` +
    `"response":{"id":"resp_${id.slice(0, 6)}","object":"response","created_at":${t0}.0,"model":"gpt-4.1","status":"completed",` +
    `"output":[{"id":"msg_1","type":"message","role":"assistant","status":"completed","content":[{"type":"output_text","text":"4","annotations":[]}]}],` +
    `"usage":{"input_tokens":${tokensIn},"input_tokens_details":{"cached_tokens":0},"output_tokens":3,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":${tokensIn + 3}}}}`
  );
}

/** A rollout line in the shape of spec §8.4 (key order included), with extra keys at the end. */
function rolloutLine(task: number, rollout: number, extra: Record<string, unknown> = {}): string {
  const base: Record<string, unknown> = {
    responses_create_params: { input: [{ role: 'user', content: `Task ${task}: solve it.` }] },
    response: { id: `resp_${task}_${rollout}`, model: 'gpt-4.1', status: 'completed', output: [], usage: { input_tokens: 22, input_tokens_details: { cached_tokens: 0 }, output_tokens: 3, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 25 } },
    reward: 1.0,
    expected_answer: '4',
    extracted_answer: '4',
    _ng_task_index: task,
    _ng_rollout_index: rollout,
    agent_ref: { name: 'math_simple_agent' },
    ...extra,
  };
  return JSON.stringify(base).replace('"reward":1', '"reward":1.0');
}

const hex = (n: number) => n.toString(16).padStart(32, '0');

function attachment(rolloutId: string, calls: number, gaps?: { code: string; detail?: string }[]) {
  const list = Array.from({ length: calls }, (_, k) => ({
    model_call_id: hex(1000 + k), response_id: `resp_${k}`, call_index: k, model_ref: ref('policy_model'), model: 'gpt-4.1', dialect: 'responses',
    status_code: 200, response_status: 'completed', finish_reason: null, started_at: 1786032153.5 + k, completed_at: 1786032154.5 + k,
    tokens_in: 22, tokens_out: 3, tokens_reasoning: 0, tokens_total: 25, tool_calls: [], reasoning_content: null, cache_hit: false,
    cached_tokens: 0, cache_creation_tokens: null, error_category: null, latency_total_ms: 1000.5, latency_ttft_ms: 300.5,
  }));
  return { rollout_id: rolloutId, metrics: { tokens_in: 22 * calls, tokens_out: 3 * calls, tokens_reasoning: 0, tokens_total: 25 * calls, cached_tokens: 0, latency_total_ms: 1000.5 * calls, num_calls: calls }, calls: list, ...(gaps ? { gaps } : {}) };
}

function prepare(dir: string): string[] {
  // A run with a capture dir, laid out as `gym eval run --output results/math_rollouts.jsonl ++model_call_capture_dir=results/model-calls`.
  const captured = path.join(dir, 'captured');
  const captures = path.join(captured, 'model-calls');
  mkdirSync(captures, { recursive: true });
  writeFileSync(path.join(captures, '0-0.capture.jsonl'), [exchange(hex(1), 1786032150, 20), exchange(hex(2), 1786032152, 40), exchange(hex(3), 1786032154, 60)].join('\n') + '\n');
  writeFileSync(path.join(captures, '0-2.capture.jsonl'), [exchange(hex(4), 1786032160, 20), '{"model_call_id":"torn', exchange(hex(5), 1786032162, 30)].join('\n') + '\n');
  writeFileSync(path.join(captures, '0-3.capture.jsonl'), exchange(hex(6), 1786032170, 20) + '\n');
  writeFileSync(path.join(captures, '0-3.capture.incomplete'), '');
  writeFileSync(
    path.join(captured, 'math_rollouts.jsonl'),
    [rolloutLine(0, 0), rolloutLine(0, 1), rolloutLine(0, 2), rolloutLine(0, 3), JSON.stringify({ responses_create_params: { input: 'no ids here' }, response: null, reward: 0.0 })].join('\n') + '\n',
  );
  // Runs without a capture dir: lines with the collector's attachment, and lines with nothing.
  const attached = path.join(dir, 'attached');
  mkdirSync(attached);
  writeFileSync(
    path.join(attached, 'attached_rollouts.jsonl'),
    [
      rolloutLine(0, 0, { ng_model_call_capture: attachment('0-0', 2) }),
      rolloutLine(0, 1, { ng_model_call_capture: attachment('0-1', 1, [{ code: 'model_call_capture_incomplete' }]) }),
    ].join('\n') + '\n',
  );
  const plain = path.join(dir, 'plain');
  mkdirSync(plain);
  writeFileSync(path.join(plain, 'plain_rollouts.jsonl'), rolloutLine(0, 0) + '\n');
  return [captured, attached, plain];
}

let session: Session;
let runs: { id: string; capture_dir: string | null }[];

beforeAll(async () => {
  session = await openSession('gap-panel', prepare);
  runs = (await apiJson<{ runs: typeof runs }>(session.served.url, '/api/runs')).runs;
}, 600_000);
afterAll(() => closeSession(session));

const runId = (prefix: string) => (prefix === 'captured' ? runs.find((r) => r.capture_dir?.endsWith('model-calls')) : runs.find((r) => r.id.startsWith(prefix)))!.id;
const panel = (page: Page) => page.getByRole('region', { name: /^Gaps \(\d+\)$/ });
const FALSE_NO_CAPTURE = /No capture evidence|no model calls were recorded|No capture to judge/;

async function open(run: string, rollout: string, title = rollout): Promise<{ page: Page; text: string; calls: number }> {
  const { t } = session;
  await visit(t, `/runs/${run}/rollouts/${encodeURIComponent(rollout)}`, async (page) => {
    await page.getByRole('heading', { level: 1, name: title }).waitFor();
    await panel(page).waitFor();
  });
  const detail = await apiJson<{ rollout: { num_calls: number } }>(session.served.url, `/api/runs/${run}/rollouts/${encodeURIComponent(rollout)}`);
  return { page: t.page, text: (await panel(t.page).textContent()) ?? '', calls: detail.rollout.num_calls };
}

describe('the gaps panel follows the evidence', () => {
  it('captured calls and no gaps: says they were captured, above a timeline of exactly those calls', async () => {
    const { page, text, calls } = await open(runId('captured'), '0-0');
    expect(calls).toBe(3);
    expect(text).toMatch(/^Gaps \(0\)No gaps: the capture dir holds 3 readable calls for this rollout, no damaged line and no \.capture\.incomplete marker/);
    expect(text).not.toMatch(FALSE_NO_CAPTURE);
    await page.getByRole('img', { name: /3 calls/ }).first().waitFor(); // the timeline draws the three calls it speaks of
  });

  it('each capture gap is named and explained with what it means for the numbers', async () => {
    const missing = await open(runId('captured'), '0-1');
    expect(missing.text).toContain('No calls captured');
    expect(missing.text).toContain('model_call_capture_no_records');
    expect(missing.text).toContain('Totals are unknown, not zero');
    const damaged = await open(runId('captured'), '0-2');
    expect(damaged.calls).toBe(2);
    expect(damaged.text).toMatch(/Damaged capture lines: 1 line\s*model_call_capture_records_unreadable\s*\(count=1\)/);
    expect(damaged.text).toContain('1 damaged line is excluded from the metrics.');
    const incomplete = await open(runId('captured'), '0-3');
    expect(incomplete.text).toContain('Capture incomplete');
    expect(incomplete.text).toContain('undercount');
    for (const r of [missing, damaged, incomplete]) expect(r.text).not.toMatch(/No gaps|No capture evidence/);
  });

  it('a line without a rollout id in a captured run: no capture evidence, and why', async () => {
    const { rollouts } = await apiJson<{ rollouts: { key: string; rollout_id: string | null; source: string }[] }>(session.served.url, `/api/runs/${runId('captured')}/rollouts?limit=50`);
    const idless = rollouts.find((r) => r.rollout_id === null)!;
    expect(idless.source).toBe('none');
    expect(rollouts.filter((r) => r.rollout_id !== null).every((r) => r.source === 'capture')).toBe(true);
    const { text, calls } = await open(runId('captured'), idless.key, idless.key.replace('-', ' '));
    expect(calls).toBe(0);
    expect(text).toContain('No capture evidence: this rollout line has no rollout id');
    expect(text).toContain('unknown, not zero');
  });

  it("an attachment and no capture dir: the line's calls, and the attachment's own gaps", async () => {
    const run = runId('attached');
    const clean = await open(run, '0-0');
    expect(clean.calls).toBe(2);
    expect(clean.text).toMatch(/No gaps in the rollout line's ng_model_call_capture: its 2 calls are what NeMo Gym's\s*collector attached/);
    expect(clean.text).not.toMatch(FALSE_NO_CAPTURE);
    const gapped = await open(run, '0-1');
    expect(gapped.text).toContain('Capture incomplete');
    const { rollouts } = await apiJson<{ rollouts: { source: string }[] }>(session.served.url, `/api/runs/${run}/rollouts`);
    expect(rollouts.map((r) => r.source)).toEqual(['attachment', 'attachment']);
  });

  it('no capture dir and no attachment: says nothing records the calls, never "no gaps"', async () => {
    const { text, calls } = await open(runId('plain'), '0-0');
    expect(calls).toBe(0);
    expect(text).toContain('No capture evidence: the rollout line has no ng_model_call_capture and the run was served without a capture dir');
    expect(text).not.toContain('No gaps');
  });
});
