// Which paths are polled: a statfs type of a network or cluster file system (whose remote writes inotify never
// sees) is, a local one is not; --poll / CALLSCOPE_POLL=1 polls everything, CALLSCOPE_POLL=0 nothing.
import { statfsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { networkFsName, pollModeFromEnv, pollReason } from '../../../../lib/index/sources/watch-mount';
import { describePolling } from '../../../../lib/index/sources/watcher';

const NETWORK: [number, string][] = [
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
];
const LOCAL: [number, string][] = [
  [0xef53, 'ext4'],
  [0x58465342, 'xfs'],
  [0x9123683e, 'btrfs'],
  [0x01021994, 'tmpfs'],
  [0x794c7630, 'overlayfs'],
  [0x2fc12fc1, 'zfs'],
];

describe('mount detection', () => {
  it.each(NETWORK)('statfs type %i is polled as %s', (type, name) => {
    expect(networkFsName(type)).toBe(name);
    expect(pollReason('/data/run/captures', 'auto', () => ({ type }))).toBe(name);
  });

  it.each(LOCAL)('statfs type %i (%s) keeps inotify', (type) => {
    expect(networkFsName(type)).toBeNull();
    expect(pollReason('/data/run/captures', 'auto', () => ({ type }))).toBeNull();
  });

  it('a magic with its top bit set counts when statfs reports it as a negative number', () => {
    expect(networkFsName(0xff534d42 | 0)).toBe('cifs');
    expect(0xff534d42 | 0).toBeLessThan(0);
  });

  it('--poll polls every path and CALLSCOPE_POLL=0 none, whatever the mount', () => {
    expect(pollReason('/x', 'always', () => ({ type: 0xef53 }))).toBe('--poll');
    expect(pollReason('/x', 'never', () => ({ type: 0x6969 }))).toBeNull();
    expect(pollModeFromEnv({ CALLSCOPE_POLL: '1' })).toBe('always');
    expect(pollModeFromEnv({ CALLSCOPE_POLL: '0' })).toBe('never');
    expect(pollModeFromEnv({})).toBe('auto');
  });

  it('a path that does not exist yet is judged by its nearest existing parent', () => {
    const asked: string[] = [];
    const statfs = (p: string) => {
      asked.push(p);
      if (p !== '/mnt/nfs') throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
      return { type: 0x6969 };
    };
    expect(pollReason('/mnt/nfs/run7/captures', 'auto', statfs)).toBe('nfs');
    expect(asked).toEqual(['/mnt/nfs/run7/captures', '/mnt/nfs/run7', '/mnt/nfs']);
    expect(pollReason('/nowhere', 'auto', () => { throw new Error('ENOSYS'); })).toBeNull();
  });

  it('reads the real statfs of this machine', () => {
    const tmp = os.tmpdir();
    expect(pollReason(path.join(tmp, 'not-there', 'captures'), 'auto')).toBe(networkFsName(statfsSync(tmp).type));
  });
});

describe('the polling line', () => {
  it('says what --poll follows, or which paths are on which network file system, and the rate', () => {
    expect(describePolling([['/r', '--poll', 'tree'], ['/r/a/captures', '--poll', 'dir'], ['/r/b/captures', '--poll', 'dir']], true)).toBe(
      "callscope: following 1 root, 2 capture dirs by polling (--poll), pausing at least 1 s and 4x the last round's time between rounds",
    );
    const line = describePolling([['/nfs/a/captures', 'nfs', 'dir'], ['/lus/b', 'lustre', 'tree'], ['/x', 'nfs', 'dir'], ['/y', 'nfs', 'file']], false);
    expect(line).toMatch(/^callscope: polling \/nfs\/a\/captures \(nfs\), \/lus\/b \(lustre\), \/x \(nfs\) and 1 more: a network file system/);
  });
});
