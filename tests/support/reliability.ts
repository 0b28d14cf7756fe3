// The reliability targets (targets.md R1–R9). CI runs their quick tier; `npm run test:soak` runs the same tests with
// their counts multiplied by CALLSCOPE_SOAK and collects the figure each one reports into reports/reliability.json
// (scripts/test-soak.ts). A test reports its figure only after its assertions passed.
import { appendFileSync } from 'node:fs';

/** How many times the quick tier's counts a run uses: 1 in CI, more under `npm run test:soak`. */
export const SOAK = Math.max(1, Number(process.env.CALLSCOPE_SOAK) || 1);

/** A quick-tier count scaled for this run. */
export const scaled = (quick: number): number => Math.max(1, Math.round(quick * SOAK));

/**
 * Prints a target's figure (`R5: 100 sequences, 0 divergences`) and, under test:soak, records it with its counts.
 * Several tests may report under one id: the soak script sums their counts.
 */
export function reportFigure(id: string, text: string, counts: Record<string, number>): void {
  console.log(`${id}: ${text}`);
  const out = process.env.CALLSCOPE_RELIABILITY_OUT;
  if (out) appendFileSync(out, JSON.stringify({ id, text, counts, soak: SOAK }) + '\n');
}
