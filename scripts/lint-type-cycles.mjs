// An ESLint rule for the import cycles import-x/no-cycle cannot see: those through `import type` (it skips type-only
// imports, with no option to count them). Such a cycle never fails at run time, but it ties modules together that
// should read one after the other (issue 19: lib/demo's scenario.ts <-> rollout.ts). The graph is the TypeScript
// program's (tsconfig.json), its static imports and re-exports resolved by TypeScript, built once per lint run; an
// import that stays inside a cycle is reported with the cycle's path.
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(import.meta.dirname, '..');
let program = null;

/** The program's files, their imports, and each file's cycle (strongly connected component of two or more files). */
function importGraph() {
  if (program) return program;
  const config = ts.parseJsonConfigFileContent(ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), ts.sys.readFile).config, ts.sys, ROOT);
  const files = new Set(config.fileNames.filter((f) => /\.(ts|tsx|mts|cts)$/.test(f) && !f.endsWith('.d.ts')));
  const resolve = (spec, from) => {
    const r = ts.resolveModuleName(spec, from, config.options, ts.sys).resolvedModule?.resolvedFileName;
    return r && files.has(r) ? r : null;
  };
  const imports = new Map();
  for (const file of files) {
    const source = ts.createSourceFile(file, ts.sys.readFile(file) ?? '', ts.ScriptTarget.Latest);
    const specs = source.statements.filter((s) => (ts.isImportDeclaration(s) || ts.isExportDeclaration(s)) && s.moduleSpecifier && ts.isStringLiteral(s.moduleSpecifier));
    imports.set(file, new Set(specs.map((s) => resolve(s.moduleSpecifier.text, file)).filter(Boolean)));
  }
  // Tarjan's strongly connected components.
  const index = new Map();
  const low = new Map();
  const stack = [];
  const cycleOf = new Map();
  const visit = (v) => {
    index.set(v, index.size);
    low.set(v, index.get(v));
    stack.push(v);
    for (const w of imports.get(v)) {
      if (!index.has(w)) visit(w);
      if (stack.includes(w)) low.set(v, Math.min(low.get(v), low.get(w)));
    }
    if (low.get(v) !== index.get(v)) return;
    const members = new Set(stack.splice(stack.indexOf(v)));
    if (members.size > 1) for (const m of members) cycleOf.set(m, members);
  };
  for (const f of files) if (!index.has(f)) visit(f);
  program = { imports, cycleOf, resolve };
  return program;
}

/** The shortest import path from `from` back to `to` inside their cycle. */
function pathBack(imports, members, from, to) {
  const previous = new Map([[from, null]]);
  for (const queue = [from]; queue.length;) {
    const v = queue.shift();
    if (v === to) break;
    for (const w of imports.get(v)) {
      if (members.has(w) && !previous.has(w)) {
        previous.set(w, v);
        queue.push(w);
      }
    }
  }
  if (!previous.has(to)) return [to];
  const route = [];
  for (let v = to; v !== null; v = previous.get(v)) route.unshift(v);
  return route;
}

export const noTypeImportCycle = {
  meta: { type: 'problem', docs: { description: 'Forbid import cycles, type-only imports included' }, schema: [], messages: { cycle: 'Import cycle (type-only imports included): {{route}}' } },
  create(context) {
    const { imports, cycleOf, resolve } = importGraph();
    const file = context.physicalFilename;
    const members = cycleOf.get(file);
    if (!members) return {};
    const check = (node) => {
      const target = node.source && resolve(node.source.value, file);
      if (!target || !members.has(target)) return;
      const route = [file, ...pathBack(imports, members, target, file)].map((f) => path.relative(ROOT, f));
      context.report({ node, messageId: 'cycle', data: { route: route.join(' -> ') } });
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check };
  },
};
