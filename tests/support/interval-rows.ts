// The fewest rows that can hold a set of bars (the reference the timeline packings are held to).

/**
 * When bars may touch (overlap is strict: a.x0 < b.x1 && b.x0 < a.x1): at the start of a bar, count the bars
 * running through that instant; a zero-width mark needs a row only when every bar already running strictly across
 * it holds one.
 */
export function minRows(x0: number[], x1: number[]): number {
  let max = 0;
  for (let b = 0; b < x0.length; b++) {
    let active = 0;
    if (x1[b] > x0[b]) for (let c = 0; c < x0.length; c++) active += x0[c] <= x0[b] && x1[c] > x0[b] ? 1 : 0;
    else for (let c = 0; c < x0.length; c++) active += x0[c] < x0[b] && x1[c] > x0[b] ? 1 : 0;
    max = Math.max(max, x1[b] > x0[b] ? active : active + 1);
  }
  return max;
}
