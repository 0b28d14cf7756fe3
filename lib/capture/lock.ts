// BSD flock without blocking anything. A blocking flock would park a libuv pool thread per waiter, and
// enough waiters (our own concurrent appends, or a slow Python writer) exhaust the pool and deadlock the
// writes that would release the lock. So each attempt is non-blocking (LOCK_NB, microseconds, safe on the
// event loop) and a held lock is retried with a short backoff.
import fsExt from 'fs-ext';

const MAX_BACKOFF_MS = 20;

function tryLock(fd: number, mode: 'exnb' | 'shnb'): boolean {
  try {
    fsExt.flockSync(fd, mode);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EAGAIN' || code === 'EWOULDBLOCK') return false;
    throw err;
  }
}

export async function lock(fd: number, mode: 'ex' | 'sh'): Promise<void> {
  const nb = mode === 'ex' ? 'exnb' : 'shnb';
  let backoff = 0.5;
  while (!tryLock(fd, nb)) {
    await new Promise((r) => setTimeout(r, backoff));
    backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
  }
}

export function unlock(fd: number): void {
  fsExt.flockSync(fd, 'un');
}
