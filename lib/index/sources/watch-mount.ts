// Which served paths must be polled. inotify (fs.watch, chokidar) reports the writes this machine's kernel
// makes; on a network or cluster file system the capture files are usually written by other nodes, whose
// writes it never sees. Such mounts are told by statfs's `f_type` magic number (linux/magic.h and the file
// systems' own sources); FUSE is among them since its server (sshfs, GlusterFS, s3fs...) writes behind the
// kernel's back too. `--poll` (or CALLSCOPE_POLL=1) polls every path; CALLSCOPE_POLL=0 never polls.
import { statfsSync } from 'node:fs';
import path from 'node:path';

export type PollMode = 'auto' | 'always' | 'never';

export const NETWORK_FS_TYPES: ReadonlyMap<number, string> = new Map([
  [0x6969, 'nfs'],
  [0x0bd00bd0, 'lustre'],
  [0xff534d42, 'cifs'],
  [0xfe534d42, 'smb2'],
  [0x517b, 'smb'],
  [0x65735546, 'fuse'],
  [0x47504653, 'gpfs'],
  [0x00c36400, 'ceph'],
  [0x01021997, '9p'],
  [0x19830326, 'beegfs'],
  [0x5346414f, 'afs'],
  [0x6b414653, 'kafs'],
  [0x73757245, 'coda'],
  [0x564c, 'ncp'],
  [0x01161970, 'gfs2'],
  [0x7461636f, 'ocfs2'],
  [0xaad7aaea, 'panfs'],
]);

/** The network file system a statfs `type` names, or null for a local one. */
export function networkFsName(type: number): string | null {
  // f_type is a signed long: a magic with its top bit set (CIFS, SMB2, PanFS) can come back negative.
  return NETWORK_FS_TYPES.get(type >>> 0) ?? null;
}

export function pollModeFromEnv(env: Record<string, string | undefined> = process.env): PollMode {
  const v = env.CALLSCOPE_POLL;
  return v === '1' || v === 'true' ? 'always' : v === '0' || v === 'false' ? 'never' : 'auto';
}

/** Why `p` is polled (`--poll`, or the file system's name), or null when inotify sees its writes. */
export function pollReason(p: string, mode: PollMode, statfs: (p: string) => { type: number } = statfsSync): string | null {
  if (mode === 'always') return '--poll';
  if (mode === 'never') return null;
  // A path that does not exist yet lies on its nearest existing parent's mount.
  for (let dir = p; ; dir = path.dirname(dir)) {
    try {
      return networkFsName(statfs(dir).type);
    } catch {
      if (path.dirname(dir) === dir) return null;
    }
  }
}
