// Builds the native capture-line scan (native/scan.cc) with node-gyp; run by `npm install` (postinstall).
// Ingest works without it (the JavaScript scan, several times slower on capture lines): a failed build warns
// and exits 0, so that `npm install` still succeeds; the unit tests report the addon missing.
import { spawnSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const native = path.join(root, 'native');

/** node-gyp as npm runs it for packages' builds: npm's own copy (npm sets npm_config_node_gyp for scripts). */
function nodeGyp() {
  const candidates = [process.env.npm_config_node_gyp];
  if (process.env.npm_execpath) candidates.push(path.join(path.dirname(process.env.npm_execpath), '..', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'));
  try {
    const npm = realpathSync(path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js'));
    candidates.push(path.join(path.dirname(npm), '..', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'));
  } catch {
    // no npm beside this node
  }
  return candidates.find((c) => c && existsSync(c)) ?? null;
}

const gyp = nodeGyp();
if (!gyp) {
  console.warn('callscope: node-gyp not found; the native capture scan is not built (ingest uses the JavaScript scan)');
  process.exit(0);
}
const args = [gyp, 'rebuild', '--release'];
// Node's headers: npm's `nodedir` setting when set (this machine kind has them in /usr/include/node), else node-gyp's own lookup.
const nodedir = process.env.npm_config_nodedir ?? (existsSync('/usr/include/node/node_api.h') ? '/usr' : undefined);
if (nodedir) args.push(`--nodedir=${nodedir}`);
const started = Date.now();
const r = spawnSync(process.execPath, args, { cwd: native, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
if (r.status !== 0) {
  console.warn(`callscope: building the native capture scan failed (node-gyp exit ${r.status ?? r.signal}); ingest uses the JavaScript scan.`);
  console.warn((r.stderr || r.stdout || '').split('\n').filter((l) => !l.startsWith('gyp info')).slice(-20).join('\n'));
  process.exit(0);
}
console.log(`callscope: native capture scan built in ${((Date.now() - started) / 1000).toFixed(1)} s (native/build/Release/callscope_scan.node)`);
