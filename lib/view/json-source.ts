// Numbers as the payload writes them. JSON.parse reads `1.0` as 1, `1e-07` as 1e-7 and 12345678901234567891 as
// 12345678901234567000 (a different value); the payload views show what the stored line says. parseKeepingNumbers
// records, per containing object or array, the source text of each number that JavaScript would print otherwise
// (JSON.parse source text access, `context.source`: Chromium 114+, Firefox 135+, Safari 18.4+; without it numbers
// show as JavaScript prints them). A reviver costs many times the parse on a structure-heavy payload, so it runs
// only when the text holds a number that prints differently: any such number up to
// 1 MB, and above that only integers of 16 or more digits, whose value JavaScript cannot hold.
const SOURCES = new WeakMap<object, Map<string, string>>();

const MAY_DIFFER = /\d\.\d*0(?![\d])|\d[eE]|\d{16}|-0(?![.\d])/;
const VALUE_DIFFERS = /\d{16}/;
const COSMETIC_LIMIT = 1 << 20;

type SourceContext = { source?: string } | undefined;

function keepSource(this: object, key: string, value: unknown, context?: SourceContext): unknown {
  if (typeof value === 'number' && context?.source !== undefined && context.source !== String(value)) {
    let m = SOURCES.get(this);
    if (!m) SOURCES.set(this, (m = new Map()));
    m.set(key, context.source);
  }
  return value;
}

/** JSON.parse, keeping the written form of the numbers that JavaScript would print otherwise (see numberText). */
export function parseKeepingNumbers(text: string): unknown {
  const needed = text.length <= COSMETIC_LIMIT ? MAY_DIFFER.test(text) : VALUE_DIFFERS.test(text);
  return needed ? JSON.parse(text, keepSource as (this: unknown, key: string, value: unknown) => unknown) : JSON.parse(text);
}

/** `value` (that is, `holder[key]`) as its text wrote it, when parsed by parseKeepingNumbers; else as JavaScript prints it. */
export function numberText(holder: unknown, key: string | number | null, value: number | bigint): string {
  if (key !== null && holder !== null && typeof holder === 'object') {
    const source = SOURCES.get(holder)?.get(String(key));
    if (source !== undefined) return source;
  }
  return String(value);
}

const rawJSON = (): ((s: string) => unknown) | undefined => (JSON as unknown as { rawJSON?: (s: string) => unknown }).rawJSON;

/** JSON.stringify (indented by two spaces) of a value parsed by parseKeepingNumbers, its numbers as written where the browser has JSON.rawJSON. */
export function stringifyKeepingNumbers(value: unknown): string {
  const raw = rawJSON();
  if (!raw) return JSON.stringify(value, null, 2);
  return JSON.stringify(
    value,
    function (this: unknown, key: string, v: unknown) {
      if (typeof v !== 'number' || this === null || typeof this !== 'object') return v;
      const source = SOURCES.get(this)?.get(key);
      return source === undefined ? v : raw(source);
    },
    2,
  );
}

/**
 * JSON text indented by two spaces with every number as written (JSON.rawJSON, where the browser has it), or null
 * when `text` is not JSON. `exact` is false when the numbers went through JavaScript.
 */
export function indentKeepingNumbers(text: string): { text: string; exact: boolean } | null {
  const raw = rawJSON();
  try {
    if (raw) {
      let exact = true;
      const value = JSON.parse(text, (_key: string, v: unknown, context?: SourceContext) => {
        if (typeof v !== 'number') return v;
        if (context?.source === undefined) exact = false;
        return context?.source !== undefined ? raw(context.source) : v;
      });
      return { text: JSON.stringify(value, null, 2), exact };
    }
    return { text: JSON.stringify(JSON.parse(text), null, 2), exact: false };
  } catch {
    return null;
  }
}
