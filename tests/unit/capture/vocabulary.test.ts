// The vocabulary tables (gap codes, dialects, error categories) against the spec: every code the spec names has an
// entry, and each entry says something. The spec is read where it is present beside the repository (CI); the
// checks that need only the tables always run.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RolloutQuerySchema } from '../../../lib/api/schemas';
import { SPEC_FILE, SPEC_TIER_MARK as SPEC_TIER } from '../../support/nemo-gym-data';
import { DIALECTS, ERROR_CATEGORIES, ERROR_CATEGORY_INFO, DIALECT_INFO, GAP_CODES, GAP_CODE_LIST, gapInfo, gapLabel, gapTitle } from '../../../lib/capture/vocabulary';

const spec = existsSync(SPEC_FILE) ? readFileSync(SPEC_FILE, 'utf8') : null;

/** The backticked codes in the first column of the tables of §5.3 ("`a` / `b`" names two). */
function specGapCodes(text: string): string[] {
  const start = text.indexOf('### 5.3 Every gap code in the repository');
  const section = text.slice(start, text.indexOf('\n### 5.4', start));
  const codes: string[] = [];
  for (const row of section.split('\n').filter((l) => l.startsWith('| `'))) {
    const first = row.split('|')[1];
    for (const m of first.matchAll(/`([a-z_]+)`/g)) codes.push(m[1]);
  }
  return codes;
}

describe('the gap table', () => {
  it('has a title, a meaning and what it means for the numbers for every code', () => {
    for (const [code, info] of Object.entries(GAP_CODES)) {
      expect(code).toMatch(/^[a-z_]+$/);
      for (const text of [info.title, info.meaning, info.numbers]) expect(text.length, code).toBeGreaterThan(5);
      if (info.group === 'producer') expect(info.producers, code).toBeTruthy();
    }
  });

  it('is what the rollouts filter accepts, and nothing else', () => {
    for (const code of GAP_CODE_LIST) expect(RolloutQuerySchema.safeParse({ gap: code }).success, code).toBe(true);
    expect(RolloutQuerySchema.safeParse({ gap: 'not_a_gap_code' }).success).toBe(false);
  });

  it('badges drop the capture prefix; titles explain the code and keep the detail; unknown codes still read', () => {
    expect(gapLabel('model_call_capture_records_unreadable')).toBe('records_unreadable');
    expect(gapLabel('turns_unavailable')).toBe('turns_unavailable');
    expect(gapTitle({ code: 'model_call_capture_records_unreadable', detail: 'count=2' })).toMatch(/^model_call_capture_records_unreadable: Some non-blank lines .* \(count=2\)$/);
    expect(gapTitle({ code: 'something_new' })).toContain('does not know');
    expect(gapInfo('something_new').title).toBe('something new');
  });

  it.skipIf(!spec)(`has an entry for every code of spec §5.3 and no other ${SPEC_TIER}`, () => {
    const codes = specGapCodes(spec!);
    expect(codes.length).toBeGreaterThan(80);
    expect(codes.filter((c) => !(c in GAP_CODES))).toEqual([]);
    expect(Object.keys(GAP_CODES).filter((c) => !codes.includes(c))).toEqual([]);
  });
});

describe('dialects and error categories', () => {
  it('each has its words, and the filter takes exactly these', () => {
    for (const d of DIALECTS) expect(DIALECT_INFO[d].meaning).toMatch(/\/v1\//);
    for (const c of ERROR_CATEGORIES) expect(ERROR_CATEGORY_INFO[c].meaning.length).toBeGreaterThan(5);
    expect(RolloutQuerySchema.safeParse({ error_category: 'bogus' }).success).toBe(false);
    expect(RolloutQuerySchema.safeParse({ dialect: 'completions' }).success).toBe(false);
  });

  it.skipIf(!spec)(`are spec §6.2's dialects and §6.6's value set ${SPEC_TIER}`, () => {
    const valueSet = /The full value set: `null`, ([\s\S]*?)\.\n/.exec(spec!)![1];
    expect([...valueSet.matchAll(/`([a-z_]+)`/g)].map((m) => m[1])).toEqual([...ERROR_CATEGORIES]);
    const dialects = [...spec!.matchAll(/^\| `\/v1\/[a-z/]+` \| `([a-z]+)` \|$/gm)].map((m) => m[1]);
    expect(dialects).toEqual([...DIALECTS]);
  });
});
