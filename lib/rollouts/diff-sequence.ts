// The one sequence diff the rollout diff is built on (lines of a string, items of a conversation, calls of a
// rollout): the common prefix and suffix trimmed, then Myers' O((N+M)·D) shortest edit script over the middle.
// Equality is the caller's (`eq(i, j)` on indices), so items are compared by interned ids, not re-walked. Beyond
// `maxEdits` edits the middle is given as one removal and one addition: still a correct diff (reading it gives
// both sides back), only not the shortest, and the memory of Myers' trace stays bounded (about maxEdits² ints).

export interface SeqRun {
  op: 'same' | 'removed' | 'added';
  /** Start in a (for 'added': where in a the insertion falls). */
  a: number;
  /** Start in b (for 'removed': where in b the removal falls). */
  b: number;
  count: number;
}

export const MAX_EDITS = 2000;

/** Runs covering a[0..n) and b[0..m) in order: every index of each side in exactly one run of its side. */
export function diffSequences(n: number, m: number, eq: (i: number, j: number) => boolean, maxEdits = MAX_EDITS): SeqRun[] {
  let pre = 0;
  while (pre < n && pre < m && eq(pre, pre)) pre++;
  let suf = 0;
  while (suf < n - pre && suf < m - pre && eq(n - 1 - suf, m - 1 - suf)) suf++;
  const out: SeqRun[] = [];
  const push = (op: SeqRun['op'], a: number, b: number, count: number) => {
    if (count === 0) return;
    const last = out[out.length - 1];
    if (last && last.op === op && (op === 'added' || last.a + last.count === a) && (op === 'removed' || last.b + last.count === b)) last.count += count;
    else out.push({ op, a, b, count });
  };
  push('same', 0, 0, pre);
  const an = n - pre - suf;
  const bm = m - pre - suf;
  const script = an > 0 && bm > 0 ? myers(an, bm, (i, j) => eq(pre + i, pre + j), maxEdits) : null;
  if (script) {
    for (const [op, i, j] of script) push(op, pre + i, pre + j, 1);
  } else {
    push('removed', pre, pre, an);
    push('added', pre + an, pre, bm);
  }
  push('same', n - suf, m - suf, suf);
  return out;
}

type Step = ['same' | 'removed' | 'added', number, number];

/** The shortest edit script as single steps in order, or null beyond maxEdits edits. */
function myers(n: number, m: number, eq: (i: number, j: number) => boolean, maxEdits: number): Step[] | null {
  const max = Math.min(n + m, maxEdits);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    // v before step d, for k in [-d-1, d+1] (the diagonals step d reads).
    trace.push(v.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]) ? v[offset + k + 1] : v[offset + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && eq(x, y)) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, n, m);
    }
  }
  return null;
}

function backtrack(trace: Int32Array[], n: number, m: number): Step[] {
  const steps: Step[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const v = trace[d];
    const at = (k: number) => v[k + d + 1];
    const k = x - y;
    const prevK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    const prevX = d === 0 ? 0 : at(prevK);
    const prevY = d === 0 ? 0 : prevX - prevK;
    while (x > prevX && y > prevY) {
      steps.push(['same', --x, --y]);
    }
    if (d > 0) {
      if (x === prevX) steps.push(['added', x, --y]);
      else steps.push(['removed', --x, y]);
    }
  }
  return steps.reverse();
}
