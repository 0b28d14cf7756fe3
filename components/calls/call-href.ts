// Addresses of the rollout and call pages (ids percent-encoded, as the router expects them).

export const runHref = (run: string) => `/runs/${encodeURIComponent(run)}`;
export const rolloutHref = (run: string, rollout: string) => `${runHref(run)}/rollouts/${encodeURIComponent(rollout)}`;
export const callHref = (run: string, rollout: string, call: string) => `${rolloutHref(run, rollout)}/calls/${encodeURIComponent(call)}`;
export const rolloutApiHref = (run: string, rollout: string) => `/api${rolloutHref(run, rollout)}`;
export const callApiHref = (run: string, rollout: string, call: string) => `/api${callHref(run, rollout, call)}`;
