// A stored line streamed from its byte span (the raw call line, the rollout line): the file and span come from the
// index, never from the request. `download` names the file for a save dialog.
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';

export function spanResponse(span: { path: string; start: number; length: number }, download: string | null): Response {
  const headers: Record<string, string> = { 'content-type': 'application/x-ndjson', 'content-length': String(span.length) };
  if (download !== null) headers['content-disposition'] = `attachment; filename="${download}"`;
  if (span.length === 0) return new Response('', { headers });
  const stream = createReadStream(span.path, { start: span.start, end: span.start + span.length - 1, highWaterMark: 1 << 20 });
  return new Response(Readable.toWeb(stream) as ReadableStream<Uint8Array>, { headers });
}
