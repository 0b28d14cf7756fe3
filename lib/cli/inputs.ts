// Validation of command-line paths, with one-line errors that name the path and what is wrong with it.
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { CAPTURE_SUFFIX, INCOMPLETE_SUFFIX } from '../capture/store';
import { UsageError } from './io';

async function statOrNull(p: string) {
  try {
    return await fsp.stat(p);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw new UsageError(`${p}: ${(err as Error).message}`);
  }
}

export async function assertReadableFile(p: string, what: string): Promise<string> {
  const st = await statOrNull(p);
  if (!st) throw new UsageError(`${what} ${p}: no such file`);
  if (!st.isFile()) throw new UsageError(`${what} ${p}: not a regular file`);
  try {
    await fsp.access(p, fsp.constants.R_OK);
  } catch {
    throw new UsageError(`${what} ${p}: not readable`);
  }
  return path.resolve(p);
}

/**
 * A capture dir is a directory; it may be empty (a run that captured nothing). A directory that holds
 * rollout files but no capture files is almost certainly the wrong directory, so it is refused.
 */
export async function assertCaptureDir(p: string): Promise<string> {
  const st = await statOrNull(p);
  if (!st) throw new UsageError(`capture dir ${p}: no such directory`);
  if (!st.isDirectory()) throw new UsageError(`capture dir ${p}: not a directory`);
  const names = await fsp.readdir(p);
  const isCapture = (n: string) => n.endsWith(CAPTURE_SUFFIX) || n.endsWith(INCOMPLETE_SUFFIX);
  const isOtherJsonl = (n: string) => n.endsWith('.jsonl') && !isCapture(n) && !n.endsWith('.tokens.jsonl');
  const other = names.find(isOtherJsonl);
  if (other && !names.some(isCapture)) {
    throw new UsageError(`capture dir ${p}: not a capture dir (it holds ${other} but no <rollout_id>${CAPTURE_SUFFIX} files)`);
  }
  return path.resolve(p);
}
