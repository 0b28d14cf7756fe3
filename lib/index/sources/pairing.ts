// Pairing rollouts files with the capture dirs beside them (discovery.ts): each file claims the dir that holds the
// most of its sampled rollout ids. The index gives a capture dir to one run only (a capture file is one rollout of
// one run), so of the files claiming one dir the one whose ids it holds most (the shorter name on ties: `X.jsonl`
// before `X_retry.jsonl`) gets it; another takes the next dir holding its ids if one is left. Whatever a run's ids
// are in and it did not get is said, on both runs (their notes) and in the report serve prints: never silently.
import path from 'node:path';
import { promises as fsp } from 'node:fs';
import { rolloutIdOfLine } from '../../capture/ids';
import { isJsonObject } from '../../capture/json-value';
import { parsePython } from '../../capture/json-parse';
import { CAPTURE_SUFFIX, INCOMPLETE_SUFFIX, exists, readLines, stripAscii } from '../../capture/store';

/** Up to `limit` rollout ids from the first lines of a rollouts file. */
async function sampleRolloutIds(file: string, limit = 16): Promise<string[]> {
  const ids: string[] = [];
  const handle = await fsp.open(file, 'r').catch(() => null);
  if (!handle) return ids;
  try {
    for await (const line of readLines(handle)) {
      if (ids.length >= limit || line.lineNumber > limit * 4) break;
      if (stripAscii(line.bytes).length === 0) continue;
      try {
        const row = parsePython(line.bytes);
        const id = isJsonObject(row) ? rolloutIdOfLine(row) : null;
        if (id && /^[A-Za-z0-9._-]+$/.test(id)) ids.push(id);
      } catch {
        // a line that does not parse says nothing about pairing
      }
    }
  } finally {
    await handle.close();
  }
  return ids;
}

/** A rollouts file's claim on a capture dir beside it: how many of its sampled rollout ids the dir holds. */
interface Claim {
  dir: string;
  hits: number;
  sampled: number;
}

/**
 * The capture dirs beside the file that hold some of its rollout ids, most first (the closest one on ties); a lone
 * dir beside it that holds none when nothing of the file is captured yet (a run just starting).
 */
async function claimCaptureDirs(file: string, candidates: string[]): Promise<Claim[]> {
  const near = candidates.filter((d) => path.dirname(d) === path.dirname(file) || d === path.dirname(file));
  if (near.length === 0) return [];
  const ids = await sampleRolloutIds(file);
  const claims: Claim[] = [];
  for (const dir of near) {
    let hits = 0;
    for (const id of ids) {
      if ((await exists(path.join(dir, id + CAPTURE_SUFFIX))) || (await exists(path.join(dir, id + INCOMPLETE_SUFFIX)))) hits++;
    }
    if (hits > 0) claims.push({ dir, hits, sampled: ids.length });
  }
  if (claims.length) return claims.sort((a, b) => b.hits - a.hits); // stable: the closest first on ties
  return near.length === 1 ? [{ dir: near[0], hits: 0, sampled: ids.length }] : [];
}

/** Each file's capture dir (or none) and the note on its run, and one report line per dir a run did not get. */
export async function pairCaptureDirs(
  target: string,
  files: string[],
  captureDirs: string[],
  ids: Map<string, string>,
): Promise<{ of: Map<string, { captureDir: string | null; note: string | null }>; notes: string[] }> {
  const of = new Map<string, { captureDir: string | null; note: string | null }>();
  const notes: string[] = [];
  const claims = new Map<string, Claim[]>();
  for (const file of files) claims.set(file, await claimCaptureDirs(file, captureDirs));
  const owner = new Map<string, string>();
  const pairedClaim = new Map<string, Claim>();
  for (const file of files) {
    const c = claims.get(file)![0];
    if (!c) continue;
    const held = owner.get(c.dir);
    const rival = held === undefined ? null : pairedClaim.get(held)!;
    if (!rival || c.hits > rival.hits || (c.hits === rival.hits && path.basename(file).length < path.basename(held!).length)) {
      if (held !== undefined) pairedClaim.delete(held);
      owner.set(c.dir, file);
      pairedClaim.set(file, c);
    }
  }
  for (const file of files) {
    if (pairedClaim.has(file)) continue;
    const alt = claims.get(file)!.find((c) => c.hits > 0 && !owner.has(c.dir));
    if (alt) {
      owner.set(alt.dir, file);
      pairedClaim.set(file, alt);
    }
  }
  // The dirs holding a file's ids that went to another run; a lone dir holding none of its ids is not contested
  // unless its owner has none there either (two runs just starting beside one dir).
  const lost = (file: string) =>
    claims.get(file)!.filter((c) => owner.has(c.dir) && owner.get(c.dir) !== file && (c.hits > 0 || pairedClaim.get(owner.get(c.dir)!)!.hits === 0));
  const held = (x: Claim) => `${x.hits} of ${x.sampled} sampled rollout ids`;
  const rel = (dir: string) => path.relative(target, dir) || '.';
  for (const file of files) {
    const won = pairedClaim.get(file) ?? null;
    const sentences: string[] = [];
    if (won) {
      const rivals = files.filter((f) => f !== file && lost(f).some((c) => c.dir === won.dir));
      if (rivals.length) {
        sentences.push(`The capture dir ${rel(won.dir)} is paired with this run (${held(won)}); it also holds rollout ids of ${rivals.map((f) => `run ${ids.get(f)} (${path.basename(f)})`).join(', ')}, whose calls are not read from it since a capture dir belongs to one run.`);
      }
    }
    for (const c of lost(file)) {
      const winner = owner.get(c.dir)!;
      const theirs = pairedClaim.get(winner)!;
      const consequence = won
        ? `the calls of those rollouts are not read from it`
        : `this run's calls come from its lines' own ng_model_call_capture attachments, or are unknown. To read them from the dir, serve ${path.basename(file)}=${rel(c.dir)} alone`;
      sentences.push(`The capture dir ${rel(c.dir)} beside this file holds ${held(c)} of this run, but it is paired with run ${ids.get(winner)} (${path.basename(winner)}, ${held(theirs)}): a capture dir belongs to one run, so ${consequence}.`);
      notes.push(`capture dir ${c.dir}: paired with ${winner} (${held(theirs)}), not with ${file} (${held(c)}); a capture dir belongs to one run, so ${path.basename(file)} is served without it${won ? ` (with ${won.dir})` : ''}`);
    }
    of.set(file, { captureDir: won?.dir ?? null, note: sentences.length ? sentences.join(' ') : null });
  }
  return { of, notes };
}
