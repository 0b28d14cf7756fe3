// NeMo Gym's rollout files for the tests, in two tiers. Our fixtures (tests/fixtures/nemo-gym, written by
// scripts/make-nemo-gym-fixtures.ts in the shapes of NeMo Gym's example rollout files) are always there: every
// check runs over them. NeMo Gym's own example files live outside the repository: where they are present (CI
// has them) the same checks run over them too, and where they are not, that tier is reported as skipped with
// the reason in its title. Their location is CALLSCOPE_NEMO_GYM_DATA, by default shared/data/nemo-gym-rollouts
// beside the checkout: the only place a test names anything outside the repository.
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * The shapes, each with our fixture and NeMo Gym's example file it mirrors (tests/fixtures/nemo-gym/README.md).
 * `real: null` marks a shape NeMo Gym has no example file of (browsecomp's example_rollouts.jsonl holds placeholder
 * rows): its fixture is read off NeMo Gym's code, and only the fixtures tier has it.
 */
export const SHAPES = {
  string_match: { fixture: 'string_match.jsonl', real: 'string_match__example_rollouts.jsonl' },
  mcqa: { fixture: 'mcqa.jsonl', real: 'mcqa__example_rollouts.jsonl' },
  hermes_math: { fixture: 'hermes_agent_math.jsonl', real: 'hermes_agent__example_math_rollouts.jsonl' },
  anyswe_claude_code: { fixture: 'anyswe_claude_code.jsonl', real: 'anyswe_agent__example_rollouts_claude_code.jsonl' },
  workplace_assistant: { fixture: 'workplace_assistant.jsonl', real: 'workplace_assistant__example_rollouts.jsonl' },
  tau2: { fixture: 'tau2.jsonl', real: 'tau2__example_rollouts.jsonl' },
  browsecomp: { fixture: 'browsecomp.jsonl', real: null },
} as const satisfies Record<string, { fixture: string; real: string | null }>;
export type Shape = keyof typeof SHAPES;
/** The shapes with a real file: the ones both tiers have. */
export type RealShape = { [S in Shape]: (typeof SHAPES)[S]['real'] extends string ? S : never }[Shape];
export const ALL_SHAPES = Object.keys(SHAPES) as Shape[];
export const REAL_SHAPES = ALL_SHAPES.filter((s): s is RealShape => SHAPES[s].real !== null);

export interface NemoGymData<S extends Shape = RealShape> {
  tier: 'fixtures' | 'real';
  /** A describe title naming the tier and, when it is skipped, why. */
  title: string;
  dir: string;
  present: boolean;
  /** The file of each shape the tier has, a path inside `dir`. */
  file: Record<S, string>;
  /** Every .jsonl file of the tier, sorted (its shapes' files when absent: the names the skipped tests carry). */
  files: string[];
}

function tier<S extends Shape>(tierName: NemoGymData['tier'], dir: string, shapes: readonly S[], name: (s: S) => string, title: (present: boolean) => string): NemoGymData<S> {
  const present = existsSync(dir) && readdirSync(dir).some((f) => f.endsWith('.jsonl'));
  const file = Object.fromEntries(shapes.map((s) => [s, path.join(dir, name(s))])) as Record<S, string>;
  const files = present ? readdirSync(dir).filter((f) => f.endsWith('.jsonl')).sort().map((f) => path.join(dir, f)) : (Object.values(file) as string[]).sort();
  return { tier: tierName, title: title(present), dir, present, file, files };
}

export const NEMO_GYM_FIXTURES_DIR = path.join(ROOT, 'tests', 'fixtures', 'nemo-gym');
/** The project's shared folder beside the checkout (NeMo Gym's files and the format spec), where there is one. */
const SHARED = path.resolve(ROOT, '../shared');
export const NEMO_GYM_DATA_DIR = process.env.CALLSCOPE_NEMO_GYM_DATA || path.join(SHARED, 'data', 'nemo-gym-rollouts');
/** The format spec (nemo-gym-capture.md), read by the tests that hold our tables to it where it is present. */
export const SPEC_FILE = process.env.CALLSCOPE_SPEC || path.join(SHARED, 'spec', 'nemo-gym-capture.md');

// The marks of the tests a fresh clone skips: .ci/run's fresh-clone check finds them by these strings in the
// reported titles (a describe title that holds REAL_TIER_MARK, a test title that holds SPEC_TIER_MARK), and a unit
// test holds .ci/run to these constants.
/** The start of the real tier's describe titles. */
export const REAL_TIER_MARK = 'real NeMo Gym files (';
/** Ends the titles of the tests that read the spec. */
export const SPEC_TIER_MARK = '(the spec beside the checkout; skipped where it is absent)';

const shown = process.env.CALLSCOPE_NEMO_GYM_DATA ? `CALLSCOPE_NEMO_GYM_DATA=${NEMO_GYM_DATA_DIR}` : path.relative(ROOT, NEMO_GYM_DATA_DIR);
export const FIXTURES = tier('fixtures', NEMO_GYM_FIXTURES_DIR, ALL_SHAPES, (s) => SHAPES[s].fixture, () => 'NeMo Gym-shaped fixtures (tests/fixtures/nemo-gym)');
export const REAL = tier('real', NEMO_GYM_DATA_DIR, REAL_SHAPES, (s) => SHAPES[s].real, (present) => `${REAL_TIER_MARK}${shown}${present ? '' : ' not present: skipped'})`);

/** Both tiers: `for (const data of TIERS) describe.skipIf(!data.present)(data.title, ...)`. */
export const TIERS = [FIXTURES, REAL] as const;

/** The lines of a rollouts file as NeMo Gym's readers see them: split on newlines, blank lines dropped. */
export function nonBlankLines(text: string): string[] {
  return text.split('\n').filter((l) => l.trim());
}
