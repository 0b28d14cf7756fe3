import Link from 'next/link';
import { runHref } from '@/components/calls/call-href';
import { DiffWithForm } from '@/components/diff/diff-with-form';
import { LiveRefresh } from '@/components/live/live-refresh';
import { Badge } from '@/components/ui/badge';
import { LocalTime } from '@/components/ui/local-time';
import { OutcomeBadges } from '@/components/rollouts/outcome-badges';
import type { RolloutItem } from '@/lib/api/schemas';
import { ROLLOUT_SOURCE_INFO } from '@/lib/capture/vocabulary';
import { nothingRead } from '@/lib/rollouts/line-problem';
import { formatCount, formatMs, formatReward, formatTokens } from '@/lib/view/format';
import { taskViewHref } from '@/lib/view/task-view';
import { shownTokens, USAGE_NOTE, usageShown, type TokenField } from '@/lib/view/table';

function Stat({ label, value, title, italic = false }: { label: string; value: string; title?: string; italic?: boolean }) {
  return (
    <div title={title ?? value} className="min-w-0">
      <dt className="text-xs text-muted">{label}</dt>
      <dd className={`truncate font-semibold tabular-nums${italic ? ' italic' : ''}`}>{value}</dd>
    </div>
  );
}

const TOKEN_STATS: [TokenField, string][] = [
  ['tokens_in', 'Tokens in'],
  ['tokens_out', 'Tokens out'],
  ['tokens_reasoning', 'Reasoning'],
  ['cached_tokens', 'Cached'],
  ['tokens_total', 'Total'],
];

export interface AttachedTotals {
  calls: number | null;
  tokensTotal: number | null;
}

/** Who the rollout is (ids, reward, attempt, task, agent), its totals with units, and its state flags. */
export function RolloutHeader({ run, r, attached, best }: { run: string; r: RolloutItem; attached: AttachedTotals; best: { key: string; reward: number | null } | null }) {
  const wallMs = r.started_at !== null && r.completed_at !== null ? (r.completed_at - r.started_at) * 1000 : null;
  const u = r.response_usage;
  const unknown = r.source === 'none';
  return (
    <header className="space-y-3">
      <nav aria-label="breadcrumb" className="text-sm text-muted">
        <Link href="/" prefetch={false} className="hover:text-fg">Runs</Link> / <Link href={runHref(run)} prefetch={false} className="hover:text-fg">{run}</Link> / <span className="text-fg">{r.key}</span>
      </nav>
      <div className="flex flex-wrap items-center gap-2">
        <h1 className="font-mono text-xl font-semibold break-all">{r.rollout_id ?? `line ${r.line_no ?? '?'}`}</h1>
        {r.failure_class ? <Badge tone="bad" title="A failed attempt (from the failures file)">failed: {r.failure_class}</Badge> : null}
        {r.incomplete ? <Badge tone="warn" title="The .capture.incomplete marker exists: at least one call failed to persist">incomplete</Badge> : null}
        {r.unreadable > 0 ? <Badge tone="warn" title="Damaged capture lines, excluded from the numbers">{r.unreadable} unreadable</Badge> : null}
        {r.attachment_mismatch ? (
          <Badge title="The rollout line's own ng_model_call_capture disagrees with the capture dir; this page shows the capture dir">
            attachment mismatch: line says {formatCount(attached.calls)} calls / {formatTokens(attached.tokensTotal)}
          </Badge>
        ) : null}
        {r.errors > 0 ? <Badge tone="bad">{r.errors} error{r.errors === 1 ? '' : 's'}</Badge> : null}
        <LiveRefresh runs={[run]} rollout={r.key} className="ml-auto" />
      </div>
      {r.line_problem ? (
        <p role="alert" className="rounded-md border border-bad/40 bg-bad/10 px-3 py-2 text-sm text-bad">
          Line {r.line_no ?? '?'} of the {r.failure_class ? 'failures' : 'rollouts'} file could not be read: {r.line_problem}.{' '}
          {nothingRead(r.line_problem)
            ? 'It is listed so that no line goes missing; nothing else could be read from it.'
            : 'It is listed by its line number; its other fields are shown as read.'}
        </p>
      ) : null}
      <dl className="grid grid-cols-2 gap-x-8 gap-y-2 rounded-lg border border-line bg-panel px-4 py-3 text-sm sm:grid-cols-4 lg:grid-cols-7">
        <Stat label="Reward" value={formatReward(r.reward)} />
        <Stat label="Attempt" value={r.attempt === null ? '—' : String(r.attempt)} />
        <Stat label="Task / rollout index" value={`${r.task_index ?? '—'} / ${r.rollout_index ?? '—'}`} title={r.task ?? undefined} />
        <Stat label="Agent" value={r.agent ?? '—'} />
        <Stat label="Calls" value={unknown ? 'unknown' : formatCount(r.num_calls)} title={unknown ? ROLLOUT_SOURCE_INFO.none.meaning : undefined} />
        <Stat label="Errors" value={unknown ? 'unknown' : formatCount(r.errors)} title={unknown ? ROLLOUT_SOURCE_INFO.none.meaning : r.error_categories.join(', ') || undefined} />
        <Stat label="Wall time" value={formatMs(wallMs)} title="first call start to last call end" />
        {TOKEN_STATS.map(([field, name]) => {
          const shown = shownTokens(r, r.num_calls, field);
          return (
            <Stat
              key={field}
              label={name}
              value={formatTokens(shown.value)}
              italic={shown.fromUsage}
              title={`${formatCount(shown.value)}${shown.fromUsage ? ` — ${USAGE_NOTE}` : ''}`}
            />
          );
        })}
        <Stat label="Latency sum / max" value={`${formatMs(r.latency_sum)} / ${formatMs(r.latency_max)}`} />
        <Stat label="TTFT p50" value={formatMs(r.ttft_p50)} />
      </dl>
      {usageShown(r, r.num_calls) ? (
        <p className="text-sm text-muted">
          Token figures in <span className="italic">italics</span> are the rollout line&apos;s own <code>response.usage</code>: this rollout has no
          captured calls.
        </p>
      ) : null}
      {u && !usageShown(r, r.num_calls) ? (
        <p className="text-sm text-muted" title="What the agent's final response reports in response.usage; it may count its last turn only or the whole rollout. The figures above are the captured calls' sums.">
          response.usage on the rollout line: in <span className="text-fg tabular-nums">{formatTokens(u.tokens_in)}</span> · out{' '}
          <span className="text-fg tabular-nums">{formatTokens(u.tokens_out)}</span> · reasoning <span className="text-fg tabular-nums">{formatTokens(u.tokens_reasoning)}</span> ·
          cached <span className="text-fg tabular-nums">{formatTokens(u.cached_tokens)}</span> · total <span className="text-fg tabular-nums">{formatTokens(u.tokens_total)}</span>
        </p>
      ) : null}
      <RewardEvidence r={r} />
      <div className="flex flex-wrap gap-x-6 gap-y-1 text-sm text-muted">
        {r.task ? <span className="max-w-full truncate" title={r.task}>task: <span className="text-fg">{r.task}</span></span> : null}
        <span>servers: <span className="text-fg">{r.model_servers.join(', ') || '—'}</span></span>
        <span>dialects: <span className="text-fg">{r.dialects.join(', ') || '—'}</span></span>
        <span title={ROLLOUT_SOURCE_INFO[r.source].meaning}>calls from: <span className="text-fg">{ROLLOUT_SOURCE_INFO[r.source].title}</span></span>
        <span>started: <span className="text-fg"><LocalTime seconds={r.started_at} /></span></span>
        {r.task_index !== null && !r.failure_class ? (
          <Link href={taskViewHref(run, { agent: r.agent ?? '' }, r.task_index)} className="text-accent hover:underline">
            task {r.task_index}&apos;s group
          </Link>
        ) : null}
      </div>
      <DiffWithForm run={run} rollout={r.key} best={best} />
    </header>
  );
}

/** What decided the reward, from the line: the prompt, the expected and the extracted answer, the outcome fields. */
function RewardEvidence({ r }: { r: RolloutItem }) {
  const answers = r.expected_answer !== null || r.extracted_answer !== null;
  if (r.prompt === null && !answers && !r.outcome) return null;
  return (
    <dl aria-label="reward evidence" className="space-y-1.5 rounded-lg border border-line px-4 py-3 text-sm">
      {r.prompt !== null ? (
        <div className="flex gap-2">
          <dt className="w-20 shrink-0 text-muted">Prompt</dt>
          <dd className="line-clamp-3 min-w-0 break-words whitespace-pre-wrap" title={r.prompt}>
            {r.prompt}
          </dd>
        </div>
      ) : null}
      {answers ? (
        <div className="flex gap-2">
          <dt className="w-20 shrink-0 text-muted">Answer</dt>
          <dd className="min-w-0 break-words">
            expected <code className="font-mono text-fg">{r.expected_answer ?? '—'}</code> · extracted <code className="font-mono text-fg">{r.extracted_answer ?? '—'}</code>
            {r.expected_answer !== null && r.extracted_answer !== null ? (
              <span className={r.expected_answer === r.extracted_answer ? 'ml-2 text-good' : 'ml-2 text-bad'}>{r.expected_answer === r.extracted_answer ? 'same text' : 'different text'}</span>
            ) : null}
          </dd>
        </div>
      ) : null}
      {r.outcome ? (
        <div className="flex gap-2">
          <dt className="w-20 shrink-0 text-muted">Outcome</dt>
          <dd className="min-w-0">
            <OutcomeBadges outcome={r.outcome} failure={null} />
          </dd>
        </div>
      ) : null}
    </dl>
  );
}
