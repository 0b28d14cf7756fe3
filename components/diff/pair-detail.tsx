'use client';

import Link from 'next/link';
import { useFetched } from '@/components/calls/use-fetched';
import type { Diff } from '@/lib/api/diff-schemas';
import type { PairSummary } from '@/lib/rollouts/diff';
import type { JsonDiff } from '@/lib/rollouts/diff-json';
import { parseKeepingNumbers } from '@/lib/view/json-source';
import { diffApiHref, sharedHistory, signedCount, signedMs } from '@/lib/view/diff';
import { formatBytes, formatCount, formatMs } from '@/lib/view/format';
import { JsonDiffView } from './json-diff-view';
import { sideCallHref } from './pair-list';
import { ToolPairs } from './tool-pairs';

const parsePair = (text: string): PairSummary | null => (parseKeepingNumbers(text) as Diff).pairs?.[0] ?? null;

function History({ diff }: { diff: JsonDiff }) {
  const shared = sharedHistory(diff);
  if (!shared) return null;
  return (
    <p className="text-sm text-muted" aria-label="shared history">
      {shared.all
        ? `The two requests are the same${shared.exact ? '' : ' but for ids and timestamps'}: ${formatCount(shared.items)} conversation items.`
        : `The first ${formatCount(shared.items)} conversation items are the same in both requests${shared.exact ? '' : ' (ids and timestamps aside)'}: the history they share, folded below.`}
    </p>
  );
}

/** One pair opened: its calls, deltas, and the structural diff of the requests and the responses (fetched). */
export function PairDetail({ diff, index }: { diff: Diff; index: number }) {
  const p = diff.pairs[index];
  const url = diffApiHref(`${diff.a.run}/${diff.a.rollout}`, `${diff.b.run}/${diff.b.rollout}`, index);
  const full = useFetched(url, parsePair);
  const link = (which: 'a' | 'b') => {
    const side = which === 'a' ? diff.a : diff.b;
    const call = which === 'a' ? p.a_call : p.b_call;
    const ref = which === 'a' ? p.a_ref : p.b_ref;
    return call === null || ref === null ? <span className="text-muted">no call</span> : <Link href={sideCallHref(side, ref)} prefetch={false} className="font-mono text-accent hover:underline">{which} call #{call}</Link>;
  };
  return (
    <section aria-label={`pair ${index}`} className="space-y-3 rounded-lg border border-line px-4 py-3">
      <h2 className="flex flex-wrap items-baseline gap-x-3 text-base font-semibold">
        Pair {index}
        <span className="text-sm font-normal">{link('a')} ↔ {link('b')}</span>
      </h2>
      <dl className="flex flex-wrap gap-x-6 gap-y-1 text-sm">
        <div><dt className="inline text-muted">tokens </dt><dd className="inline tabular-nums">{formatCount(p.a_tokens)} → {formatCount(p.b_tokens)} ({signedCount(p.tokens_delta)})</dd></div>
        <div><dt className="inline text-muted">latency </dt><dd className="inline tabular-nums">{formatMs(p.a_latency_ms)} → {formatMs(p.b_latency_ms)} ({signedMs(p.latency_delta)})</dd></div>
        {full.status === 'ready' ? <div className="text-muted">diff of {formatBytes(full.bytes)}</div> : null}
      </dl>
      {p.tools ? (
        <section aria-label="tool calls of the pair" className="space-y-2">
          <h3 className="font-semibold">Tool calls</h3>
          <ToolPairs tools={p.tools} />
        </section>
      ) : null}
      {full.status === 'loading' ? <p className="text-sm text-muted">Loading the pair&apos;s diff…</p> : null}
      {full.status === 'error' ? <p role="alert" className="text-sm text-bad">The pair&apos;s diff could not be loaded: {full.message}</p> : null}
      {full.status === 'ready' && full.value ? (
        <>
          <section aria-label="request diff" className="space-y-2">
            <h3 className="font-semibold">Request</h3>
            <History diff={full.value.request_diff as JsonDiff} />
            <JsonDiffView diff={full.value.request_diff as JsonDiff} />
          </section>
          <section aria-label="response diff" className="space-y-2">
            <h3 className="font-semibold">Response</h3>
            <JsonDiffView diff={full.value.response_diff as JsonDiff} />
          </section>
        </>
      ) : null}
    </section>
  );
}
