#!/usr/bin/env node
// The callscope command line. Sources are TypeScript; tsx compiles them on load. `callscope proxy` runs
// from a bundle of the same sources instead (bin/compiled.js: built on its first start and after any source
// change), because it is a long-running process whose memory counts; tsx remains its fallback.
const argv = process.argv.slice(2);
let main = null;
if (argv[0] === 'proxy' && !process.env.CALLSCOPE_TSX) {
  const { compiledMain } = await import('./compiled.js');
  main = await compiledMain();
}
if (!main) {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../lib/cli/main.ts'));
}
process.exitCode = await main(argv);
