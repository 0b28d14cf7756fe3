// Timing helpers: one clock (performance.now, ms since the process started) for every figure.

export const now = (): number => performance.now();

export const sleep = (ms: number): Promise<void> => new Promise<void>((r) => setTimeout(r, ms));

/** Polls `cond` every 5 ms; false once `timeoutMs` passed without it. */
export async function waitFor(cond: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = now() + timeoutMs;
  while (!cond()) {
    if (now() > deadline) return false;
    await sleep(5);
  }
  return true;
}
