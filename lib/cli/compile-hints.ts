// Marks the dashboard's start-up JavaScript chunks with V8's explicit compile hint (`//# allFunctionsCalledOnLoad`
// as a script's first line, Chrome 136+). Without it V8 compiles each function on its first call, on the main
// thread: when a page starts, the module factories of React DOM, the Next router and our client components
// are all first called in one task, and compiling them was most of that task (in a traced load of the
// rollout page, a long task on every load). With the hint, Chromium compiles the chunk while it
// streams the script in, off the main thread. Browsers without the hint read a comment.
// Only the chunks a page loads at start are marked (the framework's, and each route's entry chunks, from the
// build's manifests): chunks loaded later for one view (charts, tables, recharts) keep compiling lazily, since
// compiling all of them eagerly competes for the same two cores while the page starts.
// Idempotent and safe beside a serving process: a chunk is replaced by rename, never rewritten in place.
import { promises as fsp } from 'node:fs';
import path from 'node:path';

export const COMPILE_HINT = '//# allFunctionsCalledOnLoad\n';

async function filesUnder(dir: string, suffix: string): Promise<string[]> {
  const entries = await fsp.readdir(dir, { withFileTypes: true }).catch(() => []);
  const found = await Promise.all(entries.map((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name), suffix) : Promise.resolve(e.name.endsWith(suffix) ? [path.join(dir, e.name)] : []))));
  return found.flat();
}

/**
 * The chunks (`static/chunks/x.js`) pages load at start: the build manifest's root main files and the entry
 * files of every route in the client reference manifests (`globalThis.__RSC_MANIFEST["/route"] = {json};`).
 */
export async function startupChunks(nextDir: string): Promise<Set<string>> {
  const chunks = new Set<string>();
  const manifest = await fsp.readFile(path.join(nextDir, 'build-manifest.json'), 'utf8').catch(() => null);
  for (const f of manifest ? ((JSON.parse(manifest) as { rootMainFiles?: string[] }).rootMainFiles ?? []) : []) chunks.add(f);
  for (const file of await filesUnder(path.join(nextDir, 'server', 'app'), '_client-reference-manifest.js')) {
    for (const line of (await fsp.readFile(file, 'utf8')).split('\n')) {
      const json = /^globalThis\.__RSC_MANIFEST\["(?:[^"\\]|\\.)*"\] = (\{.*\});?\s*$/.exec(line)?.[1];
      if (!json) continue;
      const entries = (JSON.parse(json) as { entryJSFiles?: Record<string, string[]> }).entryJSFiles ?? {};
      for (const files of Object.values(entries)) for (const f of files) chunks.add(f);
    }
  }
  return chunks;
}

/** Adds the hint to every start-up chunk of the build in `root`/.next that lacks it; returns how many it marked. */
export async function addCompileHints(root: string): Promise<number> {
  const nextDir = path.join(root, '.next');
  let marked = 0;
  for (const chunk of await startupChunks(nextDir)) {
    if (!/^static\/chunks\/[\w.-]+\.js$/.test(chunk)) continue;
    const file = path.join(nextDir, chunk);
    const text = await fsp.readFile(file, 'utf8').catch(() => null);
    if (text === null || text.startsWith(COMPILE_HINT)) continue;
    const tmp = `${file}.${process.pid}.tmp`;
    await fsp.writeFile(tmp, COMPILE_HINT + text);
    await fsp.rename(tmp, file);
    marked++;
  }
  return marked;
}
