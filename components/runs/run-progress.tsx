import { Progress } from '@/components/ui/progress';
import type { Run } from '@/lib/api/schemas';
import { formatBytes, formatCount } from '@/lib/view/format';

/** Indexing state of a run that is not ready: how much has been read so far, or why it failed. */
export function RunProgress({ progress }: { progress: Run['progress'] }) {
  const read = `${formatCount(progress.files_read)} files · ${formatBytes(progress.bytes_read)} · ${formatCount(progress.lines_read)} lines read`;
  if (progress.state === 'error') {
    return (
      <div className="mt-1 text-xs text-bad" title={progress.error ?? undefined}>
        <Progress value={1} tone="bad" label="indexing failed" className="mb-1 w-40" />
        indexing failed: {progress.error ?? 'unknown error'}
      </div>
    );
  }
  return (
    <div className="mt-1 text-xs text-muted">
      <Progress value={null} label={`${progress.state}: ${read}`} className="mb-1 w-40" />
      {progress.state === 'pending' ? 'waiting to index' : `indexing · ${read}`}
    </div>
  );
}
