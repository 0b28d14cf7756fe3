// The index's fast capture-line scans against the lossless scan (scanStrict + deriveRecord): the JavaScript
// one (JSON.parse on the kept parts, scanExchangeFast) and the native one (native/scan.cc, nativeCallValues).
// On every line, realistic or adversarial, valid or not, the outcome and the indexed row must be identical
// (the native scan answers with a row or declines). Also checks that both do answer for ordinary lines.
import { isUtf8 } from 'node:buffer';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECORD_FIELDS } from '../../../../lib/capture/record';
import { scanExchangeFast } from '../../../../lib/index/scan/fast-scan';
import { stripAscii } from '../../../../lib/capture/store';
import { generateDemo } from '../../../../lib/demo/generate';
import { callValues } from '../../../../lib/index/ingest/capture-file';
import { CALL } from '../../../../lib/index/call-row';
import { nativeCallValues, nativeScanStatus } from '../../../../lib/index/scan/native';
import { scanExchangeLine, scanExchangeLineExact, type ScanOutcome } from '../../../../lib/index/scan/capture-line';
import { exchangeLines, mutate, mutation } from '../../../support/capture-lines';

/** What the index keeps of an outcome: the row `ingest` inserts, or the kind (and message) otherwise. */
function indexed(o: ScanOutcome): unknown {
  if (o.kind !== 'record') return o;
  const r = o.call.record;
  const fields: Record<string, unknown> = {};
  // Every derived field but the payloads (not lossless in the fast path, and never indexed beyond non-null).
  const payloads = ['request', 'response', 'request_raw', 'response_raw', 'tool_calls'];
  for (const k of RECORD_FIELDS) fields[k] = payloads.includes(k) ? r[k] === null : r[k];
  return {
    row: callValues(7, 3, 100, 5000, o.call),
    fields,
    tool_calls: Array.isArray(r.tool_calls) ? r.tool_calls.length : -1,
  };
}

function exact(bytes: Buffer, callIndex: number): ScanOutcome {
  const stripped = stripAscii(bytes);
  if (stripped.length === 0) return { kind: 'blank' };
  return scanExchangeLineExact(stripped, stripped.byteOffset - bytes.byteOffset, callIndex);
}

let fastAnswered = 0;
let nativeAnswered = 0;
function check(bytes: Buffer, callIndex = 0): void {
  const stripped = stripAscii(bytes);
  if (stripped.length > 0 && isUtf8(stripped) && scanExchangeFast(stripped)) fastAnswered++;
  const lossless = exact(bytes, callIndex);
  expect(indexed(scanExchangeLine(bytes, callIndex))).toEqual(indexed(lossless));
  const row = nativeCallValues(bytes, 100, callIndex);
  if (row) {
    nativeAnswered++;
    expect(lossless.kind, `native answered a line the lossless scan reads as ${lossless.kind}: ${bytes.toString('utf8').slice(0, 300)}`).toBe('record');
    if (lossless.kind !== 'record') return;
    row[CALL.rollout_pk] = 7;
    row[CALL.file_id] = 3;
    expect(row[CALL.line_length]).toBe(bytes.length);
    row[CALL.line_length] = 5000;
    expect(row, bytes.toString('utf8').slice(0, 500)).toEqual(callValues(7, 3, 100, 5000, lossless.call));
  }
}

it('the native scan is built and loaded', () => {
  // npm install builds it (scripts/build-native.mjs); without it ingest falls back to the JavaScript scan
  expect(nativeScanStatus()).toEqual({ loaded: true, error: null });
});

// --- adversarial lines -------------------------------------------------------------------------------------

const exchangeLine = exchangeLines(true);
const cleanLine = exchangeLines(false);
const typedLine = exchangeLines(false, true);
const valueTok = fc.letrec((tie) => ({ v: fc.oneof(fc.string(), fc.integer(), tie('a')), a: fc.array(tie('v'), { maxLength: 3 }) })).v.map((v) => JSON.stringify(v));

describe('fast capture-line scan = lossless scan (indexed row)', () => {
  it('generated exchanges with valid but tricky tokens', () => {
    fastAnswered = 0;
    nativeAnswered = 0;
    fc.assert(
      fc.property(cleanLine, fc.nat(50), (text, callIndex) => check(Buffer.from(text, 'utf8'), callIndex)),
      { numRuns: 4000 },
    );
    // The fast path is exercised, not always declined: of 4000 lines it answers some 240 (native ~145; six runs
    // 225–251 and 130–155), so half of that holds on any seed (the bound of 200 failed once in CI at 199).
    expect(fastAnswered).toBeGreaterThan(120);
    expect(nativeAnswered).toBeGreaterThan(70);
  });

  it('generated exchanges with adversarial tokens', () => {
    fc.assert(
      fc.property(exchangeLine, fc.nat(50), (text, callIndex) => check(Buffer.from(text, 'utf8'), callIndex)),
      { numRuns: 4000 },
    );
  });

  it('generated exchanges with well-typed metadata and adversarial requests and responses', () => {
    nativeAnswered = 0;
    fc.assert(
      fc.property(typedLine, fc.nat(50), (text, callIndex) => check(Buffer.from(text, 'utf8'), callIndex)),
      { numRuns: 4000 },
    );
    expect(nativeAnswered).toBeGreaterThan(400);
  });

  it('the same with one byte edited (invalid lines, broken strings and brackets)', () => {
    fc.assert(fc.property(fc.oneof(exchangeLine, cleanLine, typedLine), mutation, (text, m) => check(mutate(text, m))), { numRuns: 4000 });
  });

  it('long raw bodies: escapes, quotes and bad bytes at every position of the 64-byte blocks', () => {
    // The native scan checks raw bodies 64 bytes at a time (checkedLongString): what ends the string, what declines
    // it, and the escape state carried from one block to the next must not depend on where the blocks fall.
    const piece = fc.constantFrom('a', 'data: {', 'é', '😀', ' ', '\\"', '\\\\', '\\\\\\"', '\\n', '\\/', '\\t', '\\b', '\\f', '\\r', '\\u00e9', '\\u0000');
    // (A surrogate escape, even a valid pair, is one the native scan declines: the line goes to the JavaScript scan.)
    const bad = fc.constantFrom('\\uD83D\\uDE00', '\\ud800', '\\udc00', '\\x', '\\u12', '\\u12"', '\t', '\u0001', '\\', '\\\\\\');
    let answered = 0;
    fc.assert(
      fc.property(
        fc.nat(70), fc.array(piece, { minLength: 1, maxLength: 120 }), fc.option(fc.tuple(fc.nat(), bad), { freq: 2 }), fc.boolean(),
        (pad, pieces, spoil, ended) => {
          const body = ['x'.repeat(pad), ...pieces];
          if (spoil) body.splice(spoil[0] % (body.length + 1), 0, spoil[1]);
          const text = `{"request":{},"response":{},"response_raw":"${body.join('')}${ended ? '"}' : ''}`;
          check(Buffer.from(text, 'utf8'));
          if (!spoil && ended) {
            expect(nativeCallValues(Buffer.from(text, 'utf8'), 0, 0), text).not.toBeNull();
            answered++;
          }
        },
      ),
      { numRuns: 3000 },
    );
    expect(answered).toBeGreaterThan(500);
  });

  it('arbitrary JSON texts and strings', () => {
    fc.assert(fc.property(valueTok, (t) => check(Buffer.from(t, 'utf8'))), { numRuns: 1000 });
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 80 }), (t) => check(Buffer.from(t, 'utf8'))), { numRuns: 500 });
  });

  it.each([
    ['whole float token count', '{"request":{},"response":{"usage":{"input_tokens":5.0,"output_tokens":2}}}'],
    ['-0 token count', '{"request":{},"response":{"usage":{"input_tokens":-0,"output_tokens":2}}}'],
    ['-0 started_at', '{"started_at":-0,"request":{},"response":{}}'],
    ['lone surrogate in the response', '{"request":{},"response":{"id":"\\ud800"}}'],
    ['lone surrogate in the request body (skipped, fine)', '{"request":{"input":"\\ud800"},"response":{"id":"r"}}'],
    ['lone surrogate in the request model', '{"request":{"model":"\\ud800"},"response":{}}'],
    ['escaped request key', '{"reque\\u0073t":{"input":[1,2]},"response":{}}'],
    ['escaped model key', '{"request":{"mod\\u0065l":"m","input":[]},"response":{}}'],
    ['duplicate request', '{"request":{"model":"a"},"request":{"model":"b"},"response":{}}'],
    ['duplicate response', '{"request":{},"response":{"model":"a"},"response":{"model":"b"}}'],
    ['index keys in the response', '{"request":{},"response":{"usage":{"1":2,"input_tokens":3}}}'],
    ['big int', '{"request":{},"response":{"usage":{"input_tokens":12345678901234567890}}}'],
    ['bad structure in the request body', '{"request":{"input":[1,2}},"response":{}}'],
    ['unchecked tokens in the request body', '{"request":{"input":[1 2 x]},"response":{}}'],
    ['bad scalar in the request', '{"request":{"n":NaN},"response":{}}'],
    ['control character in the request body', '{"request":{"input":"a\tb"},"response":{}}'],
    ['control character in a request key', '{"request":{"a\tb":1},"response":{}}'],
    ['escaped quotes', '{"request":{"input":"\\"\\\\\\"\\\\"},"response":{"output":[{"type":"function_call","arguments":"{\\"a\\": 1.0}"}]}}'],
    ['not an object', '[1,2]'],
    ['escaped usage key with whole-float counts', '{"request":{},"response":{"usag\\u0065":{"input_tokens":5.0,"output_tokens":2.0}}}'],
    ['escaped index key', '{"request":{},"response":{"output":[{"type":"reasoning","summary":{"\\u0030":1,"a":2}}]}}'],
    ['escaped response key', '{"request":{},"respons\\u0065":{"usage":{"input_tokens":1}}}'],
    ['raw body with a lone surrogate', '{"request":{},"response":{},"response_raw":"a\\ud800"}'],
    ['raw body with a bad escape', '{"request":{},"response":{},"request_raw":"a\\x"}'],
    ['raw body with a control character', '{"request":{},"response":{},"response_raw":"a\u0001b"}'],
    ['raw body with a short \\u escape', '{"request":{},"response":{},"response_raw":"a\\u12"}'],
    ['raw body not a string', '{"request":{},"response":{},"response_raw":{"a":1.0}}'],
    ['raw body with escapes', '{"request":{},"response":{},"response_raw":"\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\uD83D\\uDE00"}'],
    ['trailing data', '{"request":{},"response":{}} x'],
    ['deep nesting', `{"request":{"input":${'['.repeat(1100)}${']'.repeat(1100)}},"response":{}}`],
    ['deep response', `{"request":{},"response":{"a":${'['.repeat(600)}${']'.repeat(600)}}}`],
    ['response deeper than orjson reads', `{"request":{},"response":{"a":${'['.repeat(1100)}${']'.repeat(1100)}}}`],
    ['deep response before a raw body', `{"request":{},"response":{"a":${'{"b":'.repeat(1100)}1${'}'.repeat(1100)}},"response_raw":"x"}`],
    ['response with a usage string value and a nested usage key', '{"request":{},"response":{"type":"usage","x":{"usage":{"n":2.0}},"usage":{"input_tokens":3}}}'],
    ['response followed by request_raw and response_raw', '{"request":{},"response":{"usage":{"input_tokens":3}},"request_raw":"a","response_raw":"b"}'],
    ['raw key inside the response', '{"request":{},"response":{"a":{"b":1,"response_raw":"x"}}}'],
    ['non-object request', '{"request":[1.0,{"model":"x"}],"response":{"model":"m"}}'],
    ['proto keys', '{"__proto__":{"x":1},"request":{"__proto__":1,"model":"m"},"response":{"__proto__":{"usage":1},"usage":{"input_tokens":1}}}'],
    ['non-iterable summary', '{"request":{},"response":{"output":[{"type":"reasoning","summary":1.0}]}}'],
  ])('%s', (_name, text) => {
    check(Buffer.from(text, 'utf8'));
  });
});

describe('fast capture-line scan over the demo data', () => {
  let dir: string;
  const lines: Buffer[] = [];
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'callscope-scanfast-'));
    await generateDemo({ out: path.join(dir, 'demo') });
    const walk = (d: string): void => {
      for (const f of readdirSync(d)) {
        const p = path.join(d, f);
        if (statSync(p).isDirectory()) walk(p);
        else if (f.endsWith('.capture.jsonl')) {
          const buf = readFileSync(p);
          for (let s = 0, nl = buf.indexOf(10); nl >= 0; s = nl + 1, nl = buf.indexOf(10, s)) lines.push(buf.subarray(s, nl));
        }
      }
    };
    walk(dir);
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('every capture line of every demo run: same indexed row, mostly answered by the fast path', () => {
    expect(lines.length).toBeGreaterThan(100);
    fastAnswered = 0;
    nativeAnswered = 0;
    lines.forEach((l, i) => check(l, i));
    expect(fastAnswered).toBeGreaterThan(lines.length * 0.9);
    expect(nativeAnswered).toBeGreaterThan(lines.length * 0.9);
  });

  it('demo lines with one byte edited', () => {
    fc.assert(
      fc.property(fc.nat(lines.length - 1), mutation, (k, m) => check(mutate(lines[k].toString('utf8'), m))),
      { numRuns: 3000 },
    );
  });
});
