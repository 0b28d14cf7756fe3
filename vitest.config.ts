import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { alias: { '@': import.meta.dirname } },
  test: {
    include: ['tests/**/*.test.ts'],
    pool: 'forks',
    globalSetup: ['tests/support/global-setup.ts'],
    setupFiles: ['tests/support/fc-seed.ts'],
    // JSON.parse source text access (context.source, JSON.rawJSON), which Chromium has and Node 20 keeps behind this
    // flag: the payload views keep numbers as written with it (lib/view/json-source.ts).
    execArgv: ['--harmony-json-parse-with-source'],
    testTimeout: 30_000,
    hookTimeout: 600_000,
    // Browser tests poll for what a user waits for; a loaded 2-core machine can take seconds to render.
    expect: { poll: { timeout: 15_000, interval: 100 } },
  },
});
