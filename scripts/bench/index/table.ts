// bench:index's table: one row per target of docs/design targets.md that the run measured, from the report.
import { fmtBytes, verdict, type TargetRow } from '../table';

const MB = 1e6;

function liveFigure(l: any): string {
  if (l.visible === 0)
    return `none of ${l.appended} calls appended at ${Math.round(l.append_rate)}/s became visible (warm-up ${l.warmup_complete ? 'done' : 'timed out'} after ${Math.round(l.warmup_ms / 1000)} s)`;
  return `append → visible p50 ${Math.round(l.latency_ms.p50)} ms, p99 ${Math.round(l.latency_ms.p99)} ms at ${Math.round(l.append_rate)}/s; sustained ${Math.round(l.sustained_rate)} calls/s (${l.visible}/${l.appended} seen)`;
}

function liveVerdict(l: any): string {
  return verdict(l.visible === l.appended && l.latency_ms.p99 <= 500 && l.sustained_rate >= 1000);
}

export function tableRows(r: Record<string, any>): TargetRow[] {
  const rows: TargetRow[] = [];
  const t2 = r.t2;
  if (t2)
    rows.push({
      id: 'T2',
      figure: `cold ingest with a trajectory on every rollout ${t2.ratio_wall}× the time without (CPU ${t2.ratio_cpu}×; medians of 2 each, alternating; ${fmtBytes(t2.corpus_with.bytes)} with against ${fmtBytes(r.corpus.bytes)} without, ${t2.corpus_with.tool_calls} tool calls)`,
      target: '≤ 1.3×',
      result: verdict(t2.ratio_wall <= 1.3),
    });
  const i1 = r.i1;
  if (i1)
    rows.push({
      id: 'I1',
      figure: `ingest ${i1.ingest_mb_s} MB/s, ${Math.round(i1.ingest_calls_s)} calls/s; JSON.parse baseline ${i1.baseline_mb_s} MB/s (same run)${i1.pairs ? `; the two ingests against the baselines either side: ${i1.pairs.map((x: any) => `${x.ratio_wall}×`).join(', ')} wall (${i1.pairs.map((x: any) => `${Math.round(x.ingest_wall_ms / 100) / 10} s against ${Math.round(x.baseline_wall_ms / 100) / 10} s`).join('; ')})` : ''}${i1.ingest.compare_fill_ms !== undefined ? `; compare figures filled in the background ${Math.round(i1.ingest.compare_fill_ms)} ms after` : ''}`,
      target: '≥ 2× JSON.parse',
      result: `${i1.ratio_wall}× wall, ${i1.ratio_cpu}× cpu${i1.pairs ? ' (the lower pair)' : ''}: ${verdict(i1.ratio_wall >= 2)}`,
    });
  const q = r.query;
  const i2 = q?.i2;
  const noReread = i2?.progress_after_refresh.bytes_read === 0 && i2?.progress_after_refresh.files_read === 0;
  if (q)
    rows.push({
      id: 'I2',
      figure: `open → runs + first page ${i2.first_answer_ms} ms (full warm pass ${Math.round(i2.full_refresh_ms)} ms, ${i2.progress_after_refresh.bytes_read} B re-read)`,
      target: '≤ 2 s, 0 B re-read',
      result: verdict(i2.first_answer_ms <= 2000 && noReread),
    });
  if (r.server) {
    const s = r.server.i2;
    const reread = s.progress_when_ready.reduce((a: number, p: any) => a + p.bytes_read, 0);
    rows.push({
      id: 'I2 (serve)',
      figure: `spawn → listening ${Math.round(s.spawn_to_listen_ms)} ms → first 200 of /api/runs ${Math.round(s.spawn_to_first_200_ms)} ms; warm pass done ${Math.round(s.ready_after_first_200_ms)} ms later, ${reread} B re-read`,
      target: '≤ 2 s, 0 B re-read',
      result: s.dashboard_built ? 'n/a (timed a dashboard build)' : verdict(s.spawn_to_first_200_ms <= 2000 && reread === 0),
    });
    const l = r.server.i3;
    rows.push({ id: 'I3 (serve)', figure: `${liveFigure(l)} (poll of the list API)`, target: 'p99 ≤ 500 ms, ≥ 1,000 calls/s', result: liveVerdict(l) });
  }
  if (r.i3_inprocess) {
    const l = r.i3_inprocess;
    rows.push({ id: 'I3 (index)', figure: `${liveFigure(l)} (in-process listRollouts)`, target: 'p99 ≤ 500 ms, ≥ 1,000 calls/s', result: liveVerdict(l) });
  }
  if (r.i3_watcher) {
    const w = r.i3_watcher;
    const ms = (x: number | null) => (x === null ? 'never' : `${Math.round(x)} ms`);
    rows.push({
      id: 'I3 (watch)',
      figure:
        `IndexWatcher alone: ready ${(w.ready_ms / 1000).toFixed(1)} s, +${fmtBytes(w.rss_after_ready - w.rss_before)} RSS, ${w.inotify_watches} inotify watches; ` +
        `new file → refreshPaths ${ms(w.create_to_refresh_ms)}, append → ${ms(w.append_to_refresh_ms)} (plain fs.watch of the dir: ${ms(w.create_plain_fs_watch_ms)} / ${ms(w.append_plain_fs_watch_ms)})`,
      target: '(diagnosis)',
      result: 'info',
    });
  }
  const d = r.i4_disk;
  if (d) rows.push({ id: 'I4 disk', figure: `${d.per_call} B/call (${fmtBytes(d.bytes)} for ${i1.calls} calls, after checkpoint)`, target: '≤ 300 B/call', result: verdict(d.per_call <= 300) });
  const qm = q?.memory ?? { rss: 0, max_rss_bytes: 0 };
  const rss = qm.rss;
  if (q || r.server)
    rows.push({
      id: 'I4 RSS',
      figure: `${q ? `query process ${fmtBytes(rss)} RSS (peak ${fmtBytes(qm.max_rss_bytes)}) after all queries` : '(query child skipped)'}${r.server ? `; serve ${fmtBytes(r.server.memory_after_live.rss_kb * 1024)} (peak ${fmtBytes(r.server.memory_after_live.hwm_kb * 1024)})` : ''}`,
      target: '≤ 500 MB',
      result: verdict(rss <= 500 * MB && (!r.server || r.server.memory_after_live.rss_kb * 1024 <= 500 * MB)),
    });
  if (!r.i5) {
    if (q) rows.push(...queryRows(q));
    return rows;
  }
  const h = r.i5.inprocess;
  const hugeOk = Object.values(h.checks).every(Boolean) && (!r.i5.server || (r.i5.server.raw.sha256_ok && r.i5.server.body.length_ok));
  rows.push({
    id: 'I5',
    figure: `${fmtBytes(r.i5.huge.lineBytes)} line indexed in ${Math.round(h.ingest_ms)} ms and served (checks ${Object.values(h.checks).every(Boolean) ? 'ok' : 'FAILED'}), heap limit ${r.i5.heap_limit_flag_mb} MB; peak heapUsed ${fmtBytes(h.memory.sampled_peak.heapUsed)}, peak RSS ${fmtBytes(h.memory.max_rss_bytes)}`,
    target: 'indexed + served, no whole-line string',
    result: verdict(hugeOk),
  });
  if (q) rows.push(...queryRows(q));
  const raw = h.raw;
  const enc = r.i5.server?.raw_by_accept_encoding;
  rows.push({
    id: 'A3',
    figure:
      `raw ${fmtBytes(raw.bytes)} line: ${Math.round(raw.mb_s)} MB/s read from its span in-process` +
      (enc
        ? `; GET .../raw received by ${enc.identity.client ?? 'node:http'}: ${Math.round(enc.identity.payload_mb_s)} MB/s uncompressed, ${Math.round(enc.browser.payload_mb_s)} MB/s when gzip is accepted (${enc.browser.content_encoding ?? 'none'})` +
          (enc.bare_node_http ? `, bare node:http pipe of the same span ${Math.round(enc.bare_node_http.payload_mb_s)} MB/s` : '')
        : '') +
      (q ? `; small raw p50 ${q.raw_small.p50} ms` : ''),
    target: '≥ 500 MB/s',
    result: enc ? `span ${verdict(raw.mb_s >= 500)}, http ${verdict(enc.identity.payload_mb_s >= 500)}, http+gzip ${verdict(enc.browser.payload_mb_s >= 500)}` : verdict(raw.mb_s >= 500),
  });
  return rows;
}

function queryRows(q: Record<string, any>): TargetRow[] {
  const rows: TargetRow[] = [];
  let worst = 0;
  let worstName = '';
  let worstAll = 0;
  for (const [name, c] of Object.entries(q.a1 as Record<string, any>)) {
    for (const p95 of [c.depth0.p95, c.deep?.p95 ?? 0]) {
      if (c.indexed && p95 > worst) {
        worst = p95;
        worstName = name;
      }
      worstAll = Math.max(worstAll, p95);
    }
  }
  const a1 = q.a1 as Record<string, any>;
  const first = a1['tokens_total desc'];
  rows.push({
    id: 'A1',
    figure: `page of 50: tokens_total desc p95 ${first.depth0.p95} ms (depth 0) / ${first.deep?.p95} ms (half way); worst p95 ${worst} ms (${worstName})`,
    target: 'p95 ≤ 50 ms, any depth',
    result: verdict(worst <= 50),
  });
  rows.push({
    id: 'A2',
    figure: `compare p50/p95 cold ${Math.round(q.a2.cold.p50)}/${Math.round(q.a2.cold.p95)} ms (n=${q.a2.cold.n}), warm ${Math.round(q.a2.warm.p50)}/${Math.round(q.a2.warm.p95)} ms, after a one-rollout change ${Math.round(q.a2.after_change.p50)}/${Math.round(q.a2.after_change.p95)} ms`,
    target: 'p95 ≤ 200 ms',
    result: `cold ${verdict(q.a2.cold.p95 <= 200)}, warm ${verdict(q.a2.warm.p95 <= 200)}, after a change ${verdict(q.a2.after_change.p95 <= 200)}`,
  });
  if (q.k1) {
    const views = Object.entries(q.k1.views as Record<string, any>);
    const worst = views.reduce((w, [name, v]) => (v.p95 > w.p95 ? { name, p95: v.p95 } : w), { name: '', p95: 0 });
    const after = q.k1.after_pass;
    rows.push({
      id: 'K1',
      figure:
        `Tasks API first page of 100 over ${q.k1.tasks} tasks (${q.k1.rollouts_in_groups} rollouts): the first page after a pass p95 ${after.p95} ms (n=${after.n}; the groups built in the background in ${Math.round(q.k1.background_build.p50)} ms); ` +
        `pages of five views p95 ≤ ${worst.p95} ms (${worst.name}); a first page asked before any build, which builds the groups itself, ${Math.round(q.k1.unbuilt.p50)} ms median`,
      target: 'p95 ≤ 100 ms',
      result: verdict(worst.p95 <= 100 && after.p95 <= 100),
    });
  }
  return rows;
}
