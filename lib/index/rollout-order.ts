// The order of rollouts "by rollout" (the default sort): by task index, rollout index, then attempt, for keys of
// the form NeMo Gym derives (`<task>-<rollout>[-a<n>]`, §1.4, plus the index's own `~l<line>` suffix for a second
// line with the same id), then every other key (explicit ids, `line-<n>` keys of lines without an id) as text with
// its digit runs compared by value. Stored per rollout as a text column whose byte order is that order, so that
// the sort is an index walk with keyset pages like every other.
//
// A number is written as its digit count (one character from '1') and its digits without leading zeros: a shorter
// number sorts first, equal lengths sort by their digits.
const DERIVED = /^(\d+)-(\d+)(?:-a(\d+))?(~.*)?$/;

function number(digits: string): string {
  const d = digits.replace(/^0+(?=\d)/, '');
  return String.fromCharCode(0x30 + Math.min(d.length, 0x4e)) + d;
}

const natural = (text: string) => text.replace(/\d+/g, number);

export function rolloutOrderKey(key: string): string {
  const m = DERIVED.exec(key);
  if (!m) return '1' + natural(key);
  return '0' + number(m[1]) + number(m[2]) + number(m[3] ?? '0') + (m[4] ? natural(m[4]) : '');
}
