// What an API endpoint answers, whatever the transport: a status, headers and a body. The body is text, chunks whose
// first one has already been read, or a byte span of a file already open, so that a file gone missing is an error
// answer on both transports, not a 200 cut short. One endpoint function per route (lib/api/endpoints/) builds it;
// the Next route files (web-answer.ts) and `serve`'s node:http routes (lib/server/node-answer.ts) only write it out.
import { promises as fsp } from 'node:fs';
import { ERROR_CODES, notFound, toApiError } from './error-codes';

export interface Chunks {
  next(): Promise<IteratorResult<Buffer | string>>;
  close(): Promise<void>;
}

export type AnswerBody =
  | { kind: 'text'; text: string }
  | { kind: 'chunks'; chunks: Chunks }
  /** `file` is null for an empty span (nothing to read). */
  | { kind: 'span'; file: fsp.FileHandle | null; start: number; length: number };

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: AnswerBody;
}

export function jsonAnswer(text: string, status = 200): Answer {
  return { status, headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) }, body: { kind: 'text', text } };
}

/** A thrown error as the API reports it: typed errors and schema failures by their code, anything else logged, a 500. */
export function errorAnswer(err: unknown): Answer {
  const known = toApiError(err);
  if (!known) console.error('callscope api:', err);
  const { code, message } = known ?? { code: 'internal' as const, message: 'internal error' };
  return jsonAnswer(JSON.stringify({ error: { code, message } }), ERROR_CODES[code]);
}

/** Reads the first chunk now, so that an error in it is thrown here, before any status is chosen. */
export async function readAhead(gen: AsyncGenerator<Buffer | string>): Promise<Chunks> {
  let first: IteratorResult<Buffer | string> | null = await gen.next();
  return {
    next() {
      const r = first;
      first = null;
      return r ? Promise.resolve(r) : gen.next();
    },
    async close() {
      await gen.return(undefined);
    },
  };
}

/**
 * A stored line by its byte span (the file and span come from the index, never from the request), opened now;
 * `what` names it in the 404 when the file is gone, `download` names the file for a save dialog.
 */
export async function spanAnswer(span: { path: string; start: number; length: number }, what: string, download: string | null): Promise<Answer> {
  const file = span.length > 0 ? await fsp.open(span.path, 'r').catch(() => null) : null;
  if (span.length > 0 && !file) throw notFound(what);
  const headers: Record<string, string> = { 'content-type': 'application/x-ndjson', 'content-length': String(span.length) };
  if (download !== null) headers['content-disposition'] = `attachment; filename="${download}"`;
  return { status: 200, headers, body: { kind: 'span', file, start: span.start, length: span.length } };
}
