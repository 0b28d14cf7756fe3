import { cx } from '@/components/ui/cn';
import type { LiveStatus } from './use-run-events';

const LABEL: Record<LiveStatus, string> = { open: 'Live', connecting: 'Connecting…', closed: 'Offline' };
const TITLE: Record<LiveStatus, string> = {
  open: 'Connected: this view updates as the run changes',
  connecting: 'Connecting to live updates…',
  closed: 'Live updates are off; reload to reconnect',
};

/**
 * The state of the live connection; pulses while changes are arriving. `className` adds classes (placement),
 * it overrides none, so no tailwind-merge: its first call builds its tables, tens of ms in a page's hydration.
 */
export function LiveIndicator({ status, receiving = false, className }: { status: LiveStatus; receiving?: boolean; className?: string }) {
  return (
    <span role="status" title={receiving ? 'Receiving changes' : TITLE[status]} className={cx('inline-flex items-center gap-1.5 text-xs text-muted', className)}>
      <span className="relative flex size-2">
        {receiving ? <span className="absolute inline-flex size-full animate-ping rounded-full bg-good opacity-75" /> : null}
        <span className={cx('relative inline-flex size-2 rounded-full', status === 'open' ? 'bg-good' : status === 'connecting' ? 'bg-warn' : 'bg-muted')} />
      </span>
      {receiving ? 'Receiving changes' : LABEL[status]}
    </span>
  );
}
