// The entry of an ingest worker thread. Plain JavaScript, because a worker does not inherit the TypeScript
// loader its parent registered (bin/callscope.js registers tsx in-process; vitest transforms on its own):
// tsx's scoped tsImport loads the worker module here, whatever the parent runs under.
import { tsImport } from 'tsx/esm/api';

await tsImport('./ingest-worker.ts', import.meta.url);
