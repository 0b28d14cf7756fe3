// A worker thread running a TypeScript module. Loader hooks are per thread in Node 20 and nothing here
// inherits the parent's (bin/callscope.js registers tsx in-process; vitest transforms on its own), so the
// worker first registers tsx's loader, resolved from this project, then imports its entry.
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** tsx's ESM API entry (the package's `import` export), resolved from this project. */
function tsxApiUrl(): string {
  const require = createRequire(import.meta.url);
  const pkgPath = require.resolve('tsx/package.json');
  const exported = (require(pkgPath) as { exports: Record<string, { import: { default: string } }> }).exports['./esm/api'];
  return pathToFileURL(path.join(path.dirname(pkgPath), exported.import.default)).href;
}

export function tsWorker(entry: URL, options: Omit<WorkerOptions, 'eval'> = {}): Worker {
  const bootstrap = `import(${JSON.stringify(tsxApiUrl())}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(bootstrap, { ...options, eval: true });
}
