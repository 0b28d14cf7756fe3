'use client';

import { DASH, formatWhen, formatZone, utcIso } from '@/lib/view/format';
import { useHydrated } from './use-hydrated';

/**
 * Unix seconds in the viewer's time zone, named after the time (UTC+1), UTC on hover. The server (and
 * hydration) render the same pattern in UTC, since the viewer's zone is not known there. Patterns take
 * formatClock's tokens (yyyy MM dd HH mm ss SSS); one without the year gets it, once hydrated, for a time of
 * another year than the viewer's.
 */
export function LocalTime({ seconds, pattern = 'yyyy-MM-dd HH:mm:ss' }: { seconds: number | null; pattern?: string }) {
  const hydrated = useHydrated();
  if (seconds === null) return <span className="text-muted">{DASH}</span>;
  const date = new Date(seconds * 1000);
  const utc = utcIso(seconds);
  const zone = hydrated ? 'local' : 'utc';
  return (
    <time dateTime={utc} title={`${utc} (UTC)`} className="whitespace-nowrap">
      {formatWhen(date, pattern, zone, hydrated ? new Date() : null)} <span className="text-[0.85em] text-muted">{formatZone(date, zone)}</span>
    </time>
  );
}
