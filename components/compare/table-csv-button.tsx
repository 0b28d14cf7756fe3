'use client';

import { Download } from 'lucide-react';
import { Button } from '@/components/ui/button';
import { saveText } from '@/components/ui/save-file';
import type { CompareTable } from '@/lib/view/compare';
import { csvFileName, csvRow } from '@/lib/view/csv';

/** Downloads a comparison table as CSV: raw values (tokens, milliseconds), unknown as empty cells. */
export function TableCsvButton({ table, runs }: { table: CompareTable; runs: string[] }) {
  const download = () => {
    const lines = [csvRow(table.headers), ...table.rows.map((r) => csvRow(r.map((c) => c.value)))];
    saveText(csvFileName('compare', table.id, ...runs), lines.join('\r\n') + '\r\n');
  };
  return (
    <Button variant="ghost" onClick={download} title={`Download "${table.title}" as CSV`}>
      <Download size={14} aria-hidden /> CSV
    </Button>
  );
}
