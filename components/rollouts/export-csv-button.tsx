'use client';

import { Download, X } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { Button } from '@/components/ui/button';
import { saveText } from '@/components/ui/save-file';
import { csvFileName, toCsv } from '@/lib/view/csv';
import { formatCount } from '@/lib/view/format';
import { ROLLOUT_CSV_COLUMNS, viewParams, type RolloutView } from '@/lib/view/table';
import { fetchAllRollouts } from './fetch-page';

/** Downloads every rollout of the view (all pages, same sort and filters) as CSV, built in the browser. */
export function ExportCsvButton({ run, view, total }: { run: string; view: RolloutView; total: number }) {
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const controller = useRef<AbortController | null>(null);
  useEffect(() => () => controller.current?.abort(), []);

  const start = async () => {
    const c = new AbortController();
    controller.current = c;
    setError(null);
    setProgress({ done: 0, total });
    try {
      const rows = await fetchAllRollouts(run, view, (done, all) => setProgress({ done, total: all }), c.signal);
      const filters = viewParams(view).toString();
      saveText(csvFileName(run, 'rollouts', filters ? 'filtered' : ''), toCsv(ROLLOUT_CSV_COLUMNS, rows));
    } catch (err) {
      if (!c.signal.aborted) setError((err as Error).message);
    } finally {
      setProgress(null);
      controller.current = null;
    }
  };

  if (progress) {
    return (
      <Button variant="outline" onClick={() => controller.current?.abort()} title="Cancel the export">
        <X size={14} aria-hidden /> Exporting {formatCount(progress.done)} / {formatCount(progress.total)}
      </Button>
    );
  }
  return (
    <span className="inline-flex items-center gap-2">
      {error ? <span className="text-xs text-bad">Export failed: {error}</span> : null}
      <Button variant="outline" onClick={start} disabled={total === 0} title="Download every rollout of this view (all pages) as CSV">
        <Download size={14} aria-hidden /> CSV
      </Button>
    </span>
  );
}
