// An endpoint's answer as a web Response, for the Next route files (what `next dev` serves).
import { Readable } from 'node:stream';
import type { Answer } from './answer';

export function webResponse({ status, headers, body }: Answer): Response {
  if (body.kind === 'text') return new Response(body.text, { status, headers });
  if (body.kind === 'span') {
    if (!body.file) return new Response('', { status, headers });
    // The stream closes the file when it ends, fails or is cancelled.
    const stream = body.file.createReadStream({ start: body.start, end: body.start + body.length - 1, highWaterMark: 1 << 20 });
    return new Response(Readable.toWeb(stream) as ReadableStream<Uint8Array>, { status, headers });
  }
  const { chunks } = body;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await chunks.next();
      if (done) controller.close();
      else controller.enqueue(typeof value === 'string' ? new TextEncoder().encode(value) : new Uint8Array(value));
    },
    async cancel() {
      await chunks.close();
    },
  });
  return new Response(stream, { status, headers });
}
