// `callscope serve --upstream`: the same server captures calls at /ng-rollout/<id>/v1/... into the first capture
// dir, and the captured call shows up in the API like any other.
import { mkdirSync, mkdtempSync, promises as fsp, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatJson, MockUpstream } from '../support/mock-upstream';
import { startServe, type Served } from '../support/server';

let tmp: string;
let upstream: MockUpstream;
let served: Served;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'callscope-upstream-'));
  mkdirSync(path.join(tmp, 'runs', 'live', 'captures'), { recursive: true });
  upstream = new MockUpstream();
  upstream.fallback = { status: 200, headers: [['content-type', 'application/json']], chunks: [chatJson()] };
  await upstream.start();
  served = await startServe([path.join(tmp, 'runs', 'live', 'captures'), '--upstream', upstream.url, '--index-dir', path.join(tmp, 'idx')]);
});

afterAll(async () => {
  await served?.stop();
  await upstream?.close();
  await fsp.rm(tmp, { recursive: true, force: true });
});

describe('serve --upstream', () => {
  it('forwards a prefixed call unchanged, captures it, and the API shows it', async () => {
    const res = await fetch(`${served.url}/ng-rollout/up-1/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-secret' },
      body: JSON.stringify({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(chatJson());
    const file = path.join(tmp, 'runs', 'live', 'captures', 'up-1.capture.jsonl');
    const line = JSON.parse(readFileSync(file, 'utf8').trim());
    expect([line.dialect, line.status_code, line.error_category, line.request.model]).toEqual(['chat', 200, null, 'gpt-4.1']);
    expect(readFileSync(file, 'utf8')).not.toContain('sk-secret');
    let rows: { key: string; num_calls: number }[] = [];
    for (let i = 0; i < 100 && !rows.some((r) => r.key === 'up-1'); i++) {
      rows = ((await (await fetch(`${served.url}/api/runs/live/rollouts`)).json()) as { rollouts?: typeof rows }).rollouts ?? []; // 404 until the new run is discovered
      if (!rows.some((r) => r.key === 'up-1')) await new Promise((r) => setTimeout(r, 100));
    }
    expect(rows).toEqual([expect.objectContaining({ key: 'up-1', num_calls: 1 })]);
  });
});
