// Number and time formatting with units, shared by every view. Null is unknown and shows as an em dash,
// never as 0.

export const DASH = '—';

/**
 * An integer with en-US thousands separators, as `toLocaleString('en-US')` writes it, without Intl: the
 * first Intl call of a page loads ICU's locale data, a sizeable part of the task that hydrates a page.
 * Anything but a safe integer (fractions, -0, huge values) still goes through Intl.
 */
export function groupDigits(n: number): string {
  if (!Number.isSafeInteger(n) || Object.is(n, -0)) return n.toLocaleString('en-US');
  const digits = String(Math.abs(n));
  let out = digits.slice(0, digits.length % 3 || 3);
  for (let i = out.length; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`;
  return n < 0 ? `-${out}` : out;
}

export function formatCount(n: number | null | undefined): string {
  return n === null || n === undefined ? DASH : groupDigits(n);
}

/** 1234 -> "1.2k", 2_500_000 -> "2.5M". */
export function formatCompact(n: number | null | undefined): string {
  if (n === null || n === undefined) return DASH;
  const abs = Math.abs(n);
  if (abs >= 1e9) return `${(n / 1e9).toFixed(1)}B`;
  if (abs >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (abs >= 1e4) return `${(n / 1e3).toFixed(1)}k`;
  return groupDigits(n);
}

export function formatTokens(n: number | null | undefined): string {
  return n === null || n === undefined ? DASH : `${formatCompact(n)} tok`;
}

/** Milliseconds as people write a duration: 850 ms, 12.4 s, 3 min 05 s, 6 h 27 min 52 s, 2 d 03 h 10 min. */
export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return DASH;
  if (ms < 0) return `-${formatMs(-ms)}`;
  if (ms < 1000 && Number(ms.toFixed(ms < 10 ? 2 : 0)) < 1000) return `${ms.toFixed(ms < 10 ? 2 : 0)} ms`;
  if (ms < 59_950) return `${(ms / 1000).toFixed(ms < 9_995 ? 2 : 1)} s`;
  const total = Math.round(ms / 1000);
  const [d, h, m, sec] = [Math.floor(total / 86_400), Math.floor((total % 86_400) / 3600), Math.floor((total % 3600) / 60), total % 60];
  if (d > 0) return `${d} d ${pad(h)} h ${pad(m)} min`;
  if (h > 0) return `${h} h ${pad(m)} min ${pad(sec)} s`;
  return `${m} min ${pad(sec)} s`;
}

/** Rewards with one precision everywhere, so that a column of them lines up: 0.480, 1.000, 0.000. */
export const REWARD_DIGITS = 3;

export function formatReward(r: number | null | undefined): string {
  return r === null || r === undefined ? DASH : r.toFixed(REWARD_DIGITS);
}

export function formatBytes(n: number | null | undefined): string {
  if (n === null || n === undefined) return DASH;
  if (n < 1024) return `${n} B`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(2)} GB`;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');
const CLOCK_TOKENS = /yyyy|MM|dd|HH|mm|ss|SSS/g;

/**
 * A date as `pattern` with the tokens yyyy MM dd HH mm ss SSS (date-fns' meaning), in the viewer's time zone
 * or in UTC; any other character is copied. Replaces date-fns' format in the browser, whose locale tables
 * were evaluated in the task that hydrates every page.
 */
export function formatClock(date: Date, pattern: string, zone: 'local' | 'utc' = 'local'): string {
  const utc = zone === 'utc';
  const parts: Record<string, string> = {
    yyyy: pad(utc ? date.getUTCFullYear() : date.getFullYear(), 4),
    MM: pad((utc ? date.getUTCMonth() : date.getMonth()) + 1),
    dd: pad(utc ? date.getUTCDate() : date.getDate()),
    HH: pad(utc ? date.getUTCHours() : date.getHours()),
    mm: pad(utc ? date.getUTCMinutes() : date.getMinutes()),
    ss: pad(utc ? date.getUTCSeconds() : date.getSeconds()),
    SSS: pad(utc ? date.getUTCMilliseconds() : date.getMilliseconds(), 3),
  };
  return pattern.replace(CLOCK_TOKENS, (t) => parts[t]);
}

/** The zone a clock time is written in, as an offset from UTC: "UTC", "UTC+1", "UTC−5:30" (no Intl, as formatClock). */
export function formatZone(date: Date, zone: 'local' | 'utc' = 'local'): string {
  const east = zone === 'utc' ? 0 : -date.getTimezoneOffset();
  if (east === 0) return 'UTC';
  const abs = Math.abs(east);
  return `UTC${east > 0 ? '+' : '−'}${Math.floor(abs / 60)}${abs % 60 ? `:${pad(abs % 60)}` : ''}`;
}

/**
 * A time as `pattern` (formatClock's tokens), with the year in front when the pattern has none and the time is
 * not in `now`'s year, so that a date of another year never reads as this year's. `now` null: as the pattern
 * says (a server render and its hydration, whose clocks may be in different years, must write the same text).
 */
export function formatWhen(date: Date, pattern: string, zone: 'local' | 'utc' = 'local', now: Date | null = new Date()): string {
  const year = (d: Date) => (zone === 'utc' ? d.getUTCFullYear() : d.getFullYear());
  const shown = now !== null && !pattern.includes('yyyy') && year(date) !== year(now) ? `yyyy-${pattern}` : pattern;
  return formatClock(date, shown, zone);
}

/** Unix seconds as an ISO string in UTC (for titles), and the viewer's local time is rendered client-side. */
export function utcIso(seconds: number | null | undefined): string {
  return seconds === null || seconds === undefined ? DASH : new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
}
