// A call as the API serves it (GET .../calls/{call}) is the tolerant reader's record of its line, payloads included:
// field for field what `callscope calls --include-payloads` prints, for every call of the demo data and of corpora whose
// lines put their keys in NeMo Gym's order and in the other orders the spec allows (any subset, any order, §2, §3.6).
// Checked through the index, through `serve` (node:http) and through the Next route handler.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachmentCall } from '../../../lib/capture/attachment';
import { isJsonObject, keysOf, setKey, type JsonObject } from '../../../lib/capture/json-value';
import { parsePython } from '../../../lib/capture/json-parse';
import { serialize } from '../../../lib/capture/json-serialize';
import { readCaptureEvents } from '../../../lib/capture/store';
import { CallscopeIndex } from '../../../lib/index/callscope-index';
import { streamParts } from '../../../lib/index/queries/payload';
import { useDemo } from '../../support/demo';
import { startServe, type Served } from '../../support/server';

const fx = useDemo('callscope-call-record-');

/** NeMo Gym's key order (§2), then two others a producer may write: raw bodies first, and reversed. */
const NEMO_ORDER = ['model_call_id', 'dialect', 'model_ref', 'started_at', 'completed_at', 'latency_ms', 'latency_ttft_ms', 'status_code', 'error_category', 'request', 'response', 'request_raw', 'response_raw'];
const ORDERS: Record<string, (keys: string[]) => string[]> = {
  nemo: (keys) => [...NEMO_ORDER.filter((k) => keys.includes(k)), ...keys.filter((k) => !NEMO_ORDER.includes(k))],
  'raw-first': (keys) => [...keys.filter((k) => k.endsWith('_raw')), ...keys.filter((k) => !k.endsWith('_raw'))],
  reversed: (keys) => [...keys].reverse(),
};

/** Lines the demo does not write: a non-object request body, whole floats in tool arguments, escapes, a subset of keys. */
const EXTRA_LINES = [
  '{"model_call_id":"0123456789abcdef0123456789abcdef","dialect":"chat","model_ref":null,"started_at":1786057200.5,"completed_at":1786057201.25,"latency_ms":750.0,"latency_ttft_ms":null,"status_code":400,"error_category":"client_error","request":null,"response":{"error":{"message":"bad"}},"request_raw":"[1, 2.0, \\"\\u00e9\\"]\\n"}',
  '{"model_call_id":"11111111111111111111111111111111","dialect":"messages","model_ref":{"type":"responses_api_models","name":"policy_model"},"started_at":1786057202.0,"completed_at":1786057203.0,"latency_ms":1000.0,"latency_ttft_ms":10.5,"status_code":200,"error_category":null,"request":{"model":"claude","messages":[]},"response":{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"tool_use","id":"tu_1","name":"calc","input":{"x":1.0,"y":[2.50,1e16],"big":12345678901234567890}}],"stop_reason":"tool_use","usage":{"input_tokens":10,"output_tokens":5}},"response_raw":"event: message_start\\ndata: {\\"type\\": \\"message_start\\"}\\n\\n\\u2028 caf\\u00e9 \\ud83d\\ude00"}',
  '{"dialect":"responses","request":{"model":"m","input":"hi"},"response":{"id":"resp_1","output":[{"type":"function_call","call_id":"c1","name":"f","arguments":"{\\"a\\": 1.0}"}],"usage":{"input_tokens":3,"output_tokens":2,"total_tokens":5}},"latency_ms":5.0}',
];

function reorder(value: JsonObject, order: (keys: string[]) => string[]): JsonObject {
  const out: JsonObject = {};
  for (const k of order(keysOf(value))) setKey(out, k, value[k]);
  return out;
}

/** Copies every capture dir of the demo into `dest/<order>/<run>/captures`, lines rewritten in the given key order. */
function writeOrderedCorpus(demo: string, dest: string, order: (keys: string[]) => string[]): void {
  for (const run of readdirSync(demo)) {
    const src = path.join(demo, run, 'captures');
    let files: string[];
    try {
      files = readdirSync(src).filter((f) => f.endsWith('.capture.jsonl'));
    } catch {
      continue;
    }
    const out = path.join(dest, run, 'captures');
    mkdirSync(out, { recursive: true });
    for (const f of files) {
      const lines = readFileSync(path.join(src, f), 'utf8').split('\n').filter(Boolean);
      const text = lines.map((l) => {
        let v;
        try {
          v = parsePython(l);
        } catch {
          return l; // a damaged line stays damaged
        }
        return isJsonObject(v) ? serialize(reorder(v, order)) : l;
      });
      writeFileSync(path.join(out, f), text.join('\n') + '\n');
    }
  }
  const extra = path.join(dest, 'extra', 'captures');
  mkdirSync(extra, { recursive: true });
  writeFileSync(path.join(extra, 'x-0.capture.jsonl'), EXTRA_LINES.map((l) => serialize(reorder(parsePython(l) as JsonObject, order))).join('\n') + '\n');
}

/** What `callscope calls --include-payloads` prints for every call of every capture file under `root`, by run dir. */
async function expectedRecords(captureDir: string): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const f of readdirSync(captureDir).filter((n) => n.endsWith('.capture.jsonl'))) {
    const records: string[] = [];
    for await (const e of readCaptureEvents(path.join(captureDir, f))) if (e.kind === 'record') records.push(serialize(attachmentCall(e.record, true)));
    out.set(f.slice(0, -'.capture.jsonl'.length), records);
  }
  return out;
}

async function bodyText(parts: Parameters<typeof streamParts>[0]): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of streamParts(parts)) chunks.push(typeof c === 'string' ? Buffer.from(c) : c);
  return Buffer.concat(chunks).toString('utf8');
}

/** The served body, parsed losslessly and serialized again (so `1.0` stays `1.0` and key order counts). */
const canonical = (text: string) => serialize(parsePython(text));

describe.each(Object.keys(ORDERS))('calls with keys in %s order', (orderName) => {
  let root = '';
  let index: CallscopeIndex;
  beforeAll(async () => {
    root = path.join(fx.tmp, orderName);
    writeOrderedCorpus(fx.demo, root, ORDERS[orderName]);
    index = await CallscopeIndex.open([{ path: root }], path.join(fx.tmp, `idx-${orderName}`));
    await index.refresh();
  }, 120_000);
  afterAll(() => index?.close());

  it('every call record (payloads included) equals the tolerant reader\'s', async () => {
    let checked = 0;
    let raws = 0;
    for (const run of index.listRuns()) {
      const expected = await expectedRecords(run.capture_dir!);
      for (const [rolloutId, records] of expected) {
        const calls = index.rolloutCalls(run.id, rolloutId)!;
        expect(calls).toHaveLength(records.length);
        for (let k = 0; k < calls.length; k++) {
          const id = calls[k].model_call_id ?? `i${calls[k].call_index}`;
          const body = await index.callDetail(run.id, rolloutId, id);
          expect(body?.kind).toBe('parts');
          const served = canonical(await bodyText((body as { parts: Parameters<typeof streamParts>[0] }).parts));
          expect(served, `${run.id}/${rolloutId}/${id}`).toBe(records[k]);
          if (/"(request|response)_raw":"/.test(records[k])) raws++;
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(400);
    expect(raws).toBeGreaterThan(100); // the streamed calls, whose raw SSE text is what went missing
  });
});

describe('through serve and through the Next route', () => {
  let served: Served;
  let root = '';
  beforeAll(async () => {
    root = path.join(fx.tmp, 'served');
    writeOrderedCorpus(fx.demo, root, ORDERS.nemo);
    served = await startServe([root, '--index-dir', path.join(fx.tmp, 'idx-served')]);
  }, 600_000);
  afterAll(() => served?.stop());

  it('GET .../calls/{call} answers the tolerant reader\'s record for every call, on both transports', async () => {
    process.env.CALLSCOPE_PATHS = JSON.stringify([root]);
    process.env.CALLSCOPE_INDEX_DIR = path.join(fx.tmp, 'idx-next-route');
    const { GET } = await import('../../../app/api/runs/[run]/rollouts/[rollout]/calls/[call]/route');
    const { getInstance } = await import('../../../lib/server/instance');
    const instance = await getInstance();
    await instance.ready;
    const { runs } = (await (await fetch(`${served.url}/api/runs`)).json()) as { runs: { id: string; capture_dir: string }[] };
    let checked = 0;
    for (const run of runs) {
      for (const [rolloutId, records] of await expectedRecords(run.capture_dir)) {
        const cols = (await (await fetch(`${served.url}/api/runs/${run.id}/rollouts/${rolloutId}/calls?fields=model_call_id,call_index`)).json()) as { model_call_id: (string | null)[]; call_index: number[] };
        for (let k = 0; k < records.length; k++) {
          const id = cols.model_call_id[k] ?? `i${cols.call_index[k]}`;
          const res = await fetch(`${served.url}/api/runs/${run.id}/rollouts/${rolloutId}/calls/${id}`);
          expect(res.status).toBe(200);
          expect(canonical(await res.text()), `serve ${run.id}/${rolloutId}/${id}`).toBe(records[k]);
          // The Next route handler (what `next dev` serves) over its own index of the same files.
          if (k % 3 === 0) {
            const params = Promise.resolve({ run: run.id, rollout: rolloutId, call: id });
            const next = await GET(new Request('http://127.0.0.1/x') as never, { params });
            expect(next.status).toBe(200);
            expect(canonical(await next.text()), `next ${run.id}/${rolloutId}/${id}`).toBe(records[k]);
          }
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(400);
    await instance.watcher?.close();
    instance.index.close();
  }, 300_000);
});
