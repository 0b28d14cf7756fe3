// R8: an XSS corpus inside payloads, rendered in Chromium in every view. Capture lines are built the way the
// proxy builds them (buildExchange over request/response bytes, all three dialects, a streamed body, HTTP
// error bodies), and the rollouts file carries the corpus in its task fields, agent name, failure class and
// gaps. Every view must show the vectors as text: no script runs (window.__xss stays undefined), no dialog
// opens, no markup is injected, and no request leaves the server's origin.
import { mkdtempSync, promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildExchange, type ObservedCall } from '../../../lib/capture/exchange';
import type { JsonObject } from '../../../lib/capture/json-value';
import { serialize } from '../../../lib/capture/json-serialize';
import { serializeExchange } from '../../../lib/capture/store';
import { apiJson, CLEAN, launchBrowser, openPage, openView, problems, settle, type TrackedPage } from '../../support/browser';
import { reportFigure } from '../../support/reliability';
import { startServe, type Served } from '../../support/server';

const VECTORS = [
  '<script>window.__xss=1;alert(1)</script>',
  '<img src=x onerror="window.__xss=1;alert(1)">',
  '<a href="javascript:window.__xss=1">click me</a>',
  '[click me](javascript:window.__xss=1)',
  'javascript:window.__xss=1',
  '"><svg onload="window.__xss=1">',
  "'><svg/onload=window.__xss=1>",
  '</textarea><script>window.__xss=1</script>',
  '</script><script>window.__xss=1</script>',
  'line\u2028separator\u2029paragraph</script><script>window.__xss=1</script>',
  '<img src="http://example.invalid/x.png">',
  '![x](http://example.invalid/y)',
  '<iframe srcdoc="<script>parent.__xss=1</script>"></iframe>',
  '<link rel="stylesheet" href="http://example.invalid/s.css"><style>@import "http://example.invalid/i.css";</style>',
  '<base href="http://example.invalid/"><meta http-equiv="refresh" content="0;url=http://example.invalid/">',
  '{{constructor.constructor("window.__xss=1")()}}',
];
const ALL = VECTORS.join('\n');
const T0 = 1786000000;

const CHAT_TOOLS = VECTORS.map((v) => ({ type: 'function', function: { name: v, description: v, parameters: { type: 'object', properties: { [v]: { type: 'string', description: v } } } } }));
const CHAT_TOOL_CALLS = VECTORS.map((v, i) => ({ id: `call_${i}`, type: 'function', function: { name: v, arguments: JSON.stringify({ [v]: v }) } }));
const FIRST_MESSAGES = [
  { role: 'system', content: ALL },
  { role: 'user', content: ALL },
];

interface Call {
  id: string;
  dialect: ObservedCall['dialect'];
  server: string;
  request: unknown;
  response: string;
  status?: number;
  streaming?: boolean;
}

const json = (v: unknown) => JSON.stringify(v);

/** The calls of rollout 0-0: the corpus in every field a payload has, in each dialect, plus error bodies. */
function corpusCalls(): Call[] {
  const policy = `policy ${VECTORS[5]}`;
  const chatResponse = (content: string, toolCalls?: unknown) =>
    json({ id: 'chatcmpl-1', object: 'chat.completion', model: ALL, choices: [{ index: 0, finish_reason: toolCalls ? 'tool_calls' : 'stop', message: { role: 'assistant', content, reasoning_content: ALL, tool_calls: toolCalls } }], usage: { prompt_tokens: 100, completion_tokens: 50, total_tokens: 150 } });
  const sse = (chunks: unknown[]) => chunks.map((c) => `data: ${json(c)}\n\n`).join('') + 'data: [DONE]\n\n';
  return [
    { id: 'chat-tools', dialect: 'chat', server: policy, request: { model: ALL, messages: FIRST_MESSAGES, tools: CHAT_TOOLS }, response: chatResponse(ALL, CHAT_TOOL_CALLS) },
    {
      id: 'chat-followup',
      dialect: 'chat',
      server: policy,
      request: {
        model: ALL,
        messages: [...FIRST_MESSAGES, { role: 'assistant', content: ALL, tool_calls: CHAT_TOOL_CALLS }, ...VECTORS.map((v, i) => ({ role: 'tool', tool_call_id: `call_${i}`, name: v, content: v })), { role: 'user', content: ALL }],
        tools: CHAT_TOOLS,
      },
      response: chatResponse(ALL),
    },
    {
      id: 'responses',
      dialect: 'responses',
      server: `judge ${VECTORS[1]}`,
      request: {
        model: ALL,
        instructions: ALL,
        input: [
          { type: 'message', role: 'system', content: ALL },
          { type: 'message', role: 'user', content: [{ type: 'input_text', text: ALL }, { type: 'input_image', image_url: 'http://example.invalid/img.png' }] },
          { type: 'function_call', call_id: 'fc_0', name: VECTORS[0], arguments: json({ q: ALL }) },
          { type: 'function_call_output', call_id: 'fc_0', output: ALL },
        ],
        tools: VECTORS.map((v) => ({ type: 'function', name: v, description: v, parameters: { type: 'object', properties: {} } })),
      },
      response: json({
        id: 'resp_1',
        object: 'response',
        created_at: T0,
        model: ALL,
        status: 'completed',
        output: [
          { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: ALL }] },
          { type: 'function_call', id: 'fc_1', call_id: 'fc_1', name: VECTORS[2], arguments: json({ [VECTORS[3]]: ALL }), status: 'completed' },
          { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: ALL, annotations: [{ type: 'url_citation', url: 'javascript:window.__xss=1', title: ALL, start_index: 0, end_index: 1 }] }] },
        ],
        usage: { input_tokens: 100, input_tokens_details: { cached_tokens: 0 }, output_tokens: 50, output_tokens_details: { reasoning_tokens: 10 }, total_tokens: 150 },
      }),
    },
    {
      id: 'messages',
      dialect: 'messages',
      server: policy,
      request: {
        model: ALL,
        max_tokens: 100,
        system: [{ type: 'text', text: ALL }],
        messages: [
          { role: 'user', content: ALL },
          { role: 'assistant', content: [{ type: 'thinking', thinking: ALL, signature: 'sig' }, { type: 'tool_use', id: 'toolu_1', name: VECTORS[6], input: { [VECTORS[0]]: ALL } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: ALL, is_error: true }, { type: 'image', source: { type: 'url', url: 'http://example.invalid/i.png' } }] },
        ],
        tools: VECTORS.map((v) => ({ name: v, description: v, input_schema: { type: 'object' } })),
      },
      response: json({ id: 'msg_1', type: 'message', role: 'assistant', model: ALL, content: [{ type: 'thinking', thinking: ALL, signature: 's' }, { type: 'text', text: ALL }], stop_reason: 'end_turn', usage: { input_tokens: 100, output_tokens: 50 } }),
    },
    {
      id: 'streamed',
      dialect: 'chat',
      server: policy,
      streaming: true,
      request: { model: ALL, stream: true, messages: [{ role: 'user', content: ALL }] },
      response: sse([
        { id: 'c1', object: 'chat.completion.chunk', model: ALL, choices: [{ index: 0, delta: { role: 'assistant', content: ALL } }] },
        { id: 'c1', object: 'chat.completion.chunk', model: ALL, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
      ]),
    },
    { id: 'error-html', dialect: 'chat', server: policy, status: 502, request: { model: ALL, messages: [{ role: 'user', content: ALL }] }, response: `<html><body><h1>Bad gateway</h1>${ALL}</body></html>` },
    { id: 'error-json', dialect: 'chat', server: policy, status: 400, request: { model: ALL, messages: [{ role: 'user', content: ALL }] }, response: json({ error: { message: ALL, type: VECTORS[0], param: VECTORS[1], code: VECTORS[2] } }) },
    // One small call per vector whose model server and model are that vector (badges, legends, filters, compare).
    ...VECTORS.map((v, i): Call => ({ id: `server-${i}`, dialect: 'chat', server: `srv ${v}`, request: { model: v, messages: [{ role: 'user', content: v }] }, response: json({ id: `c${i}`, object: 'chat.completion', model: v, choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: v } }] }) })),
  ];
}

function exchangeLine(c: Call, k: number): Buffer {
  const enc = new TextEncoder();
  return serializeExchange(
    buildExchange({
      modelCallId: c.id,
      dialect: c.dialect,
      modelServerName: c.server,
      startedAt: T0 + k,
      completedAt: T0 + k + 0.5,
      latencyMs: 500,
      ttftMs: c.streaming ? 100 : null,
      statusCode: c.status ?? 200,
      requestBody: enc.encode(json(c.request)),
      responseBody: enc.encode(c.response),
      streaming: c.streaming ?? false,
      terminal: c.streaming ? 'complete' : null,
    }),
  );
}

const rolloutLine = (o: JsonObject) => serialize(o) + '\n';

/** Writes run `xss` (rollouts file, failures file, capture dir) and run `xss-b` (capture dir only). */
async function writeCorpus(root: string): Promise<number> {
  const calls = corpusCalls();
  const run = path.join(root, 'xss');
  await fsp.mkdir(path.join(run, 'captures'), { recursive: true });
  await fsp.writeFile(path.join(run, 'captures', '0-0.capture.jsonl'), Buffer.concat(calls.map(exchangeLine)));
  const task = { question: ALL, expected_answer: ALL };
  await fsp.writeFile(
    path.join(run, 'rollouts.jsonl'),
    rolloutLine({ ...task, reward: 1.0, _ng_task_index: 0, _ng_rollout_index: 0, agent_ref: { name: `agent ${VECTORS[1]}` } }) +
      rolloutLine({
        ...task,
        reward: 0.0,
        _ng_task_index: 0,
        _ng_rollout_index: 1,
        agent_ref: { name: VECTORS[0] },
        ng_model_call_capture: { rollout_id: '0-1', metrics: { num_calls: 0 }, calls: [], gaps: VECTORS.map((v, i) => ({ code: i % 2 ? v : 'model_call_capture_no_records', detail: v })) },
      }),
  );
  await fsp.writeFile(path.join(run, 'rollouts_failures.jsonl'), rolloutLine({ ...task, reward: 0.0, _ng_task_index: 0, _ng_rollout_index: 0, _ng_attempt_index: 1, _ng_failure_class: VECTORS[7], agent_ref: { name: VECTORS[8] } }));
  const other = path.join(root, 'xss-b', 'captures');
  await fsp.mkdir(other, { recursive: true });
  await fsp.writeFile(path.join(other, 'session-1.capture.jsonl'), Buffer.concat(calls.slice(0, 4).map(exchangeLine)));
  return calls.length;
}

interface Verdict {
  xss: unknown;
  injected: string[];
  present: number;
}

/** What the page holds: the flag, injected markup, and how many vectors are in its text. */
async function inspect(page: Page): Promise<Verdict> {
  return page.evaluate((vectors) => {
    const w = window as unknown as { __xss?: unknown };
    const injected: string[] = [];
    for (const el of document.querySelectorAll('*')) {
      for (const a of el.attributes) {
        if (/^on/i.test(a.name)) injected.push(`${el.tagName} ${a.name}`);
        if (/^\s*javascript:/i.test(a.value) && /^(href|src|action|formaction|xlink:href|srcdoc)$/i.test(a.name)) injected.push(`${el.tagName} ${a.name}=${a.value}`);
      }
    }
    for (const el of document.querySelectorAll('iframe, object, embed, base, meta[http-equiv], link[rel=stylesheet][href^="http://example"], style:not([data-precedence])')) {
      if (el.tagName === 'STYLE' && !el.textContent?.includes('example.invalid')) continue;
      injected.push(el.outerHTML.slice(0, 120));
    }
    for (const img of document.images) if (img.src && new URL(img.src).origin !== location.origin && !img.src.startsWith('data:')) injected.push(`IMG ${img.src}`);
    const text = document.body.textContent ?? '';
    // As text, or as JSON string content (the raw line escapes quotes).
    const present = vectors.filter((v) => text.includes(v) || text.includes(JSON.stringify(v).slice(1, -1))).length;
    return { xss: w.__xss, injected, present };
  }, VECTORS);
}

let dir: string;
let served: Served;
let browser: Browser;
let t: TrackedPage;
let callCount: number;
const views: { view: string; present: number }[] = [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'callscope-xss-'));
  callCount = await writeCorpus(path.join(dir, 'runs'));
  [served, browser] = await Promise.all([startServe([path.join(dir, 'runs'), '--index-dir', path.join(dir, 'idx')]), launchBrowser()]);
  t = await openPage(browser, served.url);
});

afterAll(async () => {
  if (views.length) {
    const present = views.reduce((n, v) => n + v.present, 0);
    reportFigure('R8', `${VECTORS.length} vectors × ${views.length} views = ${VECTORS.length * views.length} renderings in Chromium (${present} with the vector's text on screen), 0 executions, 0 outbound requests`, { renderings: VECTORS.length * views.length, executions: 0, outbound: 0 });
  }
  await t?.close();
  await browser?.close();
  await served?.stop();
  if (dir) await fsp.rm(dir, { recursive: true, force: true });
});

/** Asserts the page after a view: nothing ran, nothing was injected, nothing left the origin. */
async function check(view: string): Promise<Verdict> {
  await settle(t.page, 250);
  const verdict = await inspect(t.page);
  expect.soft({ view, xss: verdict.xss, injected: verdict.injected, ...problems(t) }).toEqual({ view, xss: undefined, injected: [], ...CLEAN });
  views.push({ view, present: verdict.present });
  t.reset();
  return verdict;
}

async function open(p: string, ready: (page: Page) => Promise<unknown>): Promise<Verdict> {
  await openView(t, p, ready);
  return check(p);
}

describe('R8: XSS corpus inside payloads', () => {
  it('the corpus was indexed as written', async () => {
    const { runs } = await apiJson<{ runs: { id: string; totals: { calls: number; model_servers: string[] } }[] }>(served.url, '/api/runs');
    const xss = runs.find((r) => r.id === 'xss')!;
    expect(xss.totals.calls).toBe(callCount);
    expect(xss.totals.model_servers).toEqual(expect.arrayContaining(VECTORS.map((v) => `srv ${v}`)));
    expect(runs.find((r) => r.id === 'xss-b')?.totals.calls).toBe(4);
  });

  it('the checks catch the corpus when it is injected as markup (so each view check can fail)', async () => {
    await t.goto('/');
    await t.page.getByRole('heading', { level: 1, name: 'Runs' }).waitFor();
    t.reset();
    // (Without the meta refresh: injected, it would navigate this page away.)
    await t.page.evaluate((html) => document.body.insertAdjacentHTML('beforeend', `<div>${html}</div>`), VECTORS.map((v) => v.replace(/<meta[^>]*>/, '')).join('\n'));
    await settle(t.page, 500);
    const verdict = await inspect(t.page);
    // The page's CSP runs no script without the response's nonce: every injected handler and script is blocked,
    // and each block is a CSP violation (which fails a view's check as the injected markup does).
    expect(verdict.xss).toBeUndefined();
    expect(t.cspViolations.filter((v) => v.startsWith('script-src-attr blocked inline')).length).toBeGreaterThan(0);
    expect(verdict.injected.length).toBeGreaterThan(0);
    expect([...t.cspViolations, ...t.foreign].some((v) => v.includes('example.invalid'))).toBe(true);
    // A script that does run (here: one given the page's nonce) is caught by the execution and dialog checks.
    t.reset();
    await t.page.evaluate(() => {
      const s = document.createElement('script');
      s.nonce = [...document.scripts].find((x) => x.nonce)!.nonce;
      s.textContent = 'window.__xss=1;alert(1)';
      document.body.append(s);
    });
    await settle(t.page, 250);
    expect((await inspect(t.page)).xss).toBe(1);
    expect(t.dialogs.length).toBeGreaterThan(0);
    t.reset();
  }, 60_000);

  it('runs, rollouts, rollout pages and compare', async () => {
    const h1 = (page: Page) => page.getByRole('heading', { level: 1 }).first().waitFor();
    const runs = await open('/', (page) => page.getByRole('row', { name: 'run xss', exact: true }).waitFor());
    expect(runs.present).toBe(VECTORS.length); // every model server name, as text
    const table = await open('/runs/xss', (page) => page.getByRole('table').getByRole('link').first().waitFor());
    expect(table.present).toBe(VECTORS.length);
    const { rollouts } = await apiJson<{ rollouts: { key: string }[] }>(served.url, '/api/runs/xss/rollouts?limit=10');
    expect(rollouts.length).toBe(3);
    for (const r of rollouts) await open(`/runs/xss/rollouts/${encodeURIComponent(r.key)}`, h1);
    const withCalls = views.find((v) => v.view === '/runs/xss/rollouts/0-0')!;
    expect(withCalls.present).toBe(VECTORS.length); // the task text
    // The rollout's own line as a tree, opened by a link to a node in it (the task's vectors, and the agent name).
    const line = await open('/runs/xss/rollouts/0-0#/line/question', (page) => page.locator('[data-pointer="/line/question"]').waitFor());
    expect(line.present).toBe(VECTORS.length);
    await open('/runs/xss-b', h1);
    await open('/compare?runs=xss,xss-b', (page) => page.getByRole('img', { name: /^Reward against tokens per rollout/ }).waitFor());
  }, 120_000);

  it('every call on every tab, and a link to a vector inside the payload', async () => {
    const { capture } = await apiJson<{ capture: { calls: { model_call_id: string; call_index: number }[] } }>(served.url, '/api/runs/xss/rollouts/0-0');
    const main = capture.calls.filter((c) => !c.model_call_id.startsWith('server-'));
    expect(main.length).toBe(7);
    for (const c of main) {
      const base = `/runs/xss/rollouts/0-0/calls/${c.model_call_id}`;
      const conversation = await open(base, (page) => page.getByRole('tabpanel').getByText(/loaded in \d+ ms/).waitFor());
      if (['chat-tools', 'chat-followup', 'responses', 'messages'].includes(c.model_call_id)) expect(conversation.present, base).toBe(VECTORS.length);
      for (const [tab, ready] of [
        ['Request', (page: Page) => page.getByRole('tree', { name: 'request' }).waitFor()],
        ['Response', (page: Page) => page.getByRole('tree', { name: 'normalized record' }).waitFor()],
        ['Raw line', (page: Page) => page.getByText(/as stored in the capture file/).waitFor()],
        ['Delta', (page: Page) => page.getByText(/Compared with|first call of its model server/).waitFor()],
      ] as const) {
        await t.page.getByRole('tab', { name: tab }).click();
        await t.page.getByRole('tab', { name: tab, selected: true }).waitFor();
        await ready(t.page);
        const verdict = await check(`${base} ${tab}`);
        if (tab === 'Raw line') expect(verdict.present, `${base} raw`).toBe(VECTORS.length);
      }
      if (c.model_call_id === 'chat-tools') {
        // The indented raw line renders the same text again, through JSON.parse and JSON.stringify.
        await t.page.getByRole('tab', { name: 'Raw line' }).click();
        await t.page.getByRole('checkbox', { name: /indent/ }).check();
        await check(`${base} Raw line indented`);
      }
    }
    const deep = await open('/runs/xss/rollouts/0-0/calls/chat-tools#/request/messages/1/content', (page) => page.locator('[data-pointer="/request/messages/1/content"]').waitFor());
    expect(deep.present).toBe(VECTORS.length);
  }, 150_000);
});
