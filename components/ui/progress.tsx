import { cn } from './cn';

/** A progress bar; without a known fraction it shows activity instead of a made-up percentage. */
export function Progress({ value, label, tone = 'accent', className }: { value: number | null; label: string; tone?: 'accent' | 'bad'; className?: string }) {
  const known = value !== null && Number.isFinite(value);
  return (
    <div
      role="progressbar"
      aria-label={label}
      aria-valuemin={known ? 0 : undefined}
      aria-valuemax={known ? 100 : undefined}
      aria-valuenow={known ? Math.round(value * 100) : undefined}
      className={cn('relative h-1.5 w-full overflow-hidden rounded-full bg-line', className)}
    >
      <div
        className={cn('absolute inset-y-0 left-0 rounded-full', tone === 'bad' ? 'bg-bad' : 'bg-accent', known ? '' : 'w-2/5 animate-pulse')}
        style={known ? { width: `${Math.min(100, Math.max(0, value * 100))}%` } : undefined}
      />
    </div>
  );
}
