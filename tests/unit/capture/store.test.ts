import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, promises as fsp, readFileSync, writeFileSync, existsSync, appendFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JsonFloat } from '../../../lib/capture/json-value';
import { parseStrict } from '../../../lib/capture/json-parse';
import { serialize } from '../../../lib/capture/json-serialize';
import { CaptureStore, markIncomplete, readCaptureFile, readLines, rolloutIdOfCaptureFile } from '../../../lib/capture/store';
import { line, makeExchange } from '../../support/exchange';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'callscope-store-'));
});
afterEach(async () => {
  await fsp.rm(dir, { recursive: true, force: true });
});

const hasPython = spawnSync('python3', ['-c', 'import fcntl']).status === 0;

describe('§1.2 files', () => {
  it('selects capture files strictly by suffix', () => {
    expect(rolloutIdOfCaptureFile('3-1.capture.jsonl')).toBe('3-1');
    expect(rolloutIdOfCaptureFile('3-1.tokens.jsonl')).toBeNull();
    expect(rolloutIdOfCaptureFile('3-1.capture.incomplete')).toBeNull();
    expect(rolloutIdOfCaptureFile('.capture.jsonl')).toBeNull();
  });
});

describe('§3.6 tolerant reader', () => {
  it('blank lines take no index; damaged, non-object and underivable lines keep theirs (verified example)', async () => {
    const good = (id: string) => serialize(makeExchange({ model_call_id: id }));
    const badRef = serialize(makeExchange({ model_ref: { type: 'other', name: 'x' } }));
    const file = path.join(dir, 'r.capture.jsonl');
    writeFileSync(file, [good('a'), '', '   \t', '{bad', '[]', badRef, good('b'), '"str"', good('c')].join('\n') + '\n');
    const read = await readCaptureFile(file);
    expect(read.records.map((r) => r.call_index)).toEqual([0, 4, 6]);
    expect(read.records.map((r) => r.model_call_id)).toEqual(['a', 'b', 'c']);
    expect(read.unreadable).toBe(4);
    expect(read.problems.map((p) => p.line)).toEqual([4, 5, 6, 8]);
  });

  it('good / {not-json} / good gives indices [0, 2]', async () => {
    const file = path.join(dir, 'r.capture.jsonl');
    writeFileSync(file, line(makeExchange()) + '{not-json}\n' + line(makeExchange()));
    const read = await readCaptureFile(file);
    expect(read.records.map((r) => r.call_index)).toEqual([0, 2]);
    expect(read.unreadable).toBe(1);
  });

  it('NaN literals and invalid UTF-8 are unreadable (orjson is strict); CRLF and BOM-free lines are fine', async () => {
    const file = path.join(dir, 'r.capture.jsonl');
    const nan = serialize(makeExchange()).replace('"latency_ms":18.4', '"latency_ms":NaN');
    writeFileSync(file, Buffer.concat([Buffer.from(nan + '\n'), Buffer.from([0x7b, 0xff, 0x7d, 0x0a]), Buffer.from(serialize(makeExchange()) + '\r\n')]));
    const read = await readCaptureFile(file);
    expect(read.unreadable).toBe(2);
    expect(read.records.map((r) => r.call_index)).toEqual([2]);
  });

  it('an unterminated last line is read like any other line; a follower can hold it as pending', async () => {
    const file = path.join(dir, 'r.capture.jsonl');
    writeFileSync(file, line(makeExchange()) + serialize(makeExchange({ model_call_id: 'tail' })));
    const read = await readCaptureFile(file);
    expect(read.records.map((r) => r.model_call_id)).toEqual(['call-1', 'tail']);
    const handle = await fsp.open(file, 'r');
    const held = [];
    for await (const l of readLines(handle, { holdUnterminated: true })) held.push(l);
    await handle.close();
    expect(held).toHaveLength(1);
    expect(held[0].terminated).toBe(true);
  });

  it('a missing file reads as empty', async () => {
    expect(await readCaptureFile(path.join(dir, 'none.capture.jsonl'))).toEqual({ records: [], unreadable: 0, problems: [] });
  });

  it('property: random damaged lines and tails are counted, never dropped, and never shift other indices', async () => {
    type Kind = 'good' | 'blank' | 'junk' | 'array' | 'underivable';
    const kinds = fc.array(fc.constantFrom<Kind>('good', 'blank', 'junk', 'array', 'underivable'), { maxLength: 15 });
    const junk = fc.string({ maxLength: 20 }).filter((t) => {
      try {
        JSON.parse(t);
        return false;
      } catch {
        return t.trim().length > 0 && !t.includes('\n');
      }
    });
    await fc.assert(
      fc.asyncProperty(kinds, junk, fc.boolean(), async (ks, junkText, tornTail) => {
        const text: Record<Kind, (i: number) => string> = {
          good: (i) => serialize(makeExchange({ model_call_id: `c${i}` })),
          blank: () => ' \t',
          junk: () => junkText,
          array: () => '[1,2]',
          underivable: () => serialize(makeExchange({ dialect: 5 })),
        };
        const body = ks.map((k, i) => text[k](i)).join('\n') + (ks.length ? '\n' : '') + (tornTail ? '{"model_call_id":"c' : '');
        const file = path.join(dir, 'd.capture.jsonl');
        writeFileSync(file, body);
        let index = 0;
        const expected: [string, number][] = [];
        let unreadable = tornTail ? 1 : 0;
        ks.forEach((k, i) => {
          if (k === 'blank') return;
          if (k === 'good') expected.push([`c${i}`, index]);
          else unreadable++;
          index++;
        });
        const read = await readCaptureFile(file);
        expect(read.records.map((r) => [r.model_call_id, r.call_index])).toEqual(expected);
        expect(read.unreadable).toBe(unreadable);
        expect(read.problems).toHaveLength(unreadable);
      }),
      { numRuns: 200 },
    );
  });

  it('property: line spans and outcomes do not depend on the read chunk size', async () => {
    const pieces = fc.array(
      fc.oneof(
        fc.constant(serialize(makeExchange({ model_call_id: 'ok' }))),
        fc.constant(''),
        fc.constant('  '),
        fc.string({ maxLength: 40 }),
        fc.constant('{"model_call_id":"café 東京 😀"}'),
      ),
      { maxLength: 12 },
    );
    await fc.assert(
      fc.asyncProperty(pieces, fc.boolean(), fc.integer({ min: 1, max: 64 }), async (lines, terminated, chunkSize) => {
        const file = path.join(dir, `p.capture.jsonl`);
        const text = lines.join('\n') + (terminated && lines.length ? '\n' : '');
        writeFileSync(file, text);
        const spans = async (size: number) => {
          const handle = await fsp.open(file, 'r');
          const out: string[] = [];
          for await (const l of readLines(handle, { chunkSize: size })) out.push(`${l.lineNumber}:${l.offset}:${l.length}:${l.bytes.toString('hex')}`);
          await handle.close();
          return out;
        };
        const whole = await spans(1 << 20);
        expect(await spans(chunkSize)).toEqual(whole);
        const bytes = Buffer.from(text);
        for (const s of whole) {
          const [, off, len, hex] = s.split(':');
          expect(bytes.subarray(Number(off), Number(off) + Number(len)).toString('hex')).toBe(hex);
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe('§1.5 append, locking and durability', () => {
  it('record() appends one serialized line per call; a failing write touches the marker and does not throw', async () => {
    const store = await CaptureStore.open(path.join(dir, 'nested', 'captures'));
    expect((await store.record('0-0', makeExchange())).ok).toBe(true);
    const bad = await store.record('0-0', makeExchange({ request: { big: 2n ** 70n } }));
    expect(bad.ok).toBe(false);
    expect(existsSync(store.incompletePathFor('0-0'))).toBe(true);
    expect(readFileSync(store.pathFor('0-0'), 'utf8')).toBe(line(makeExchange()));
  });

  it('Unicode payloads round-trip; a pre-seeded blank line takes no index', async () => {
    const store = await CaptureStore.open(dir);
    writeFileSync(store.pathFor('u'), '\n');
    await store.append('u', { request: { text: 'Unicode payload: café 東京' }, response: {} });
    await store.append('u', { request: {}, response: {} });
    const read = await store.read('u');
    expect(read.records.map((r) => r.call_index)).toEqual([0, 1]);
    expect(read.records[0].request).toEqual({ text: 'Unicode payload: café 東京' });
  });

  it('20 concurrent appends to one rollout: no loss, no interleaving', async () => {
    const store = await CaptureStore.open(dir);
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.append('0-0', { request: { i }, response: {} })));
    const rows = readFileSync(store.pathFor('0-0'), 'utf8').trimEnd().split('\n').map((l) => parseStrict(l) as { request: { i: number } });
    expect(rows.map((r) => r.request.i).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it('4 processes x 100 appends: exactly 400 rows', async () => {
    const script = `
      const { CaptureStore } = await import(${JSON.stringify(path.resolve('lib/capture/store.ts'))});
      const store = await CaptureStore.open(process.argv[2]);
      const w = Number(process.argv[3]);
      for (let k = 0; k < 100; k++) await store.append('0-0', { request: { i: w * 100 + k }, response: {} });`;
    const tsx = path.resolve('node_modules/tsx/dist/cli.mjs');
    const scriptFile = path.join(dir, 'writer.mts');
    writeFileSync(scriptFile, script);
    await Promise.all(
      [0, 1, 2, 3].map(
        (w) =>
          new Promise<void>((resolve, reject) => {
            const child = spawn(process.execPath, [tsx, scriptFile, dir, String(w)], { stdio: 'inherit' });
            child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`writer ${w} exited ${code}`))));
          }),
      ),
    );
    const read = await readCaptureFile(path.join(dir, '0-0.capture.jsonl'));
    expect(read.unreadable).toBe(0);
    expect(read.records.map((r) => (r.request as { i: number }).i).sort((a, b) => a - b)).toEqual(Array.from({ length: 400 }, (_, i) => i));
  }, 60_000);

  it.skipIf(!hasPython)('interop: a reader waits while a Python writer holds the exclusive flock with half a line written', async () => {
    const file = path.join(dir, 'py.capture.jsonl');
    const py = spawn('python3', [
      '-c',
      `import fcntl, sys, time
f = open(sys.argv[1], 'ab')
fcntl.flock(f, fcntl.LOCK_EX)
f.write(b'{"request":{},'); f.flush()
print('locked', flush=True)
time.sleep(0.6)
f.write(b'"response":{}}\\n'); f.flush()
fcntl.flock(f, fcntl.LOCK_UN)
f.close()`,
      file,
    ]);
    await new Promise<void>((resolve) => py.stdout.once('data', () => resolve()));
    const started = Date.now();
    const read = await readCaptureFile(file);
    expect(Date.now() - started).toBeGreaterThan(300);
    expect(read.records.map((r) => [r.request, r.response])).toEqual([[{}, {}]]);
  });

  it.skipIf(!hasPython)('interop: our exclusive lock excludes a Python flock, and Python reads our lines back to the same values', async () => {
    const store = await CaptureStore.open(dir);
    await store.append('i', { request: { x: new JsonFloat(1), y: 1, s: 'café', big: 12345678901234567890n }, response: {} });
    const out = spawnSync('python3', [
      '-c',
      `import fcntl, json, sys
f = open(sys.argv[1], 'rb')
fcntl.flock(f, fcntl.LOCK_SH | fcntl.LOCK_NB)
rows = [json.loads(l) for l in f if l.strip()]
r = rows[0]['request']
print(type(r['x']).__name__, type(r['y']).__name__, r['s'], r['big'])`,
      store.pathFor('i'),
    ]);
    expect(out.stdout.toString().trim()).toBe('float int café 12345678901234567890');
  });

  it('the marker is touched without truncating and without a lock', async () => {
    writeFileSync(path.join(dir, 'm.capture.incomplete'), 'keep');
    await markIncomplete(dir, 'm');
    expect(readFileSync(path.join(dir, 'm.capture.incomplete'), 'utf8')).toBe('keep');
    await markIncomplete(dir, 'n');
    expect(existsSync(path.join(dir, 'n.capture.incomplete'))).toBe(true);
    expect(() => markIncomplete(dir, 'a/b')).rejects.toThrow(/Invalid rollout id/);
  });

  it('appendFileSync-torn tails are read as one unreadable line (R4 shape)', async () => {
    const file = path.join(dir, 't.capture.jsonl');
    writeFileSync(file, line(makeExchange()));
    appendFileSync(file, '{"model_call_id":"tor');
    const read = await readCaptureFile(file);
    expect(read.records).toHaveLength(1);
    expect(read.unreadable).toBe(1);
  });
});
