// The payload tree as a flat list of visible rows, for a virtualized view: only opened containers are walked,
// so the cost is the number of visible rows, not the payload size (a 10 MB request with its long strings
// collapsed flattens in microseconds). A container is open when its default (shallow and not huge) differs
// from nothing in `toggled`, or is toggled away from a closed default; long strings and base64 are clipped
// to a preview until their pointer is in `expandedStrings`. Row ids are JSON pointers relative to the call
// record (`/request/messages/3`), so a URL fragment addresses a row directly.
import { ancestorPointers, childPointer, parsePointer, resolvePointer } from './json-pointer';
import { numberText } from './json-source';

export type TreeValueType = 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null';

export interface StringClip {
  reason: 'long' | 'base64';
  /** Length in UTF-16 code units (what JS slices) and in UTF-8 bytes (what the user pays). */
  length: number;
  bytes: number;
  /** The media type of a `data:` URL. */
  mime: string | null;
}

export interface TreeRow {
  pointer: string;
  depth: number;
  /** Object key or array index; null for the root. */
  key: string | number | null;
  type: TreeValueType;
  /** Containers: child count and whether the children follow as rows. */
  size: number;
  open: boolean;
  /** Scalars: the text to show (strings unquoted, possibly a preview; the rest as JSON). */
  text: string;
  /** Set when a string is shown as a preview; null when shown whole. */
  clip: StringClip | null;
}

export interface TreeOptions {
  /** Pointer of the value within the record, e.g. `/request`. */
  basePointer?: string;
  /** Containers shallower than this are open by default (when they have at most `openMaxChildren`). */
  defaultDepth?: number;
  openMaxChildren?: number;
  /** Pointers whose open state is the opposite of their default. */
  toggled?: ReadonlySet<string>;
  /** Pointers of clipped strings the user chose to see whole. */
  expandedStrings?: ReadonlySet<string>;
  longStringChars?: number;
  previewChars?: number;
}

const DEFAULTS = { defaultDepth: 5, openMaxChildren: 1000, longStringChars: 400, previewChars: 160 };
const EMPTY: ReadonlySet<string> = new Set();

export function typeOf(v: unknown): TreeValueType {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'array';
  switch (typeof v) {
    case 'object':
      return 'object';
    case 'string':
      return 'string';
    case 'number':
    case 'bigint':
      return 'number';
    case 'boolean':
      return 'boolean';
    default:
      return 'null';
  }
}

function sizeOf(v: unknown): number {
  if (Array.isArray(v)) return v.length;
  return v !== null && typeof v === 'object' ? Object.keys(v).length : 0;
}

const ASCII = /^[\x00-\x7f]*$/;

export function utf8Length(s: string): number {
  // Most payload text is ASCII: one native regex scan instead of a JS loop over every character (the tree
  // classifies every string it shows, and cold, that loop was a visible cost on a large request).
  if (ASCII.test(s)) return s.length;
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

const DATA_URL = /^data:([\w.+-]+\/[\w.+-]+)?(?:;[\w.+-]+=[^;,]*)*;base64,/i;
const BASE64_HEAD = /^[A-Za-z0-9+/_-]{256,}={0,2}$/;

/** How a string would be clipped: base64 (a data URL, or a long unbroken base64 run) or merely long. */
export function classifyString(s: string, longStringChars = DEFAULTS.longStringChars): StringClip | null {
  const dataUrl = DATA_URL.exec(s.slice(0, 256));
  const base64 = dataUrl !== null || (s.length >= 256 && BASE64_HEAD.test(s.slice(0, 1024)) && (s.length <= 1024 || /^[A-Za-z0-9+/_=-]*$/.test(s.slice(-64))));
  if (!base64 && s.length <= longStringChars) return null;
  return { reason: base64 ? 'base64' : 'long', length: s.length, bytes: utf8Length(s), mime: dataUrl?.[1]?.toLowerCase() ?? null };
}

export function isOpenByDefault(depth: number, size: number, options: TreeOptions = {}): boolean {
  return depth < (options.defaultDepth ?? DEFAULTS.defaultDepth) && size <= (options.openMaxChildren ?? DEFAULTS.openMaxChildren);
}

/** A scalar as text; a number as its payload wrote it (`holder[key]`, see json-source.ts). */
function scalarText(v: unknown, holder?: unknown, key: string | number | null = null): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number' || typeof v === 'bigint') return numberText(holder, key, v);
  return String(v);
}

/** The visible rows of `value`, in document order. */
export function flattenTree(value: unknown, options: TreeOptions = {}): TreeRow[] {
  const toggled = options.toggled ?? EMPTY;
  const expandedStrings = options.expandedStrings ?? EMPTY;
  const longChars = options.longStringChars ?? DEFAULTS.longStringChars;
  const previewChars = options.previewChars ?? DEFAULTS.previewChars;
  const rows: TreeRow[] = [];
  const stack: { v: unknown; pointer: string; depth: number; key: string | number | null; holder: unknown }[] = [
    { v: value, pointer: options.basePointer ?? '', depth: 0, key: null, holder: null },
  ];
  while (stack.length) {
    const { v, pointer, depth, key, holder } = stack.pop()!;
    const type = typeOf(v);
    if (type === 'object' || type === 'array') {
      const size = sizeOf(v);
      const open = size > 0 && isOpenByDefault(depth, size, options) !== toggled.has(pointer);
      rows.push({ pointer, depth, key, type, size, open, text: '', clip: null });
      if (!open) continue;
      if (Array.isArray(v)) {
        for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], pointer: childPointer(pointer, i), depth: depth + 1, key: i, holder: v });
      } else {
        const keys = Object.keys(v as object);
        for (let i = keys.length - 1; i >= 0; i--) {
          stack.push({ v: (v as Record<string, unknown>)[keys[i]], pointer: childPointer(pointer, keys[i]), depth: depth + 1, key: keys[i], holder: v });
        }
      }
      continue;
    }
    if (type === 'string') {
      const s = v as string;
      const clip = expandedStrings.has(pointer) ? null : classifyString(s, longChars);
      const text = clip ? s.slice(0, clip.reason === 'base64' ? Math.min(previewChars, 48) : previewChars) : s;
      rows.push({ pointer, depth, key, type, size: 0, open: false, text, clip });
      continue;
    }
    rows.push({ pointer, depth, key, type, size: 0, open: false, text: scalarText(v, holder, key), clip: null });
  }
  return rows;
}

/**
 * The `toggled` set that makes `target` visible: every closed ancestor opened. `root` is the value at
 * `basePointer`; returns null when the target is not inside it.
 */
export function revealPointer(root: unknown, target: string, toggled: ReadonlySet<string>, options: TreeOptions = {}): Set<string> | null {
  const base = options.basePointer ?? '';
  if (target !== base && !target.startsWith(base + '/')) return null;
  let tokens: string[];
  try {
    tokens = parsePointer(target.slice(base.length));
  } catch {
    return null;
  }
  if (!resolvePointer(root, tokens).found) return null;
  const next = new Set(toggled);
  const ancestors = ancestorPointers(target).filter((p) => p.length >= base.length && (p === base || p.startsWith(base + '/')));
  for (const p of ancestors) {
    const depth = p === base ? 0 : parsePointer(p.slice(base.length)).length;
    const node = resolvePointer(root, parsePointer(p.slice(base.length)));
    if (!node.found) return null;
    const byDefault = isOpenByDefault(depth, sizeOf(node.value), options);
    if (byDefault) next.delete(p);
    else next.add(p);
  }
  return next;
}

export interface SearchResult {
  pointers: string[];
  /** True when more matches exist than `limit`. */
  more: boolean;
}

/** Pointers of keys and scalar values containing `query` (case-insensitive), in document order. */
export function searchTree(value: unknown, query: string, basePointer = '', limit = 1000): SearchResult {
  const q = query.toLowerCase();
  const pointers: string[] = [];
  if (!q) return { pointers, more: false };
  const stack: { v: unknown; pointer: string; key: string | number | null; holder: unknown }[] = [{ v: value, pointer: basePointer, key: null, holder: null }];
  while (stack.length) {
    const { v, pointer, key, holder } = stack.pop()!;
    const keyHit = typeof key === 'string' && key.toLowerCase().includes(q); // object keys, not array indices
    if (Array.isArray(v) || (v !== null && typeof v === 'object')) {
      if (keyHit) pointers.push(pointer);
      if (Array.isArray(v)) for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], pointer: childPointer(pointer, i), key: i, holder: v });
      else {
        const keys = Object.keys(v as object);
        for (let i = keys.length - 1; i >= 0; i--) stack.push({ v: (v as Record<string, unknown>)[keys[i]], pointer: childPointer(pointer, keys[i]), key: keys[i], holder: v });
      }
    } else if (keyHit || scalarText(v, holder, key).toLowerCase().includes(q)) {
      pointers.push(pointer);
    }
    if (pointers.length > limit) return { pointers: pointers.slice(0, limit), more: true };
  }
  return { pointers, more: false };
}
