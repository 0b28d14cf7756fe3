import path from 'node:path';

/** The checkout the benchmarks measure: children start here, reports/ is here, `git` is asked here. */
export const ROOT = path.resolve(import.meta.dirname, '../..');
