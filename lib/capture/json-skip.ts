// The structural skip of a JSON value: strings found by their closing quote, containers by their brackets, no
// token read. The parser's skipped values (json-parse.ts), the index's fast scans (lib/index/scan/fast-scan.ts,
// which runs the native port of skippedContainerEndJs where the addon is built) and the rollout diff's byte walk
// (lib/rollouts/diff-split.ts) all skip this way.

const enum C {
  Quote = 34,
  LBracket = 91,
  Backslash = 92,
  RBracket = 93,
  LBrace = 123,
  RBrace = 125,
}

/** Nesting the fast walks follow: far below orjson's 1024, so the limit itself never decides an outcome (they decline). */
export const FAST_DEPTH = 512;
const fastClosers = new Uint8Array(FAST_DEPTH + 2);

// 1 for the bytes a JSON text can hold outside its strings: whitespace, punctuation, numbers and the letters of
// true, false, null (and Python's NaN, Infinity). A skipped value is walked by its strings and brackets only; a
// byte outside this set between them (a NUL, a bare word from a torn line) still makes the line unreadable.
export const TOKEN_BYTE = new Uint8Array(256);
for (const c of ' \t\n\r,:[]{}+-.0123456789eEtrufalsnNIiy') TOKEN_BYTE[c.charCodeAt(0)] = 1;
// The fast skip's byte classes: 0 not allowed outside a string, then a plain token byte, a quote, an opening and a
// closing bracket.
const SKIP_TOKEN = 1;
const SKIP_QUOTE = 2;
const SKIP_OPEN = 3;
const SKIP_CLOSE = 4;
const SKIP_CLASS = new Uint8Array(256);
for (let c = 0; c < 256; c++) SKIP_CLASS[c] = TOKEN_BYTE[c] ? SKIP_TOKEN : 0;
SKIP_CLASS[C.Quote] = SKIP_QUOTE;
SKIP_CLASS[C.LBrace] = SKIP_CLASS[C.LBracket] = SKIP_OPEN;
SKIP_CLASS[C.RBrace] = SKIP_CLASS[C.RBracket] = SKIP_CLOSE;

/**
 * The index of the unescaped quote closing a string whose content starts at `j`, or -1: a native search for
 * the quote, walked byte by byte instead once the string shows an escaped quote (escaped JSON is dense in them).
 */
export function closingQuote(b: Buffer, j: number): number {
  const q = b.indexOf(C.Quote, j);
  if (q < 0) return -1;
  let k = q - 1;
  while (b[k] === C.Backslash) k--;
  if ((q - 1 - k) % 2 === 0) return q;
  const n = b.length;
  for (j = q + 1; j < n; ) {
    const c = b[j];
    if (c === C.Quote) return j;
    j += c === C.Backslash ? 2 : 1;
  }
  return -1;
}

/**
 * The end of the container at `i` (nested `depth` deep) walked structurally, as Parser.skipValue walks it, or -1. The
 * index's skippedContainerEnd (lib/index/scan/fast-scan.ts) runs its native port instead where the addon is built
 * (held equal by tests/unit/index/scan/skip-native.property.test.ts).
 */
export function skippedContainerEndJs(b: Buffer, i: number, depth: number): number {
  const n = b.length;
  let level = 0;
  while (i < n) {
    const c = b[i];
    // One table lookup sorts the byte (SKIP_CLASS): most bytes between strings are plain token bytes.
    const k = SKIP_CLASS[c];
    if (k === SKIP_TOKEN) {
      i++;
      continue;
    }
    if (k === SKIP_QUOTE) {
      const q = closingQuote(b, i + 1);
      if (q < 0) return -1;
      i = q + 1;
      continue;
    }
    if (k === SKIP_OPEN) {
      if (depth + level >= FAST_DEPTH) return -1;
      fastClosers[++level] = c + 2;
    } else if (k === SKIP_CLOSE) {
      if (level === 0 || fastClosers[level] !== c) return -1;
      if (--level === 0) return i + 1;
    } else return -1; // a byte that cannot occur outside a JSON string
    i++;
  }
  return -1;
}
