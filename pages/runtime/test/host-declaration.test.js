// The reference Host's layout declaration checker (pages/host/declaration.js, json-source.js): the
// code host.js runs on the file it fetches and the harness CLI runs under Node for `--layout-file`.
// Every refusal class at its boundary, with the line and column it is reported at.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { checkDeclarationText, formatProblem, layoutBoxes, nearestKey } from '../../host/declaration.js';
import { parseJsonSource } from '../../host/json-source.js';

const PAGES = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const read = (rel) => readFileSync(join(PAGES, rel), 'utf8');
const VIEW = { width: 1280, height: 720 };

/** `{panel: size}` children of one horizontal default layout. */
function decl(children, panels, extra = {}) {
  return JSON.stringify(
    {
      layout: {
        layouts: { default: { direction: 'horizontal', children, ...extra } },
        panels: panels ?? {
          nav: { kind: 'builtin', id: '@HOST/nav-sidebar' },
          main: { kind: 'page', id: 'home' },
          chat: { kind: 'builtin', id: '@HOST/chat' },
        },
      },
    },
    null,
    2,
  );
}

const kinds = (r) => r.problems.map((p) => p.kind);

test('the shipped declarations pass and invalid.json is refused with every rule it breaks', () => {
  for (const f of ['host/layouts/default.json', 'host/layouts/stacked.json', '../fixtures/layouts/chat-below.json']) {
    assert.deepEqual(checkDeclarationText(read(f), { viewport: VIEW }).problems, [], f);
  }
  const r = checkDeclarationText(read('host/layouts/invalid.json'), { viewport: VIEW });
  assert.deepEqual(kinds(r).sort(), [
    'duplicate-panel',
    'invalid-size',
    'multiple-main',
    'unknown-builtin',
    'unknown-page',
    'unknown-panel',
  ]);
  // In the file's order.
  const lines = r.problems.map((p) => p.line);
  assert.deepEqual(
    lines,
    [...lines].sort((a, b) => a - b),
  );
});

test('a JSON syntax error is reported at its line and column', () => {
  const cases = [
    ['{\n  "layout": {\n    "layouts": \n', 4, 1, 'the end of the file'],
    ['{\n  "layout": { "a": 1, }\n}', 2, 23, 'member name'],
    ['{ "layout": [1 2] }', 1, 16, '`,` or `]`'],
    ['{ "layout": "\\x" }', 1, 14, 'invalid escape'],
    ['{ "layout": 01 }', 1, 14, 'invalid number'],
    ['{ layout: 1 }', 1, 3, 'member name'],
    ['{ "a": 1 } x', 1, 12, 'after the JSON value'],
    ['{ "a": "é", "b": ? }', 1, 18, 'JSON value'],
  ];
  for (const [text, line, column, words] of cases) {
    const r = checkDeclarationText(text);
    assert.equal(r.declaration, null, text);
    assert.equal(r.problems.length, 1, text);
    const [p] = r.problems;
    assert.equal(p.kind, 'invalid-json', text);
    assert.deepEqual([p.line, p.column], [line, column], `${text}: ${p.message}`);
    assert.match(p.message, new RegExp(words.replace(/[`[\]]/g, '.')), text);
    assert.throws(() => JSON.parse(text), undefined, `JSON.parse accepts ${text}`);
  }
});

test('the positional parser accepts exactly what JSON.parse accepts and returns the same value', () => {
  const ok = [
    '{}',
    '[]',
    '0',
    '-0.5e+3',
    '"\\u00e9\\n\\/"',
    '{"a":[true,false,null,{"b":"c"}]}',
    ' \n\t{ "x" : 1e5 } \r\n',
  ];
  for (const text of ok) {
    assert.deepEqual(parseJsonSource(text).value, JSON.parse(text), text);
  }
  for (const text of [
    '\ufeff{}',
    '',
    '{',
    '[1,]',
    '{"a":1,}',
    "'a'",
    'NaN',
    '1.',
    '.5',
    '+1',
    '"\t"',
    'tru',
    '{"a" 1}',
  ]) {
    assert.throws(() => parseJsonSource(text), undefined, `parser accepts ${JSON.stringify(text)}`);
    assert.throws(() => JSON.parse(text), undefined, `JSON.parse accepts ${JSON.stringify(text)}`);
  }
});

test('an unknown key is refused with its path, where it is, and the nearest known key', () => {
  const text = read('../fixtures/layouts/misspelled-key.json');
  const r = checkDeclarationText(text, { viewport: VIEW });
  assert.deepEqual(kinds(r), ['unknown-key']);
  const [p] = r.problems;
  const at = text.split('\n').findIndex((l) => l.includes('"sise"'));
  assert.deepEqual([p.line, p.column], [at + 1, text.split('\n')[at].indexOf('"sise"') + 1]);
  assert.match(p.message, /`layout\.layouts\.default\.children\[2\]\.sise` is not a known key; nearest known: `size`/);
  assert.equal(
    formatProblem('f.json', p),
    `f.json:${p.line}:${p.column}: unknown-key: ${p.message}`,
    'one message form: FILE:LINE:COL: kind: message',
  );
  // Every level: the top, `layout`, a panel, a split.
  const tops = checkDeclarationText(JSON.stringify({ layot: 1, layout: JSON.parse(decl([])).layout }));
  assert.ok(tops.problems.some((q) => q.kind === 'unknown-key' && /`layot`.*`layout`/.test(q.message)));
  const panel = JSON.parse(decl([{ panel: 'main', main: true }], { main: { kind: 'page', id: 'home', titel: 'x' } }));
  assert.match(checkDeclarationText(JSON.stringify(panel)).problems[0].message, /panels\.main\.titel.*`kind`|`id`/);
  const split = decl([
    { panel: 'main', main: true },
    { direction: 'vertical', childs: [] },
  ]);
  assert.ok(
    checkDeclarationText(split).problems.some((q) =>
      /children\[1\]\.childs.*nearest known: `children`/.test(q.message),
    ),
  );
  assert.equal(nearestKey('panle', ['panel', 'size', 'main']), 'panel');
  // Known keys pass: the boundary of the rule is the key set itself.
  assert.deepEqual(
    checkDeclarationText(decl([{ panel: 'main', size: '1fr', main: true }])).problems,
    [],
    'panel, size and main are known',
  );
});

test('a key given twice and a main that is not a boolean are refused', () => {
  const twice = '{"layout": {"layouts": {}, "panels": {}, "panels": {}}}';
  const dup = checkDeclarationText(twice).problems.find((p) => p.kind === 'duplicate-key');
  assert.ok(dup, 'a duplicate-key problem');
  assert.deepEqual([dup.line, dup.column], [1, 42]);
  assert.match(dup.message, /`layout\.panels` is given twice/);
  const main = checkDeclarationText(decl([{ panel: 'main', main: 'true' }]));
  assert.ok(kinds(main).includes('invalid-main'), kinds(main).join());
});

test('fixed sizes that exactly fit the viewport pass and one px more is refused naming the panels', () => {
  const children = (chat) => [
    { panel: 'nav', size: '180px' },
    { panel: 'main', size: '1fr', main: true },
    { panel: 'chat', size: `${chat}px` },
  ];
  assert.deepEqual(checkDeclarationText(decl(children(1100)), { viewport: VIEW }).problems, []);
  const r = checkDeclarationText(decl(children(1101)), { viewport: VIEW });
  assert.deepEqual(kinds(r), ['does-not-fit']);
  assert.equal(
    r.problems[0].message,
    'layout.layouts.default: fixed sizes nav 180px + chat 1101px = 1281px do not fit in the 1280px width of the 1280x720 CSS px viewport',
  );
  // Without a viewport (window.__host.validate on an object) there is nothing to fit.
  assert.deepEqual(checkDeclarationText(decl(children(5000))).problems, []);
  // A nested split: its own fixed size is what its children must fit, along its direction.
  const nested = (tools) =>
    decl([
      { panel: 'main', main: true },
      {
        direction: 'vertical',
        size: '300px',
        children: [
          { panel: 'nav', size: `${tools}px` },
          { panel: 'chat', size: '220px' },
        ],
      },
    ]);
  assert.deepEqual(checkDeclarationText(nested(500), { viewport: VIEW }).problems, []);
  const n = checkDeclarationText(nested(501), { viewport: VIEW });
  assert.deepEqual(kinds(n), ['does-not-fit']);
  assert.match(
    n.problems[0].message,
    /children\[1\]: fixed sizes nav 501px \+ chat 220px = 721px do not fit in its 720px height/,
  );
  // The case: a 1400 px panel in a 1280 px viewport.
  const wide = checkDeclarationText(read('../fixtures/layouts/too-wide.json'), { viewport: VIEW });
  assert.match(wide.problems[0].message, /tools 1400px = 1400px do not fit in the 1280px width/);
  assert.equal(wide.problems[0].panelId, 'tools');
});

test('layoutBoxes gives every panel the box host.css lays it out in', () => {
  const d = JSON.parse(read('host/layouts/default.json'));
  assert.deepEqual(layoutBoxes(d.layout.layouts.default, { width: 1000, height: 500 }), [
    { panel: 'nav', x: 0, y: 0, width: 180, height: 500 },
    { panel: 'main', x: 180, y: 0, width: 260, height: 500 },
    { panel: 'tools', x: 440, y: 0, width: 240, height: 500 },
    { panel: 'chat', x: 680, y: 0, width: 320, height: 500 },
  ]);
});

test('a url page is an absolute http(s) URL without credentials, alone, and must answer', () => {
  const panels = (main) => ({
    nav: { kind: 'builtin', id: '@HOST/nav-sidebar' },
    main: { kind: 'page', ...main },
  });
  const children = [
    { panel: 'nav', size: '200px' },
    { panel: 'main', size: '1fr', main: true },
  ];
  const check = (main, opts) => checkDeclarationText(decl(children, panels(main)), { viewport: VIEW, ...opts });
  assert.deepEqual(check({ url: 'http://localhost:5173/' }).problems, []);
  assert.deepEqual(check({ url: 'https://app.example/signup?x=1' }).problems, []);
  for (const bad of [
    'localhost:5173',
    '/signup',
    'file:///etc/passwd',
    'ftp://x.example/',
    'http://u:p@x.example/',
    7,
  ]) {
    const r = check({ url: bad });
    assert.deepEqual(kinds(r), ['invalid-url'], `${bad}`);
    assert.match(r.problems[0].message, /must be an absolute http: or https: URL/);
  }
  assert.deepEqual(kinds(check({ url: 'http://localhost:1/', src: 'app/' })), ['invalid-panel']);
  assert.deepEqual(kinds(check({ url: 'http://localhost:1/', id: 'home' })), ['invalid-panel']);
  assert.deepEqual(kinds(check({ url: 'http://localhost:1/', origin: 'same' })), ['invalid-origin']);
  // The side that can reach the network says whether it answers, at the url's line and column.
  const asked = [];
  const r = check(
    { url: 'http://localhost:1/' },
    { checkUrl: (u) => (asked.push(u), { kind: 'unreachable-url', message: `${u} does not answer` }) },
  );
  assert.deepEqual(asked, ['http://localhost:1/']);
  assert.deepEqual(kinds(r), ['unreachable-url']);
  assert.equal(r.problems[0].message, 'panel `main`: http://localhost:1/ does not answer');
  assert.equal(formatProblem('f.json', r.problems[0]).startsWith(`f.json:${r.problems[0].line}:`), true);
  assert.ok(r.problems[0].line > 1);
});
