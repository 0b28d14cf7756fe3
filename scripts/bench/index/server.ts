// I2, I3, I5 and A3 through `callscope serve`: the huge line's raw and call routes (beside a bare node:http pipe of
// the same bytes), and over the corpus the start to the first answer, the list, compare and tasks routes over
// HTTP, and appended calls to visible in the list API.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import { countGet, timeGet, wireGet, type WireGet } from '../http';
import { vmStatus } from '../memory';
import type { Json } from '../report';
import { startServeReady, waitReady } from '../server';
import { pct, round, summary } from '../stats';
import { now } from '../time';
import type { HugeInfo } from './child';
import { cleanLive } from './corpus';
import { liveAppends } from './live';

const MB = 1e6;

export async function serverHuge(huge: HugeInfo, indexDir: string, bodyExpected: number) {
  const { served, built, attempt } = await startServeReady([huge.root], indexDir); // may include a dashboard build
  try {
    const t = now();
    const ready = await waitReady(served, 300_000);
    const readyMs = now() - t;
    const run = ready.runs[0].id as string;
    const base = `${served.url}/api/runs/${run}/rollouts/${huge.rolloutKey}/calls/${huge.callId}`;
    const raw = await timeGet(base + '/raw');
    const rawRuns: number[] = [];
    for (let k = 0; k < 3; k++) rawRuns.push((await countGet(base + '/raw')).ms);
    // The wire as a browser asks for it (gzip accepted) and without compression, received by curl: a native
    // client, like a browser or a download, so that the figure is the server's and not a JS client's.
    const encodings: Record<string, Json> = {};
    for (const [name, accept] of [
      ['identity', 'identity'],
      ['browser', 'gzip, deflate, br'],
    ] as const) {
      const runs: WireGet[] = [];
      for (let k = 0; k < 3; k++) runs.push(await wireGet(base + '/raw', { 'accept-encoding': accept }));
      const ms = pct(
        runs.map((x) => x.ms),
        0.5,
      );
      encodings[name] = {
        client: runs[0].client,
        accept,
        content_encoding: runs[0].encoding,
        wire_bytes: runs[0].bytes,
        ms: runs.map((x) => round(x.ms)),
        payload_mb_s: round(huge.lineBytes / MB / (ms / 1000)),
      };
    }
    // Side by side: a bare node:http server, in its own process, piping the same byte span with 1 MiB reads (what
    // loopback HTTP from Node does here), received the same way.
    const file = path.join(huge.root, 'huge', 'captures', 'huge-0.capture.jsonl');
    const head = Buffer.alloc(1 << 16);
    const fd = openSync(file, 'r');
    readSync(fd, head, 0, head.length, 0);
    closeSync(fd);
    const start = head.indexOf(10) + 1;
    const bareScript = `const http = require('node:http'); const fs = require('node:fs');
      const [file, start, length] = [process.argv[1], Number(process.argv[2]), Number(process.argv[3])];
      const server = http.createServer((req, res) => {
        res.writeHead(200, { 'content-type': 'application/x-ndjson', 'content-length': String(length) });
        fs.createReadStream(file, { start, end: start + length - 1, highWaterMark: 1 << 20 }).pipe(res);
      });
      server.listen(0, '127.0.0.1', () => console.log(server.address().port));`;
    const bare = spawn(process.execPath, ['-e', bareScript, file, String(start), String(huge.lineBytes)], { stdio: ['ignore', 'pipe', 'inherit'] });
    const port = await new Promise<number>((resolve, reject) => {
      bare.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
      bare.once('exit', () => reject(new Error('bare server exited')));
    });
    const bareRuns: WireGet[] = [];
    for (let k = 0; k < 3; k++) bareRuns.push(await wireGet(`http://127.0.0.1:${port}/`, {}));
    bare.kill();
    encodings.bare_node_http = {
      client: bareRuns[0].client,
      wire_bytes: bareRuns[0].bytes,
      ms: bareRuns.map((x) => round(x.ms)),
      payload_mb_s: round(
        huge.lineBytes /
          MB /
          (pct(
            bareRuns.map((x) => x.ms),
            0.5,
          ) /
            1000),
      ),
    };
    const body = await countGet(base);
    const bodyRuns: number[] = [body.ms];
    for (let k = 0; k < 2; k++) bodyRuns.push((await countGet(base)).ms);
    return {
      ready_after_first_200_ms: round(readyMs),
      dashboard_built: built,
      start_attempts: attempt,
      progress: ready.runs[0].progress,
      raw: { status: raw.status, bytes: raw.bytes, sha256_ok: raw.sha256 === huge.lineSha256, ms: rawRuns.map((x) => round(x)), mb_s: round(raw.bytes / MB / (pct(rawRuns, 0.5) / 1000)) },
      raw_by_accept_encoding: encodings,
      body: { status: body.status, bytes: body.bytes, length_ok: body.bytes === bodyExpected, ms: bodyRuns.map((x) => round(x)), mb_s: round(body.bytes / MB / (pct(bodyRuns, 0.5) / 1000)) },
      server_memory: vmStatus(served.child.pid!),
    };
  } finally {
    await served.stop();
  }
}

export async function serverCorpus(corpus: string, indexDir: string, opts: { rate: number; seconds: number; seed: string; reps: number }) {
  // I2 through the server: from spawning `serve` to the first 200 of /api/runs, then to the end of the warm
  // pass (which must read no capture file). The huge-line server ran just before, so the build is fresh.
  let { served, first, built, attempt } = await startServeReady([corpus], indexDir);
  const out: Record<string, any> = {};
  if (built) {
    // Someone changed the dashboard's sources since the last start: that start timed a build. Start again.
    out.i2_first_start_with_build = { spawn_to_first_200_ms: round(first.ms), spawn_to_listen_ms: round(served.timing.listen_ms) };
    await served.stop();
    ({ served, first, built, attempt } = await startServeReady([corpus], indexDir));
  }
  try {
    const t = now();
    const ready = await waitReady(served, 900_000);
    out.i2 = {
      spawn_to_first_200_ms: round(first.ms),
      spawn_to_listen_ms: round(served.timing.listen_ms),
      dashboard_built: built,
      start_attempts: attempt,
      first_body_state: first.body.runs.map((r: any) => r.progress.state),
      ready_after_first_200_ms: round(now() - t),
      progress_when_ready: ready.runs.map((r: any) => ({ id: r.id, ...r.progress })),
      spawn_to_index_ready_line_ms: round(served.timing.ready_line_ms),
    };
    const run = ready.runs.find((r: any) => r.id === 'bench')?.id ?? ready.runs[0].id;
    out.run = run;

    // A1 through HTTP (round trip, informational): the first page and a deep page of one sort key.
    const list = (q: string) => `${served.url}/api/runs/${run}/rollouts?${q}`;
    const http: Record<string, Json> = {};
    for (const q of ['sort=tokens_total&order=desc&limit=50', 'sort=started_at&order=asc&limit=50', 'sort=reward&order=desc&limit=50&has_errors=true']) {
      const samples: number[] = [];
      for (let k = 0; k < opts.reps; k++) samples.push((await countGet(list(q))).ms);
      http[q] = summary(samples);
    }
    {
      const a2: number[] = [];
      for (let k = 0; k < Math.min(opts.reps, 10); k++) a2.push((await countGet(`${served.url}/api/compare?runs=${run}`)).ms);
      http['/api/compare'] = summary(a2);
    }
    for (const q of ['sort=task&order=asc', 'sort=reward_std&order=desc&zero_variance=false']) {
      const samples: number[] = [];
      for (let k = 0; k < opts.reps; k++) samples.push((await countGet(`${served.url}/api/runs/${run}/tasks?${q}`)).ms);
      http[`/api/runs/{run}/tasks?${q}`] = summary(samples);
    }
    out.http = http;
    out.memory_before_live = vmStatus(served.child.pid!);

    // I3: appended lines to visible in the list API.
    const page = `${served.url}/api/runs/${run}/rollouts?sort=started_at&order=desc&limit=60`;
    out.i3 = await liveAppends(
      async () => ((await (await fetch(page)).json()) as { rollouts: { key: string; num_calls: number }[] }).rollouts,
      async () => ((await (await fetch(`${served.url}/api/runs`)).json()) as { runs: { progress: { lines_read: number } }[] }).runs.reduce((a, r) => a + r.progress.lines_read, 0),
      corpus,
      opts,
    );
    out.memory_after_live = vmStatus(served.child.pid!);
  } finally {
    await served.stop();
    cleanLive(corpus);
  }
  return out;
}
