import { formatCount, formatMs, utcIso } from '@/lib/view/format';
import type { CallColumns } from '@/lib/api/call-schemas';
import { stringAt } from '@/lib/view/series';

function Row({ label, value, tone }: { label: string; value: string; tone?: string }) {
  return (
    <>
      <dt className="text-muted">{label}</dt>
      <dd className={tone}>{value}</dd>
    </>
  );
}

/** The details of the hovered call, next to the pointer (flipped to stay inside the chart). */
export function TimelineTooltip({ c, i, x, y, width }: { c: CallColumns; i: number; x: number; y: number; width: number }) {
  const error = stringAt(c, c.error_category[i]);
  const start = c.start_ms[i];
  const left = x + 300 > width ? Math.max(0, x - 300) : x + 14;
  return (
    <div role="tooltip" className="pointer-events-none absolute z-10 w-[284px] rounded-md border border-line bg-bg p-2.5 text-xs shadow-lg" style={{ left, top: y + 14 }}>
      <p className="mb-1.5 font-semibold">
        Call #{c.call_index[i]} <span className="font-normal text-muted">· click to open</span>
      </p>
      <dl className="grid grid-cols-[88px_1fr] gap-x-2 gap-y-0.5">
        <Row label="server" value={stringAt(c, c.model_server[i]) ?? '—'} />
        <Row label="model" value={stringAt(c, c.model[i]) ?? '—'} />
        <Row label="status" value={`${c.status_code[i] ?? '—'}${error ? ` · ${error}` : ''}`} tone={error ? 'text-bad' : undefined} />
        <Row label="finish" value={stringAt(c, c.finish_reason[i]) ?? '—'} />
        <Row label="started" value={start === null ? '—' : `+${formatMs(start)} (${c.t0 === null ? '' : utcIso(c.t0 + start / 1000)})`} />
        <Row label="latency" value={formatMs(c.latency_ms[i])} />
        <Row label="TTFT" value={formatMs(c.ttft_ms[i])} />
        <Row label="tokens" value={`${formatCount(c.tokens_in[i])} in · ${formatCount(c.tokens_out[i])} out`} />
        <Row label="cached" value={formatCount(c.cached_tokens[i])} />
        <Row label="tool calls" value={String(c.tool_calls[i])} />
      </dl>
    </div>
  );
}
