import Link from 'next/link';
import { rolloutHref } from '@/components/calls/call-href';
import { Badge } from '@/components/ui/badge';
import type { Diff, DiffSideInfo } from '@/lib/api/diff-schemas';
import { signedCount, signedMs } from '@/lib/view/diff';
import { formatCount, formatReward } from '@/lib/view/format';

const SOURCE_TEXT: Record<DiffSideInfo['source'], string> = {
  capture: 'calls from the capture dir',
  attachment: "calls from the rollout line's attachment",
  line: "no calls: its line's conversation, as one call",
  none: 'no calls and no line',
};

function Side({ label, s }: { label: string; s: DiffSideInfo }) {
  return (
    <div className="min-w-0 rounded-lg border border-line bg-panel px-4 py-2 text-sm">
      <p className="flex items-center gap-2">
        <span className="font-semibold">{label}</span>
        <Link href={rolloutHref(s.run, s.rollout)} prefetch={false} className="truncate font-mono text-accent hover:underline">
          {s.run}/{s.rollout}
        </Link>
      </p>
      <p className="text-muted">
        reward <span className="text-fg tabular-nums">{formatReward(s.reward)}</span> · task {s.task_index ?? '—'} · {s.source === 'line' ? SOURCE_TEXT.line : `${formatCount(s.calls)} calls, ${SOURCE_TEXT[s.source]}`}
      </p>
    </div>
  );
}

const sum = (xs: (number | null)[]) => (xs.some((x) => x === null) ? null : xs.reduce<number>((t, x) => t + (x ?? 0), 0));

/** Which two rollouts, how their calls line up, and where they first diverge. */
export function DiffHeader({ diff }: { diff: Diff }) {
  const counts = { same: 0, different: 0, unknown: 0, a_only: 0, b_only: 0 };
  for (const p of diff.pairs) counts[p.state]++;
  const d = diff.first_divergence;
  const at = d ? diff.pairs[d.pair] : null;
  const lineSide = diff.a.source === 'line' || diff.b.source === 'line';
  return (
    <header className="space-y-3">
      <nav aria-label="breadcrumb" className="text-sm text-muted">
        <Link href="/" prefetch={false} className="hover:text-fg">Runs</Link> / <span className="text-fg">Diff</span>
      </nav>
      <h1 className="text-xl font-semibold">Diff of two rollouts</h1>
      <div className="grid gap-3 md:grid-cols-2">
        <Side label="a" s={diff.a} />
        <Side label="b" s={diff.b} />
      </div>
      <p className="text-sm" aria-label="diff summary">
        {formatCount(diff.pairs.length)} aligned pairs: {formatCount(counts.same)} the same, {formatCount(counts.different)} different, {formatCount(counts.a_only)} in a only,{' '}
        {formatCount(counts.b_only)} in b only{counts.unknown ? `, ${formatCount(counts.unknown)} without payloads to compare` : ''}. In all, b − a: <span className="tabular-nums">{signedCount(sum(diff.pairs.map((p) => p.tokens_delta)))}</span> tokens,{' '}
        <span className="tabular-nums">{signedMs(sum(diff.pairs.map((p) => p.latency_delta)))}</span> latency.
      </p>
      <p role="status" aria-label="first divergence" className="text-sm">
        {d && at ? (
          <>
            <Badge tone="warn">first divergence</Badge> pair {d.pair}: a call {at.a_call ?? '—'}, b call {at.b_call ?? '—'}:{' '}
            {d.in === 'request' ? 'the requests differ' : d.in === 'response' ? 'the same request, different responses' : `a call only ${at.a_call === null ? 'b' : 'a'} has`}.
          </>
        ) : (
          <>
            <Badge tone="good">no divergence</Badge> every pair {counts.unknown ? 'that has payloads ' : ''}has the same requests and responses (ids, timestamps and usage aside).
          </>
        )}
      </p>
      {lineSide ? (
        <p className="text-sm text-muted">
          A rollout without captured calls is diffed as its line&apos;s conversation: <code>responses_create_params</code> as the request and <code>response</code> as the
          response, one call.
        </p>
      ) : null}
    </header>
  );
}
