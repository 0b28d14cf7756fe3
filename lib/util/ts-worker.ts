// A worker thread running a TypeScript module. Loader hooks are per thread in Node 20 and nothing here
// inherits the parent's (bin/callscope.js registers tsx in-process; vitest transforms on its own), so the
// worker first registers tsx's loader, resolved from this project, then imports its entry.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * tsx's ESM API entry (the package's `import` export), found as Node would from this file. Read from the file
 * system rather than through `require.resolve`, which Next's bundler resolves at build time and cannot.
 */
function tsxApiUrl(): string {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    const pkg = path.join(dir, 'node_modules', 'tsx', 'package.json');
    if (existsSync(pkg)) {
      const exported = (JSON.parse(readFileSync(pkg, 'utf8')) as { exports: Record<string, { import: { default: string } }> }).exports['./esm/api'];
      return pathToFileURL(path.join(path.dirname(pkg), exported.import.default)).href;
    }
    if (path.dirname(dir) === dir) throw new Error('tsx is not installed');
  }
}

export function tsWorker(entry: URL, options: Omit<WorkerOptions, 'eval'> = {}): Worker {
  const bootstrap = `import(${JSON.stringify(tsxApiUrl())}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(bootstrap, { ...options, eval: true });
}
