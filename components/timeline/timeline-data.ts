// The timeline's layout of one copy of a rollout's call columns, computed once per copy: the page computes it
// in a task of its own before it mounts the chart (at 30,000 calls the layout and the chart's first render
// together made a long task), and the chart then finds it here.
import type { CallColumns } from '@/lib/api/call-schemas';
import { serverGroup } from '@/lib/view/series';
import { layoutTimeline, type TimelineLayout } from '@/lib/view/timeline';

export interface TimelineData {
  /** Server group of each call. */
  groupOf: Int32Array;
  layout: TimelineLayout;
}

const computed = new WeakMap<CallColumns, TimelineData>();

export function timelineData(c: CallColumns): TimelineData {
  let data = computed.get(c);
  if (!data) {
    const groupOf = Int32Array.from({ length: c.n }, (_, i) => serverGroup(c, i));
    data = { groupOf, layout: layoutTimeline({ start: c.start_ms, end: c.end_ms, latency: c.latency_ms, group: groupOf, order: c.call_index }) };
    computed.set(c, data);
  }
  return data;
}
