// The runtime's dependency rule (README "Layers"), checked over every module's static imports: the
// modules live in layer folders, lowest first core < dom < realm < relay < host; a module imports only
// from its own layer and the layers below it; no import circle anywhere, not even inside one folder;
// src/main.js, the bundle's entry, may import any layer and is imported by none. A lower layer that
// must tell a higher one something emits on core/hub.js, which main.js wires.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

// The rule, written once: the layer folders of src/, lowest first.
const LAYERS = ['core', 'dom', 'realm', 'relay', 'host'];
const ENTRY = 'main.js';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'src');

// Static imports of one module's source: `import ... from '...'`, `import '...'` and
// `export ... from '...'`, also spread over several lines. Returns [{specifier, line}].
export function staticImports(source) {
  // Comments go first (kept as blanks of the same length, so line numbers stay), so an import
  // quoted in a comment is not an edge. Strings and regular expressions of the runtime contain no
  // comment starts that matter here: a line comment is only taken at a line start or after code
  // whitespace, never inside a quoted string (the `'//'` of a URL).
  const blank = (s) => s.replace(/[^\n]/g, ' ');
  const code = source
    .replace(/\/\*[\s\S]*?\*\//g, blank)
    .replace(/(^|[\s;{}()])\/\/[^\n]*/g, (m, lead) => lead + blank(m.slice(lead.length)));
  const re =
    /(?:^|[;\n])[ \t]*(?:import\s*(?:[\w$\s{},*]+?\s*from\s*)?|export\s*(?:\*(?:\s*as\s+[\w$]+)?|\{[\w$\s,]*\})\s*from\s*)(['"])([^'"\n]+)\1/g;
  const out = [];
  for (const m of code.matchAll(re)) {
    const at = m.index + m[0].indexOf(m[1] + m[2] + m[1]);
    out.push({ specifier: m[2], line: code.slice(0, at).split('\n').length });
  }
  return out;
}

function modules(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return modules(p);
    return name.endsWith('.js') ? [p] : [];
  });
}
const rel = (p) => relative(SRC, p).split(sep).join('/');
const layerOf = (m) => (m === ENTRY ? null : m.split('/')[0]);

// module -> [{to, line, specifier}] for every static import of src/.
function graph() {
  const g = new Map();
  for (const file of modules(SRC)) {
    const edges = staticImports(readFileSync(file, 'utf8')).map(({ specifier, line }) => ({
      specifier,
      line,
      to: specifier.startsWith('.') ? rel(resolve(dirname(file), specifier)) : null,
    }));
    g.set(rel(file), edges);
  }
  return g;
}

// Every circle as a list of modules (first = last), found by depth-first search over the graph.
function circles(g) {
  const found = [];
  const state = new Map(); // module -> 1 on the stack, 2 done
  const stack = [];
  const visit = (m) => {
    state.set(m, 1);
    stack.push(m);
    for (const { to } of g.get(m) || []) {
      if (!to || !g.has(to)) continue;
      if (state.get(to) === 1) found.push(stack.slice(stack.indexOf(to)).concat([to]));
      else if (!state.has(to)) visit(to);
    }
    stack.pop();
    state.set(m, 2);
  };
  for (const m of [...g.keys()].sort()) if (!state.has(m)) visit(m);
  return found;
}

test('the import parser finds single-line, multi-line, bare and re-export imports, not commented ones', () => {
  const src = [
    "import { a } from './a.js';",
    'import {',
    '  b,',
    '  c as d,',
    "} from '../core/b.js';",
    'import * as e from \'./e.js\'; import f, { g } from "./f.js";',
    "import './side-effect.js';",
    "export { h } from './h.js';",
    "export * from './all.js';",
    "// import { no } from './comment.js';",
    "/* import { no } from './block.js'; */",
    "const url = 'http://x/'; // import { no } from './trailing.js';",
    "export function importer() { return 'from ./not-an-import.js'; }",
  ].join('\n');
  assert.deepEqual(staticImports(src), [
    { specifier: './a.js', line: 1 },
    { specifier: '../core/b.js', line: 5 },
    { specifier: './e.js', line: 6 },
    { specifier: './f.js', line: 6 },
    { specifier: './side-effect.js', line: 7 },
    { specifier: './h.js', line: 8 },
    { specifier: './all.js', line: 9 },
  ]);
});

test('every module lives in a layer folder, except the entry src/main.js', () => {
  const misplaced = [...graph().keys()].filter(
    (m) => m !== ENTRY && (!LAYERS.includes(layerOf(m)) || m.split('/').length !== 2),
  );
  assert.deepEqual(misplaced, [], `modules outside the layer folders ${LAYERS.join(', ')}: ${misplaced.join(', ')}`);
});

// The npm packages the runtime bundles (esbuild inlines them; nothing is loaded at run time), each
// pinned exactly in ../package.json (pages/README.md says why): the CSS search's selector tokenizer.
const BUNDLED_PACKAGES = ['@csstools/css-tokenizer'];
test('every import is a relative path to a module of src/ or an exactly pinned bundled package (the runtime loads nothing else)', () => {
  const pkg = JSON.parse(readFileSync(join(SRC, '..', '..', 'package.json'), 'utf8'));
  const bad = [];
  for (const [m, edges] of graph())
    for (const e of edges) {
      if (BUNDLED_PACKAGES.includes(e.specifier)) {
        if (!/^\d+\.\d+\.\d+$/.test((pkg.dependencies || {})[e.specifier] || ''))
          bad.push(`${m}:${e.line} imports '${e.specifier}', not pinned exactly in package.json`);
        continue;
      }
      if (!e.to || !existsSync(join(SRC, e.to)) || e.to.startsWith('..'))
        bad.push(`${m}:${e.line} imports '${e.specifier}'`);
    }
  assert.deepEqual(bad, [], bad.join('\n'));
});

test(`each layer imports only from itself and the layers below it (${LAYERS.join(' < ')}); nothing imports ${ENTRY}`, () => {
  const bad = [];
  for (const [m, edges] of graph()) {
    const from = layerOf(m);
    for (const e of edges) {
      if (!e.to) continue;
      if (e.to === ENTRY) {
        bad.push(`${m}:${e.line} imports ${e.to}: the entry is imported by no module`);
        continue;
      }
      if (from === null) continue; // the entry sees every layer
      const to = layerOf(e.to);
      if (LAYERS.indexOf(to) > LAYERS.indexOf(from))
        bad.push(
          `${m}:${e.line} imports ${e.to}: upward, ${from} -> ${to} (${from} may import only from ` +
            `${LAYERS.slice(0, LAYERS.indexOf(from) + 1).join(', ')}; tell a higher layer through core/hub.js)`,
        );
    }
  }
  assert.deepEqual(bad, [], '\n' + bad.join('\n'));
});

test('no import circles, not even inside one folder', () => {
  const found = circles(graph()).map((c) => c.join(' -> '));
  assert.deepEqual(found, [], '\nimport circles:\n' + found.join('\n'));
});
