import { formatReward } from '@/lib/view/format';
import { rewardMarkClass } from '@/lib/view/task-view';

/** One mark per rollout in rollout-index order, coloured by reward: a zero-variance group reads as one colour. */
export function RewardStrip({ rewards, ids }: { rewards: number[]; ids: string[] }) {
  const wide = rewards.length <= 16;
  return (
    <span className="inline-flex flex-wrap gap-px align-middle" aria-label={`rewards ${rewards.map(formatReward).join(', ')}`} role="img">
      {rewards.map((r, i) => (
        <span key={ids[i] ?? i} title={`${ids[i]}: ${formatReward(r)}`} className={`${wide ? 'h-3 w-2' : 'h-3 w-1'} rounded-[1px] ${rewardMarkClass(r)}`} />
      ))}
    </span>
  );
}
