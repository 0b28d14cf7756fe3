// A rollout line's outcome fields (rollout-line.ts OUTCOME_FIELDS) as short badges: what a researcher reads first
// about how a rollout ended. `true` flags read as their name ("resolved"), `false` as "not resolved" for the
// fields whose false is news, kinds as their value; the tone says good, bad or neither.
export type Tone = 'good' | 'bad' | 'neutral';
export interface OutcomeBadge {
  field: string;
  text: string;
  tone: Tone;
}

type Outcome = Record<string, string | number | boolean | null>;

const GOOD_WHEN_TRUE = new Set(['resolved', 'patch_exists', 'finished_naturally']);
const BAD_WHEN_TRUE = new Set(['agent_timed_out', 'eval_timed_out', 'context_length_exceeded_error', 'mask_sample']);

export function outcomeBadges(outcome: Outcome | null, failureClass: string | null): OutcomeBadge[] {
  const out: OutcomeBadge[] = [];
  if (failureClass) out.push({ field: '_ng_failure_class', text: `failed: ${failureClass}`, tone: 'bad' });
  for (const [field, v] of Object.entries(outcome ?? {})) {
    const name = field.replace(/_/g, ' ');
    if (typeof v === 'boolean') {
      if (GOOD_WHEN_TRUE.has(field)) out.push({ field, text: v ? name : `not ${name}`, tone: v ? 'good' : 'bad' });
      else if (BAD_WHEN_TRUE.has(field) && v) out.push({ field, text: name, tone: 'bad' });
    } else if (typeof v === 'string' && v) {
      out.push({ field, text: `${name}: ${v}`, tone: field.includes('error') ? 'bad' : 'neutral' });
    } else if (typeof v === 'number') {
      out.push({ field, text: `${name}: ${v}`, tone: 'neutral' });
    }
  }
  return out;
}

/** Every field with its value, for a title: what the badges leave out (false flags, nulls) included. */
export function outcomeTitle(outcome: Outcome | null): string {
  return Object.entries(outcome ?? {})
    .map(([k, v]) => `${k}: ${v === null ? 'null' : String(v)}`)
    .join('\n');
}
