// How an item of the trajectory is named in the URL (`?item=`), so that a link opens the same selection: by the ids
// the record gives it (a model call's model_call_id, a tool call's invocation and tool_call_id), by position only for
// what has no id (compactions, sandbox runs, a model call without one).
import { ItemKind, type TrajectoryLayout } from './trajectory-layout';
import type { TrajectoryParts } from './trajectory-read';

export function itemKey(parts: TrajectoryParts, l: TrajectoryLayout, item: number): string {
  const j = l.src[item];
  switch (l.kind[item]) {
    case ItemKind.modelCall:
      return `call:${parts.modelCalls[j].model_call_id ?? `#${j}`}`;
    case ItemKind.toolCall:
      return `tool:${parts.toolCalls[j].invocation_id}/${parts.toolCalls[j].tool_call_id}`;
    case ItemKind.compaction:
      return `compaction:${j}`;
    default:
      return `sandbox:${j}`;
  }
}

/** Every item by its key (the first item wins where a stored record repeats an id). */
export function itemsByKey(parts: TrajectoryParts, l: TrajectoryLayout): Map<string, number> {
  const m = new Map<string, number>();
  for (let i = 0; i < l.kind.length; i++) {
    const k = itemKey(parts, l, i);
    if (!m.has(k)) m.set(k, i);
  }
  return m;
}
