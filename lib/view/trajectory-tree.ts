// The nesting of lane groups: each invocation under its parent (parent_invocation_id, else the invocation that ran
// the tool call which spawned it), depth first, siblings in the order `compare` gives. A stored record may break
// upstream's rules (a parent cycle): the cycle is cut where it closes, so every group still shows exactly once.

export interface GroupTree {
  /** Parent group of each group, -1 for a root (after cycles are cut). */
  parent: Int32Array;
  depth: Int32Array;
  /** Groups depth first: a group, then its children's subtrees. */
  order: Int32Array;
}

export function groupTree(parentOf: ArrayLike<number>, compare: (a: number, b: number) => number): GroupTree {
  const n = parentOf.length;
  const parent = Int32Array.from(parentOf);
  const state = new Uint8Array(n); // 0 unseen, 1 on the current chain, 2 done
  for (let g = 0; g < n; g++) {
    const chain: number[] = [];
    let x = g;
    while (x >= 0 && state[x] === 0) {
      state[x] = 1;
      chain.push(x);
      x = parent[x];
    }
    if (x >= 0 && state[x] === 1) parent[chain[chain.length - 1]] = -1; // the chain closed on itself
    for (const c of chain) state[c] = 2;
  }
  const children: number[][] = Array.from({ length: n }, () => []);
  const roots: number[] = [];
  for (let g = 0; g < n; g++) (parent[g] >= 0 ? children[parent[g]] : roots).push(g);
  const depth = new Int32Array(n);
  const order: number[] = [];
  const stack = roots.sort(compare).reverse();
  while (stack.length) {
    const g = stack.pop()!;
    order.push(g);
    const kids = children[g].sort(compare);
    for (let k = kids.length - 1; k >= 0; k--) {
      depth[kids[k]] = depth[g] + 1;
      stack.push(kids[k]);
    }
  }
  return { parent, depth, order: Int32Array.from(order) };
}
