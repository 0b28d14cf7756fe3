import { describe, expect, it } from 'vitest';
import {
  applyRolloutPrefix,
  assertStoreRolloutId,
  isStoreRolloutId,
  parseRolloutPrefix,
  rolloutIdFromBody,
  rolloutIdOfLine,
  rolloutPathPrefix,
  validateExplicitRolloutId,
} from '../../../lib/capture/ids';
import { capturePath } from '../../../lib/capture/store';
import { ex } from '../../support/exchange';

describe('§1.3 rollout id rules', () => {
  it.each(['', 'a/b', '../a', 'a b', 'röllout'])('the store rejects %j with "Invalid rollout id"', (id) => {
    expect(isStoreRolloutId(id)).toBe(false);
    expect(() => assertStoreRolloutId(id)).toThrow(/^Invalid rollout id: /);
  });

  it('names the id as Python repr does', () => {
    expect(() => assertStoreRolloutId('a b')).toThrow("Invalid rollout id: 'a b'");
    expect(() => assertStoreRolloutId("it's")).toThrow(`Invalid rollout id: "it's"`);
  });

  it('maps task-1_a.2 to task-1_a.2.capture.jsonl, and allows leading dots without traversal', () => {
    expect(capturePath('/d', 'task-1_a.2')).toBe('/d/task-1_a.2.capture.jsonl');
    expect(capturePath('/d', '..')).toBe('/d/...capture.jsonl');
    expect(isStoreRolloutId('.x')).toBe(true);
  });

  it.each(['.hidden', 'has/slash', 'has space', ''])('explicit id %j is refused', (id) => {
    expect(() => validateExplicitRolloutId(id)).toThrow(
      /^_ng_rollout_id must be a string of letters, digits, dots, dashes or underscores starting with a letter or digit; got /,
    );
  });

  it('explicit id rule: non-strings are refused, a single trailing newline passes (Python $ quirk)', () => {
    expect(() => validateExplicitRolloutId(7)).toThrow(/got 7$/);
    expect(validateExplicitRolloutId('abc\n')).toBe('abc\n');
    expect(isStoreRolloutId('abc\n')).toBe(false);
  });

  it.each(['s7-3-2', 'step7.task3', 'a', 'A_b-1.2'])('explicit id %s round-trips through the path prefix', (id) => {
    expect(parseRolloutPrefix(`/ng-rollout/${id}/v1/responses`)).toEqual({ rolloutId: id, rest: '/v1/responses', tokenCapture: false });
  });
});

describe('§1.4 rollout id derivation', () => {
  it('reads the canonical indices', () => {
    expect(rolloutIdFromBody({ _ng_task_index: 3, _ng_rollout_index: 1 })).toBe('3-1');
    expect(rolloutIdFromBody({ _ng_task_index: 3 })).toBeNull();
    expect(rolloutIdFromBody({})).toBeNull();
    expect(rolloutIdFromBody(null)).toBeNull();
    expect(rolloutIdFromBody({ _ng_task_index: null, _ng_rollout_index: 1 })).toBeNull();
  });

  it('formats raw values as Python str() does (derived ids are not validated)', () => {
    expect(rolloutIdFromBody(ex('{"_ng_task_index":3.0,"_ng_rollout_index":2}'))).toBe('3.0-2');
    expect(rolloutIdFromBody({ _ng_task_index: true, _ng_rollout_index: 'x y' })).toBe('True-x y');
  });

  it('applies the retry suffix', () => {
    const base = { _ng_task_index: 3, _ng_rollout_index: 2 };
    expect(rolloutIdFromBody(base)).toBe('3-2');
    expect(rolloutIdFromBody({ ...base, _ng_attempt_index: 0 })).toBe('3-2');
    expect(rolloutIdFromBody({ ...base, _ng_attempt_index: 1 })).toBe('3-2-a1');
    expect(rolloutIdFromBody({ ...base, _ng_attempt_index: '2' })).toBe('3-2-a2');
    expect(rolloutIdFromBody({ ...base, _ng_attempt_index: ' 2 ' })).toBe('3-2-a2');
    expect(rolloutIdFromBody({ ...base, _ng_attempt_index: 2.7 })).toBe('3-2-a2');
    expect(() => rolloutIdFromBody({ ...base, _ng_attempt_index: 'invalid' })).toThrow(/invalid literal for int/);
    expect(rolloutIdFromBody({ _ng_task_index: 3, _ng_attempt_index: 1 })).toBeNull();
  });

  it('prefers an explicit id, with the suffix applied to it too', () => {
    const base = { _ng_task_index: 3, _ng_rollout_index: 2 };
    expect(rolloutIdFromBody({ ...base, _ng_rollout_id: 's7-3-2' })).toBe('s7-3-2');
    expect(rolloutIdFromBody({ ...base, _ng_rollout_id: 's7-3-2', _ng_attempt_index: 1 })).toBe('s7-3-2-a1');
    expect(rolloutIdFromBody({ _ng_rollout_id: 'abc' })).toBe('abc');
    expect(rolloutIdFromBody({ ...base, _ng_rollout_id: null })).toBe('3-2');
  });

  it.each(['.hidden', 'has/slash', 'has space', '', 7])('refuses the unusable explicit id %j', (id) => {
    expect(() => rolloutIdFromBody({ _ng_task_index: 3, _ng_rollout_index: 2, _ng_rollout_id: id })).toThrow();
  });

  it('§8.3 prefers the attachment rollout_id of a line', () => {
    expect(rolloutIdOfLine({ _ng_task_index: 1, _ng_rollout_index: 0, ng_model_call_capture: { rollout_id: 'x-1' } })).toBe('x-1');
    expect(rolloutIdOfLine({ _ng_task_index: 1, _ng_rollout_index: 0 })).toBe('1-0');
  });
});

describe('§6.1 URL prefix grammar', () => {
  it('parses the id and rest, with the token-capture segment', () => {
    expect(parseRolloutPrefix('/ng-rollout/task-7/v1/chat/completions')).toEqual({ rolloutId: 'task-7', rest: '/v1/chat/completions', tokenCapture: false });
    expect(parseRolloutPrefix('/ng-rollout/r/training-token-capture/v1/responses')).toEqual({ rolloutId: 'r', rest: '/v1/responses', tokenCapture: true });
  });

  it('backtracks: a bare token segment is the rest', () => {
    expect(parseRolloutPrefix('/ng-rollout/r/training-token-capture')).toEqual({ rolloutId: 'r', rest: '/training-token-capture', tokenCapture: false });
  });

  it('accepts ids the store rejects (the permissive rule 3) and needs a rest', () => {
    expect(parseRolloutPrefix('/ng-rollout/a b/v1/messages')?.rolloutId).toBe('a b');
    expect(parseRolloutPrefix('/ng-rollout/abc/')).toEqual({ rolloutId: 'abc', rest: '/', tokenCapture: false });
    expect(parseRolloutPrefix('/ng-rollout/abc')).toBeNull();
    expect(parseRolloutPrefix('/v1/responses')).toBeNull();
  });

  it('builds prefixes on the producer side', () => {
    expect(applyRolloutPrefix('http://h:1', 'r1')).toBe('http://h:1/ng-rollout/r1');
    expect(applyRolloutPrefix('http://h:1/', null)).toBe('http://h:1/');
    expect(applyRolloutPrefix('http://h:1//', 'r1')).toBe('http://h:1/ng-rollout/r1');
    expect(rolloutPathPrefix(null)).toBe('');
    expect(rolloutPathPrefix('3-1', true)).toBe('/ng-rollout/3-1/training-token-capture');
  });
});
