// JSON Pointers (RFC 6901) for addressing a node of a call record: `/request/messages/3/content`. Used in
// the call page's URL fragment (`#/request/...`, percent-encoded as RFC 6901 §6 and RFC 3986 require) and
// as the row id of the payload tree. Pure and framework-free.

export type PointerToken = string;

export class PointerSyntaxError extends Error {
  override name = 'PointerSyntaxError';
}

/** `"/a~1b/0"` -> `["a/b", "0"]`; `""` is the whole document. Throws on a pointer that breaks the grammar. */
export function parsePointer(pointer: string): PointerToken[] {
  if (pointer === '') return [];
  if (pointer[0] !== '/') throw new PointerSyntaxError(`a JSON pointer starts with "/": ${JSON.stringify(pointer)}`);
  return pointer
    .slice(1)
    .split('/')
    .map((token) => {
      if (/~[^01]|~$/.test(token)) throw new PointerSyntaxError(`"~" must be followed by 0 or 1: ${JSON.stringify(pointer)}`);
      return token.replace(/~1/g, '/').replace(/~0/g, '~');
    });
}

export function escapeToken(token: PointerToken | number): string {
  return String(token).replace(/~/g, '~0').replace(/\//g, '~1');
}

export function encodePointer(tokens: readonly (PointerToken | number)[]): string {
  let out = '';
  for (const t of tokens) out += '/' + escapeToken(t);
  return out;
}

/** The pointer of a child: `childPointer("/a", "b/c")` -> `/a/b~1c`. */
export function childPointer(parent: string, token: PointerToken | number): string {
  return `${parent}/${escapeToken(token)}`;
}

/** Every proper ancestor of a pointer, outermost first: `/a/b/c` -> `["", "/a", "/a/b"]`. */
export function ancestorPointers(pointer: string): string[] {
  const out: string[] = [];
  let at = pointer.indexOf('/', 1);
  if (pointer !== '') out.push('');
  while (at !== -1) {
    out.push(pointer.slice(0, at));
    at = pointer.indexOf('/', at + 1);
  }
  return out;
}

const ARRAY_INDEX = /^(0|[1-9]\d*)$/;

export type Resolved = { found: true; value: unknown } | { found: false; depth: number };

/** Walks a value along the tokens; `depth` tells how many tokens matched when the node does not exist. */
export function resolvePointer(root: unknown, tokens: readonly PointerToken[]): Resolved {
  let node = root;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (Array.isArray(node)) {
      if (!ARRAY_INDEX.test(t) || Number(t) >= node.length) return { found: false, depth: i };
      node = node[Number(t)];
    } else if (node !== null && typeof node === 'object' && Object.prototype.hasOwnProperty.call(node, t)) {
      node = (node as Record<string, unknown>)[t];
    } else {
      return { found: false, depth: i };
    }
  }
  return { found: true, value: node };
}

/**
 * The pointer named by a URL fragment (`#/request/messages/3`), or null when the fragment is not a pointer.
 * The fragment is percent-decoded first (RFC 6901 §6), so `#/a%20b` names the key `a b`.
 */
export function pointerFromHash(hash: string): string | null {
  const raw = hash.startsWith('#') ? hash.slice(1) : hash;
  if (!raw.startsWith('/')) return null;
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    return null;
  }
  try {
    parsePointer(decoded);
  } catch {
    return null;
  }
  return decoded;
}

/** The URL fragment for a pointer, percent-encoding what a fragment may not hold literally. */
export function hashFromPointer(pointer: string): string {
  try {
    return '#' + encodeURI(pointer).replace(/#/g, '%23');
  } catch {
    // a key with a lone surrogate: encodeURI refuses it, so escape only what would break the fragment
    return '#' + pointer.replace(/%/g, '%25').replace(/#/g, '%23').replace(/\s/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  }
}
