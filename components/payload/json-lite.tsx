'use client';

import { defaultStyles, JsonView } from 'react-json-view-lite';
import 'react-json-view-lite/dist/index.css';

const STYLE = {
  ...defaultStyles,
  container: 'font-mono text-xs leading-5 whitespace-pre-wrap break-words',
  basicChildStyle: 'ml-4',
  childFieldsContainer: 'm-0 p-0',
  label: 'mr-1 font-semibold text-fg',
  stringValue: 'text-good',
  numberValue: 'text-warn',
  booleanValue: 'text-accent',
  nullValue: 'text-muted',
  undefinedValue: 'text-muted',
  otherValue: 'text-fg',
  punctuation: 'text-muted',
  // The library's ▸ and ▾ are glyphs the page's fonts lack: drawn with borders instead (globals.css).
  collapseIcon: 'json-toggle json-toggle-open mr-1.5 cursor-pointer select-none text-muted',
  expandIcon: 'json-toggle mr-1.5 cursor-pointer select-none text-muted',
  quotesForFieldNames: false,
  stringifyStringValues: true,
};

/** A small JSON value (tool arguments, an unknown block) as a collapsible tree. Strings render as text. */
export function JsonLite({ value }: { value: unknown }) {
  if (value === null || typeof value !== 'object') return <code className="font-mono text-xs break-words whitespace-pre-wrap">{JSON.stringify(value)}</code>;
  return <JsonView data={value as object} style={STYLE} shouldExpandNode={(level) => level < 3} />;
}
