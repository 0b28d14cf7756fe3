import { controlClass } from '@/components/ui/control';
import { buttonClass } from '@/components/ui/button';

/** Two rollouts to diff, named run/rollout: a plain GET form to /diff, prefilled with what the link named. */
export function DiffPicker({ a = '', b = '' }: { a?: string; b?: string }) {
  const field = (name: 'a' | 'b', value: string, label: string) => (
    <label className="flex flex-col gap-0.5 text-xs text-muted">
      {label}
      <input name={name} required defaultValue={value} placeholder="run/rollout" maxLength={402} className={`${controlClass} w-72 font-mono`} />
    </label>
  );
  return (
    <form action="/diff" method="get" aria-label="pick two rollouts" className="flex flex-wrap items-end justify-center gap-3">
      {field('a', a, 'Rollout a')}
      {field('b', b, 'Rollout b')}
      <button type="submit" className={buttonClass('primary')}>
        Diff
      </button>
    </form>
  );
}
