import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { rolloutHref, runHref } from '@/components/calls/call-href';
import { CopyPageLink } from '@/components/calls/copy-page-link';
import { LongText } from '@/components/payload/long-text';
import { ToolCallFacts } from '@/components/trajectory/tool-call-facts';
import { toolCallHref } from '@/components/trajectory/trajectory-href';
import { Card } from '@/components/ui/card';
import { RolloutKeySchema, RunIdSchema } from '@/lib/api/schemas';
import { getInstance } from '@/lib/server/instance';
import { findToolCall, toolCallDetail } from '@/lib/view/trajectory-tool';
import { loadTrajectoryParts } from '../../_components/load-trajectory';

export const dynamic = 'force-dynamic';

type Props = { params: Promise<{ run: string; rollout: string; tool: string }>; searchParams: Promise<{ invocation?: string | string[] }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { rollout, tool } = await params;
  return { title: `${tool} · ${rollout}` };
}

/** One tool call of the rollout's trajectory: its arguments and output, status, timing, sandbox, and neighbours. */
export default async function ToolCallPage({ params, searchParams }: Props) {
  const { run, rollout, tool } = await params;
  const invocation = (await searchParams).invocation;
  if (!RunIdSchema.safeParse(run).success || !RolloutKeySchema.safeParse(rollout).success || tool.length > 1000 || Array.isArray(invocation)) notFound();
  const { index } = await getInstance();
  const parts = await loadTrajectoryParts(index, run, rollout);
  const found = parts ? findToolCall(parts, tool, invocation ?? null) : null;
  if (!parts || !found) notFound();
  const t = parts.toolCalls[found.index];
  const detail = toolCallDetail(parts, found.index);
  return (
    <div className="space-y-5">
      <nav aria-label="breadcrumb" className="text-sm text-muted">
        <Link href="/" prefetch={false} className="hover:text-fg">Runs</Link> / <Link href={runHref(run)} prefetch={false} className="hover:text-fg">{run}</Link> /{' '}
        <Link href={rolloutHref(run, rollout)} prefetch={false} className="hover:text-fg">{rollout}</Link> / <span className="text-fg">tool call {t.tool_call_id}</span>
      </nav>
      <div className="flex flex-wrap items-center gap-2">
        <h1 className="text-xl font-semibold break-all">{t.tool_name ?? detail.call?.name ?? 'Tool call'}</h1>
        <code className="font-mono text-xs text-muted">{t.tool_call_id}</code>
        <div className="ml-auto">
          <CopyPageLink label="Copy link" />
        </div>
      </div>
      <ToolCallFacts run={run} rollout={rollout} parts={parts} j={found.index} detail={detail} />
      {found.others.length ? (
        <p className="text-sm text-muted">
          The same tool_call_id also appears in:{' '}
          {found.others.map((j) => (
            <Link key={j} href={toolCallHref(run, rollout, parts.toolCalls[j].invocation_id, t.tool_call_id)} prefetch={false} className="mr-2 font-mono text-accent hover:underline">
              {parts.toolCalls[j].invocation_id}
            </Link>
          ))}
        </p>
      ) : null}
      <Card title="Arguments">
        {detail.call ? <LongText text={detail.call.arguments || '(empty)'} className="font-mono" /> : <p className="text-sm text-muted">No function_call item with this call_id in the invocations&apos; conversations: the arguments are not recorded.</p>}
      </Card>
      <Card title="Output">
        {detail.output ? (
          <div className="space-y-2">
            <p className="text-xs text-muted">{detail.output.from === 'trajectory' ? "The trajectory's output of this tool call." : "From the conversation's function_call_output item (the trajectory has none)."}</p>
            <LongText text={detail.output.text} className="font-mono" />
          </div>
        ) : (
          <p className="text-sm text-muted">No output recorded: neither the trajectory nor the conversation holds one for this tool call.</p>
        )}
      </Card>
    </div>
  );
}
