// The payload views report the size of the body the API sent in bytes (read-body.ts), not its UTF-16 length.
import { describe, expect, it } from 'vitest';
import { readBody } from '../../../components/calls/read-body';

describe('readBody', () => {
  it('decodes the body once and counts its bytes, which differ from the string length for non-ASCII text', async () => {
    const text = '{"content":"héllo 😀 日本"}';
    const { text: decoded, bytes } = await readBody(new Response(Buffer.from(text, 'utf8')));
    expect(decoded).toBe(text);
    expect(bytes).toBe(Buffer.byteLength(text, 'utf8'));
    expect(bytes).toBeGreaterThan(text.length);
  });
});
