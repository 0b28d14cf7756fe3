// What the trajectory views say about one item (the tooltip, the outline, the selected item): its name, status, when
// it ran or that this was not measured, and its facts, in the spec's words. Unknown stays unknown: a missing count
// is a dash, an unmeasured time says so and names the calls it is drawn between.
import { TIMING_SOURCE_INFO } from '../capture/vocabulary';
import { formatCount, formatMs } from './format';
import { ItemKind, type TrajectoryLayout } from './trajectory-layout';
import type { TrajectoryParts } from './trajectory-read';
import { Timing } from './trajectory-timing';

export type Tone = 'bad' | 'warn' | 'good' | null;
export type Fact = [label: string, value: string, tone?: Tone];

export interface ItemDescription {
  kind: 'model call' | 'tool call' | 'compaction' | 'sandbox run';
  title: string;
  status: string | null;
  tone: Tone;
  /** When it ran, in time after the trajectory's start, or what is known instead. */
  when: string;
  /** The lane group (invocation) it belongs to. */
  group: string;
  facts: Fact[];
}

const STATUS_TONE: Record<string, Tone> = { completed: 'good', failed: 'bad', timeout: 'bad', oom: 'bad', sandbox_error: 'bad', cancelled: 'warn', incomplete: 'warn', aborted: 'warn' };
const toneOf = (status: string | null): Tone => (status ? (STATUS_TONE[status] ?? null) : null);
const dash = (v: string | number | null | undefined) => (v === null || v === undefined || v === '' ? '—' : String(v));

export function groupLabel(layout: TrajectoryLayout, g: number): string {
  const group = layout.groups[g];
  if (!group) return '—';
  if (group.kind === 'unowned') return 'calls owned by no invocation';
  if (group.kind === 'run') return 'sandbox runs no tool call ran in';
  return group.id ?? '—';
}

/** A model call by its id, or its position when it has none. */
export function callName(parts: TrajectoryParts, i: number): string {
  const c = parts.modelCalls[i];
  return c ? (c.model_call_id ?? `model call ${i + 1} (no id)`) : '—';
}

function measuredWhen(l: TrajectoryLayout, item: number): string {
  const at = `+${formatMs(l.x0[item])}`;
  return l.x1[item] > l.x0[item] ? `${at} · ${formatMs(l.x1[item] - l.x0[item])}` : at;
}

function toolWhen(parts: TrajectoryParts, l: TrajectoryLayout, item: number): string {
  const t = parts.toolCalls[l.src[item]];
  const j = l.src[item];
  switch (l.timing[item]) {
    case Timing.measured:
      return measuredWhen(l, item);
    case Timing.partial:
      return t.started_at !== null ? `started +${formatMs(l.x0[item])}; end not measured` : `ended +${formatMs(l.x0[item])}; start not measured`;
    case Timing.between:
      return `not measured; drawn between ${callName(parts, l.requesting[j])}, which requested it, and ${l.nextCall[j] >= 0 ? callName(parts, l.nextCall[j]) : 'the end of its invocation (no later call)'}`;
    default:
      return t.duration_ms !== null ? `not measured when; took ${formatMs(t.duration_ms)}` : 'not measured (no call that requested it is known, so it is listed, not drawn)';
  }
}

function compactionWhen(parts: TrajectoryParts, l: TrajectoryLayout, item: number): string {
  const links = l.compactionCalls[l.src[item]];
  if (l.timing[item] === Timing.measured) return `observed at +${formatMs(l.x0[item])}`;
  if (l.timing[item] === Timing.between) return `time not recorded; between ${callName(parts, links.before)} and ${callName(parts, links.after)}`;
  if (l.timing[item] === Timing.partial) return links.before >= 0 ? `time not recorded; after ${callName(parts, links.before)}` : `time not recorded; before ${callName(parts, links.after)}`;
  return 'time not recorded, and neither its before nor its after call is placed';
}

export function describeItem(parts: TrajectoryParts, l: TrajectoryLayout, item: number): ItemDescription {
  const group = groupLabel(l, l.group[item]);
  const j = l.src[item];
  if (l.kind[item] === ItemKind.modelCall) {
    const c = parts.modelCalls[j];
    const m = c.response_metadata;
    const s = c.token_stats;
    const failed = m.error_category !== null || (m.status_code !== null && m.status_code >= 400);
    return {
      kind: 'model call',
      title: callName(parts, j),
      status: m.error_category ?? (m.status_code !== null ? String(m.status_code) : null),
      tone: failed ? 'bad' : null,
      when: l.timing[item] === Timing.unplaced ? 'not measured' : l.timing[item] === Timing.partial ? `+${formatMs(l.x0[item])}; one end not measured` : measuredWhen(l, item),
      group,
      facts: [
        ['server', dash(m.model_ref?.name)],
        ['model', dash(m.model)],
        ['status', `${dash(m.status_code)}${m.error_category ? ` · ${m.error_category}` : ''}`, failed ? 'bad' : null],
        ['finish', dash(m.finish_reason)],
        ['TTFT', formatMs(m.latency_ttft_ms)],
        ['tokens', `${formatCount(s.prompt_tokens)} in · ${formatCount(s.completion_tokens)} out`],
        ['cached', formatCount(s.cached_tokens)],
      ],
    };
  }
  if (l.kind[item] === ItemKind.toolCall) {
    const t = parts.toolCalls[j];
    const source = t.timing_source ? TIMING_SOURCE_INFO[t.timing_source].title : null;
    return {
      kind: 'tool call',
      title: t.tool_name ?? t.tool_call_id,
      status: t.status,
      tone: toneOf(t.status),
      when: toolWhen(parts, l, item),
      group,
      facts: [
        ['id', t.tool_call_id],
        ['status', t.status, toneOf(t.status)],
        ['error', dash(t.error_type), t.error_type ? 'bad' : null],
        ['timing', l.timing[item] === Timing.measured || l.timing[item] === Timing.partial ? `measured${source ? ` (${source})` : ''}` : 'not measured', l.timing[item] === Timing.measured ? null : 'warn'],
        ['sandbox', dash(t.sandbox_id)],
      ],
    };
  }
  if (l.kind[item] === ItemKind.compaction) {
    const c = parts.compactions[j];
    return {
      kind: 'compaction',
      title: `compaction${c.trigger ? ` (${c.trigger})` : ''}`,
      status: c.outcome,
      tone: toneOf(c.outcome),
      when: compactionWhen(parts, l, item),
      group,
      facts: [
        ['tokens', `${formatCount(c.tokens_before)} → ${formatCount(c.tokens_after)}`],
        ['outcome', c.outcome, toneOf(c.outcome)],
        ['performed by', l.compactionCalls[j].performing.map((i) => callName(parts, i)).join(', ') || '—'],
        ['summary', c.summary === null ? '—' : c.summary.length > 160 ? `${c.summary.slice(0, 159)}…` : c.summary],
      ],
    };
  }
  const s = parts.sandboxes[j];
  return {
    kind: 'sandbox run',
    title: `${s.role} sandbox${s.sandbox_id ? ` ${s.sandbox_id}` : ''}`,
    status: s.outcome,
    tone: toneOf(s.outcome),
    when: l.timing[item] === Timing.toolExtent ? `${measuredWhen(l, item)} (its tool calls' first start to last end; its own start is not recorded)` : 'when it ran is not recorded',
    group,
    facts: [
      ['outcome', s.outcome, toneOf(s.outcome)],
      ['exit code', dash(s.exit_code)],
      ['wall time', s.wall_time_s === null ? '—' : formatMs(s.wall_time_s * 1000)],
      ['CPU time', s.cpu_time_s === null ? '—' : formatMs(s.cpu_time_s * 1000)],
      ['peak memory', s.peak_memory_mib === null ? '—' : `${formatCount(Math.round(s.peak_memory_mib))} MiB`],
      ['provider', dash(s.provider)],
    ],
  };
}
