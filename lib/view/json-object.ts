// A parsed JSON value that is an object (not null, not an array): what the payload views walk into. Payloads are
// read leniently, so every view asks this one question the same way.
export type Obj = Record<string, unknown>;

export const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
