import Link from 'next/link';
import { callHref } from '@/components/calls/call-href';
import { Badge } from '@/components/ui/badge';
import { LocalTime } from '@/components/ui/local-time';
import { TIMING_SOURCE_INFO } from '@/lib/capture/vocabulary';
import { formatCount, formatMs } from '@/lib/view/format';
import { callName } from '@/lib/view/trajectory-describe';
import type { TrajectoryParts } from '@/lib/view/trajectory-read';
import { measuredInterval, Timing } from '@/lib/view/trajectory-timing';
import type { ToolCallDetail } from '@/lib/view/trajectory-tool';
import { invocationHref } from './trajectory-href';
import { Fact } from './fact';

const TONE: Record<string, 'good' | 'bad' | 'warn' | 'neutral'> = { completed: 'good', failed: 'bad', timeout: 'bad', cancelled: 'warn', incomplete: 'warn' };

function CallRef({ run, rollout, parts, i, none }: { run: string; rollout: string; parts: TrajectoryParts; i: number; none: string }) {
  if (i < 0) return <span className="font-normal text-muted">{none}</span>;
  const id = parts.modelCalls[i].model_call_id;
  return id ? (
    <Link href={callHref(run, rollout, id)} prefetch={false} className="font-mono text-accent hover:underline">
      {id}
    </Link>
  ) : (
    <span className="font-mono">{callName(parts, i)}</span>
  );
}

/** A tool call's status, timing and where it was measured, its sandbox, its invocation and the calls around it. */
export function ToolCallFacts({ run, rollout, parts, j, detail }: { run: string; rollout: string; parts: TrajectoryParts; j: number; detail: ToolCallDetail }) {
  const t = parts.toolCalls[j];
  const m = measuredInterval(t.started_at, t.completed_at, t.duration_ms);
  const sandbox = t.sandbox_id !== null ? parts.sandboxes.find((s) => s.sandbox_id === t.sandbox_id) : undefined;
  const source = t.timing_source ? TIMING_SOURCE_INFO[t.timing_source] : null;
  const refs = { run, rollout, parts };
  return (
    <dl aria-label="tool call" className="grid grid-cols-2 gap-x-8 gap-y-3 rounded-lg border border-line bg-panel px-4 py-3 text-sm sm:grid-cols-3 lg:grid-cols-4">
      <Fact label="Invocation">
        {parts.invocations.some((i) => i.invocation_id === t.invocation_id) ? (
          <Link href={invocationHref(run, rollout, t.invocation_id)} prefetch={false} className="font-mono text-accent hover:underline">
            {t.invocation_id}
          </Link>
        ) : (
          <span className="font-mono">
            {t.invocation_id} <span className="font-sans font-normal text-warn">(not among the trajectory&apos;s invocations)</span>
          </span>
        )}
      </Fact>
      <Fact label="Status">
        <Badge tone={TONE[t.status] ?? 'neutral'}>{t.status}</Badge>
      </Fact>
      <Fact label="Error type">{t.error_type ?? '—'}</Fact>
      <Fact label="Timing">
        {m.timing === Timing.unplaced ? (
          <span className="text-warn">not measured{t.duration_ms !== null ? ` (took ${formatMs(t.duration_ms)}, when is not recorded)` : ''}</span>
        ) : m.timing === Timing.partial ? (
          <span className="text-warn">
            {m.start !== null ? 'started' : 'ended'} <LocalTime seconds={m.start ?? m.end} pattern="yyyy-MM-dd HH:mm:ss.SSS" />; the other end not measured
          </span>
        ) : (
          <span>
            <LocalTime seconds={m.start} pattern="yyyy-MM-dd HH:mm:ss.SSS" /> · took {formatMs((m.end! - m.start!) * 1000)}
          </span>
        )}
      </Fact>
      <Fact label="Measured by">{source ? <span title={source.meaning}>{source.title}: <span className="font-normal text-muted">{source.meaning}</span></span> : m.timing === Timing.unplaced ? '—' : 'not said (timing_source is null)'}</Fact>
      <Fact label="Sandbox">
        {t.sandbox_id === null ? (
          '—'
        ) : (
          <span>
            <code className="font-mono">{t.sandbox_id}</code>
            {sandbox ? (
              <span className="block text-xs font-normal text-muted">
                {sandbox.role} · {sandbox.outcome} · exit {sandbox.exit_code ?? '—'} · wall {sandbox.wall_time_s === null ? '—' : formatMs(sandbox.wall_time_s * 1000)} · CPU{' '}
                {sandbox.cpu_time_s === null ? '—' : formatMs(sandbox.cpu_time_s * 1000)} · peak {sandbox.peak_memory_mib === null ? '—' : `${formatCount(Math.round(sandbox.peak_memory_mib))} MiB`} (the sandbox&apos;s,
                shared by the calls that ran in it)
              </span>
            ) : (
              <span className="block text-xs font-normal text-muted">no sandbox observation with this id</span>
            )}
          </span>
        )}
      </Fact>
      <Fact label={detail.neighbours.requesting >= 0 ? 'Requested by (call before)' : 'Call before'}>
        <CallRef {...refs} i={detail.neighbours.before} none={m.timing === Timing.unplaced ? 'unknown: no call is known to have requested it' : 'none of its invocation ended before it'} />
      </Fact>
      <Fact label="Call after">
        <CallRef {...refs} i={detail.neighbours.after} none="none: no later call of its invocation" />
      </Fact>
      {detail.spawned.length ? (
        <Fact label="Spawned">
          {detail.spawned.map((s) => (
            <Link key={s.invocation_id} href={invocationHref(run, rollout, s.invocation_id)} prefetch={false} className="mr-2 font-mono text-accent hover:underline">
              {s.invocation_id}
            </Link>
          ))}
        </Fact>
      ) : null}
    </dl>
  );
}
