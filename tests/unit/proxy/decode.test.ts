import zlib from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canDecode, decodeBody, StreamDecoder } from '../../../lib/proxy/decode';

const text = Buffer.from('event: message_start\ndata: {"t":"café 東京 🎉"}\n\n'.repeat(200));
const encoders = {
  gzip: (b: Buffer) => zlib.gzipSync(b),
  deflate: (b: Buffer) => zlib.deflateSync(b),
  br: (b: Buffer) => zlib.brotliCompressSync(b),
} as const;

describe('decoding for the capture', () => {
  it.each(Object.keys(encoders) as (keyof typeof encoders)[])('decodes a whole %s body', async (coding) => {
    expect((await decodeBody(encoders[coding](text), [coding]))!.equals(text)).toBe(true);
  });

  it('accepts raw deflate (no zlib header), x-gzip and stacked codings (last applied first)', async () => {
    expect((await decodeBody(zlib.deflateRawSync(text), ['deflate']))!.equals(text)).toBe(true);
    expect((await decodeBody(zlib.gzipSync(text), ['x-gzip']))!.equals(text)).toBe(true);
    expect((await decodeBody(zlib.brotliCompressSync(zlib.gzipSync(text)), ['gzip', 'br']))!.equals(text)).toBe(true);
  });

  it('keeps what arrived of a truncated body, and gives up on unknown or corrupt codings', async () => {
    const gz = zlib.gzipSync(text);
    const partial = await decodeBody(gz.subarray(0, gz.length >> 1), ['gzip']);
    expect(partial!.length).toBeGreaterThan(0);
    expect(text.subarray(0, partial!.length).equals(partial!)).toBe(true);
    expect(await decodeBody(Buffer.from('not gzip'), ['gzip'])).toBeNull();
    expect(await decodeBody(Buffer.from('x'), ['zstd'])).toBeNull();
    expect(canDecode(['gzip', 'br'])).toBe(true);
    expect(canDecode(['compress'])).toBe(false);
    expect((await decodeBody(Buffer.alloc(0), ['gzip']))!.length).toBe(0);
  });

  it('decodes a stream chunk by chunk, whatever the cuts (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('gzip', 'deflate', 'br'), fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 1, maxLength: 30 }), async (coding, sizes) => {
        const encoded = encoders[coding as keyof typeof encoders](text);
        const decoder = new StreamDecoder(coding);
        const out: Buffer[] = [];
        let at = 0;
        for (let i = 0; at < encoded.length; i++) {
          const next = Math.min(encoded.length, at + sizes[i % sizes.length]);
          out.push((await decoder.push(encoded.subarray(at, next)))!);
          at = next;
        }
        decoder.close();
        expect(Buffer.concat(out).equals(text)).toBe(true);
      }),
      { numRuns: 40 },
    );
  });

  it('a stream decoder reports failure as null, then stays failed', async () => {
    const decoder = new StreamDecoder('gzip');
    expect(await decoder.push(Buffer.from('definitely not gzip'))).toBeNull();
    expect(await decoder.push(zlib.gzipSync(text))).toBeNull();
    expect(StreamDecoder.supports(['gzip'])).toBe(true);
    expect(StreamDecoder.supports(['gzip', 'br'])).toBe(false);
  });
});
