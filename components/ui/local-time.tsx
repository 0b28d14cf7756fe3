'use client';

import { format } from 'date-fns';
import { DASH, utcIso } from '@/lib/view/format';
import { useHydrated } from './use-hydrated';

/** The same wall-clock pattern in UTC (what the server can render before the viewer's zone is known). */
function formatUtc(date: Date, pattern: string): string {
  return format(new Date(date.getTime() + date.getTimezoneOffset() * 60_000), pattern);
}

/** Unix seconds in the viewer's time zone, UTC on hover. The server (and hydration) render UTC. */
export function LocalTime({ seconds, pattern = 'yyyy-MM-dd HH:mm:ss' }: { seconds: number | null; pattern?: string }) {
  const hydrated = useHydrated();
  if (seconds === null) return <span className="text-muted">{DASH}</span>;
  const date = new Date(seconds * 1000);
  const utc = utcIso(seconds);
  return (
    <time dateTime={utc} title={`${utc} (UTC)`}>
      {hydrated ? format(date, pattern) : formatUtc(date, pattern)}
    </time>
  );
}
