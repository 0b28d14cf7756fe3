import { controlClass } from '@/components/ui/control';
import { buttonClass } from '@/components/ui/button';
import { formatReward } from '@/lib/view/format';

/**
 * "Diff with…" on a rollout page: a plain GET form to /diff with this rollout as a, and b prefilled with the same
 * task's best other rollout when there is one (any run/rollout can be typed instead).
 */
export function DiffWithForm({ run, rollout, best }: { run: string; rollout: string; best: { key: string; reward: number | null } | null }) {
  return (
    <form action="/diff" method="get" aria-label="diff with another rollout" className="flex flex-wrap items-center gap-2 text-sm">
      <input type="hidden" name="a" value={`${run}/${rollout}`} />
      <label htmlFor="diff-with" className="text-muted">
        Diff with
      </label>
      <input id="diff-with" name="b" required defaultValue={best ? `${run}/${best.key}` : ''} placeholder="run/rollout" maxLength={402} className={`${controlClass} w-64 font-mono`} />
      <button type="submit" className={buttonClass('outline', undefined, 'sm')}>
        Diff
      </button>
      {best ? <span className="text-xs text-muted">prefilled: the task&apos;s best other rollout (reward {formatReward(best.reward)})</span> : null}
    </form>
  );
}
