'use client';

import { DASH, formatClock, utcIso } from '@/lib/view/format';
import { useHydrated } from './use-hydrated';

/**
 * Unix seconds in the viewer's time zone, UTC on hover. The server (and hydration) render the same pattern in
 * UTC, since the viewer's zone is not known there. Patterns take formatClock's tokens (yyyy MM dd HH mm ss SSS).
 */
export function LocalTime({ seconds, pattern = 'yyyy-MM-dd HH:mm:ss' }: { seconds: number | null; pattern?: string }) {
  const hydrated = useHydrated();
  if (seconds === null) return <span className="text-muted">{DASH}</span>;
  const date = new Date(seconds * 1000);
  const utc = utcIso(seconds);
  return (
    <time dateTime={utc} title={`${utc} (UTC)`}>
      {formatClock(date, pattern, hydrated ? 'local' : 'utc')}
    </time>
  );
}
