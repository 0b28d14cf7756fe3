// An endpoint's answer written to a node:http response (the routes `serve` answers before Next.js): chunks with
// backpressure, a byte span through two reused 1 MiB buffers; a HEAD request gets the status and headers only.
import type { promises } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Answer, Chunks } from '../api/answer';

const READ_CHUNK = 1 << 20;

export async function writeAnswer(req: IncomingMessage, res: ServerResponse, { status, headers, body }: Answer): Promise<void> {
  const head = req.method === 'HEAD';
  res.writeHead(status, headers);
  if (body.kind === 'text') {
    res.end(head ? undefined : body.text);
  } else if (body.kind === 'chunks') {
    if (head) await body.chunks.close();
    else await writeChunks(body.chunks, res);
    res.end();
  } else if (!body.file || head) {
    await body.file?.close();
    res.end();
  } else {
    const { file } = body;
    await pump(file, body.start, body.length, res).finally(() => file.close());
  }
}

async function writeChunks(chunks: Chunks, res: ServerResponse): Promise<void> {
  let closed = false;
  res.once('close', () => (closed = true));
  let next = await chunks.next();
  try {
    while (!next.done && !closed) {
      if (!res.write(next.value)) {
        await new Promise<void>((resolve) => {
          const done = () => {
            res.off('drain', done);
            res.off('close', done);
            resolve();
          };
          res.on('drain', done);
          res.on('close', done);
        });
      }
      next = await chunks.next();
    }
  } finally {
    if (!next.done) await chunks.close();
  }
}

/**
 * Copies a byte span to the response through two reused 1 MiB buffers: one is read while the other is being
 * written. A read stream allocates a new buffer per chunk, and in a process holding Next.js that external
 * memory pressure triggered full GCs over and over while a large line was sent.
 */
async function pump(file: promises.FileHandle, start: number, length: number, res: ServerResponse): Promise<void> {
  const buffers = [Buffer.allocUnsafe(READ_CHUNK), Buffer.allocUnsafe(READ_CHUNK)];
  const written: Promise<void>[] = [Promise.resolve(), Promise.resolve()];
  let closed = false;
  res.once('close', () => (closed = true));
  for (let pos = start, end = start + length, i = 0; pos < end && !closed; i ^= 1) {
    await written[i];
    const { bytesRead } = await file.read(buffers[i], 0, Math.min(READ_CHUNK, end - pos), pos);
    if (bytesRead === 0) throw new Error('capture file shorter than its indexed span');
    pos += bytesRead;
    written[i] = new Promise((resolve) => res.write(buffers[i].subarray(0, bytesRead), () => resolve()));
  }
  await Promise.all(written);
  res.end();
}
