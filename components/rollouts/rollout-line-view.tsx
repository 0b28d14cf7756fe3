'use client';

// The rollout's own line of its rollouts file (the prompt in responses_create_params, the agent's final response,
// the reward and task fields, any trajectory): for a run collected without capture it is all there is to read.
// Fetched by the browser from /line when opened; open at once when the rollout has no captured calls, or when the
// address names a node inside it (`#/line/...`).
import { useState } from 'react';
import { useHashPointer } from '@/components/calls/use-hash-pointer';
import { JsonTree } from '@/components/payload/json-tree';
import { LongText } from '@/components/payload/long-text';
import { buttonClass } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { formatBytes } from '@/lib/view/format';
import { rolloutLineUrl, useRolloutLine } from './use-rollout-line';

const BASE = '/line';

export function RolloutLineView({ run, rollout, bytes, openAtOnce }: { run: string; rollout: string; bytes: number; openAtOnce: boolean }) {
  const target = useHashPointer();
  const named = target !== null && (target === BASE || target.startsWith(`${BASE}/`));
  const [opened, setOpened] = useState(false);
  const open = opened || openAtOnce || named;
  const url = rolloutLineUrl(run, rollout);
  const line = useRolloutLine(open ? url : null);
  const actions = (
    <>
      <span className="text-xs text-muted">{formatBytes(bytes)}</span>
      <a href={`${url}?download`} className={buttonClass('outline', undefined, 'sm')}>
        Download
      </a>
      {open ? null : (
        <button type="button" className={buttonClass('outline', undefined, 'sm')} onClick={() => setOpened(true)}>
          Show
        </button>
      )}
    </>
  );
  return (
    <Card title="Rollout line" actions={actions}>
      {!open ? (
        <p className="text-sm text-muted">The rollout&apos;s own line of its rollouts file: prompt, final response, reward and task fields.</p>
      ) : line.status === 'ready' ? (
        line.value.text === null ? (
          <JsonTree value={line.value.value} basePointer={BASE} target={named ? target : null} label="rollout line" />
        ) : (
          <div className="space-y-2">
            <p className="text-sm text-muted">Not JSON that a browser reads (Python&apos;s json reads NaN, Infinity and a BOM); the line as text:</p>
            <div className="font-mono">
              <LongText text={line.value.text} />
            </div>
          </div>
        )
      ) : line.status === 'error' ? (
        <p className="text-sm text-bad">The rollout line could not be loaded: {line.message}</p>
      ) : (
        <p className="text-sm text-muted">Loading the rollout line…</p>
      )}
    </Card>
  );
}
