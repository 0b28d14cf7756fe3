#!/usr/bin/env node
// The callscope command line. Sources are TypeScript; tsx compiles them on load.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../lib/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
