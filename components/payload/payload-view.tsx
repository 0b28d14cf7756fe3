'use client';

import { formatBytes } from '@/lib/view/format';
import { JsonTree } from './json-tree';
import { LongText } from './long-text';

type CallRecord = Record<string, unknown>;

const PAYLOAD_KEYS = ['request', 'response', 'request_raw', 'response_raw'];

function RawBody({ title, text }: { title: string; text: string }) {
  return (
    <details className="rounded-md border border-line p-3" open={text.length < 4000}>
      <summary className="cursor-pointer text-sm font-medium">
        {title} <span className="font-normal text-muted">({formatBytes(text.length)})</span>
      </summary>
      <div className="mt-2 font-mono">
        <LongText text={text} />
      </div>
    </details>
  );
}

/**
 * The request or the response of a call as a JSON tree, its raw text when the body was not a JSON object
 * (or, for a streamed response, the SSE text it was reassembled from), and on the response side the
 * normalized record's own fields, so every pointer into the record has a node to open.
 */
export function PayloadView({ record, part, target }: { record: CallRecord; part: 'request' | 'response'; target: string | null }) {
  const value = record[part];
  const raw = record[`${part}_raw`];
  const rest = Object.fromEntries(Object.entries(record).filter(([k]) => !PAYLOAD_KEYS.includes(k)));
  return (
    <div className="space-y-4">
      {value !== null && value !== undefined ? (
        <JsonTree value={value} basePointer={`/${part}`} target={target} label={part} />
      ) : (
        <p className="text-sm text-muted">No {part} object was stored for this call{typeof raw === 'string' ? '; its body as text is below' : ''}.</p>
      )}
      {typeof raw === 'string' ? <RawBody title={part === 'response' && value ? 'The streamed body (SSE) it was reassembled from' : `The ${part} body as stored (not a JSON object)`} text={raw} /> : null}
      {part === 'response' ? (
        <section className="space-y-2">
          <h3 className="text-sm font-semibold">Normalized record (without payloads)</h3>
          <JsonTree value={rest} basePointer="" target={target} label="normalized record" />
        </section>
      ) : null}
    </div>
  );
}
