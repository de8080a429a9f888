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
  // The issue's case: a 1400 px panel in a 1280 px viewport.
  const wide = checkDeclarationText(read('../fixtures/layouts/too-wide.json'), { viewport: VIEW });
  assert.match(wide.problems[0].message, /tools 1400px = 1400px do not fit in the 1280px width/);
  assert.equal(wide.problems[0].panelId, 'tools');
});

test('a url page routes at most 16 path prefixes of the Host origin, none the harness serves or another panel routes', () => {
  const children = [
    { panel: 'a', size: '1fr', main: true },
    { panel: 'b', size: '1fr' },
  ];
  const check = (a, b = { kind: 'page', url: 'http://localhost:2/' }) =>
    checkDeclarationText(decl(children, { a: { kind: 'page', url: 'http://localhost:1/', ...a }, b }), {
      viewport: VIEW,
    });
  const many = (n) => Array.from({ length: n }, (_, i) => `/r${i}/`);
  assert.deepEqual(check({ routes: ['/assets/', '/src/', '/@vite/', '/api/x/'] }).problems, []);
  assert.deepEqual(check({ routes: many(16) }).problems, []);
  for (const bad of [many(17), [], '/assets/', { '/assets/': true }]) {
    const r = check({ routes: bad });
    assert.deepEqual(kinds(r), ['invalid-routes'], JSON.stringify(bad));
    assert.match(r.problems[0].message, /routes must be a non-empty array of at most 16 path prefixes/);
  }
  const refused = [
    ['/', /not `\/` itself/],
    ['assets/', /starting and ending with `\/`/],
    ['/assets', /starting and ending with `\/`/],
    [7, /starting and ending/],
    ['/a?b/', /must not contain `\?`/],
    ['/a#b/', /must not contain/],
    ['/a%2e/', /must not contain/],
    ['/a\\b/', /must not contain/],
    ['/a//b/', /empty \(`\/\/`\), `\.` or `\.\.` segment/],
    ['/a/../', /`\.\.` segment/],
    ['/./', /`\.` or/],
    ['/host/', /overlaps `\/host\/`, which the harness serves itself/],
    ['/qa-url/x/', /overlaps `\/qa-url\/`/],
    ['/fragments/', /overlaps `\/fragments\/`/],
    ['/api/', /overlaps `\/api\/v1\/`/],
    ['/runtime/x/', /overlaps `\/runtime\/`/],
  ];
  for (const [bad, why] of refused) {
    const r = check({ routes: ['/ok/', bad] });
    assert.deepEqual(kinds(r), ['invalid-routes'], `${bad}`);
    assert.match(r.problems[0].message, why, `${bad}`);
    assert.match(r.problems[0].message, /^panel `a`: route /);
  }
  // A prefix of the harness's own that merely starts alike is not one: `/hosted/` is not `/host/`.
  assert.deepEqual(check({ routes: ['/hosted/', '/qa-urls/'] }).problems, []);
  // Two url pages may not route overlapping prefixes, nor one page the same twice.
  const both = (ra, rb) => check({ routes: ra }, { kind: 'page', url: 'http://localhost:2/', routes: rb });
  assert.deepEqual(both(['/assets/'], ['/static/']).problems, []);
  const r = both(['/assets/'], ['/assets/img/']);
  assert.deepEqual(kinds(r), ['invalid-routes']);
  assert.equal(r.problems[0].message, 'panel `b`: route `/assets/img/` overlaps route `/assets/` of panel `a`');
  assert.deepEqual(kinds(both(['/assets/img/'], ['/assets/'])), ['invalid-routes']);
  assert.deepEqual(kinds(check({ routes: ['/assets/', '/assets/'] })), ['invalid-routes']);
  // Only a url page has routes; the problem is at the routes' line.
  const src = checkDeclarationText(
    decl(children, { a: { kind: 'page', src: 'app/', routes: ['/assets/'] }, b: { kind: 'page', id: 'home' } }),
    { viewport: VIEW },
  );
  assert.deepEqual(kinds(src), ['invalid-routes']);
  assert.match(src.problems[0].message, /routes applies only to a `url` page/);
  assert.ok(src.problems[0].line > 1);
  assert.deepEqual(kinds(check({ rutes: ['/a/'] })), ['unknown-key']);
  assert.match(check({ rutes: ['/a/'] }).problems[0].message, /nearest known: `routes`/);
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

test('a component panel names a module inside the folder or by URL, a valid custom element name and string attributes', () => {
  const panels = (plans) => ({
    nav: { kind: 'builtin', id: '@HOST/nav-sidebar' },
    plans: { kind: 'component', ...plans },
  });
  const children = [
    { panel: 'nav', size: '200px' },
    { panel: 'plans', size: '1fr', main: true },
  ];
  const check = (plans, opts) => checkDeclarationText(decl(children, panels(plans)), { viewport: VIEW, ...opts });
  const ok = { module: 'signup/plan-picker.js', tag: 'plan-picker' };
  assert.deepEqual(check(ok).problems, []);
  assert.deepEqual(
    check({ ...ok, attributes: { label: 'Choose a plan', 'aria-describedby': 'x', 'data-x.y_z:w': '' } }).problems,
    [],
  );
  assert.deepEqual(check({ ...ok, origin: 'same' }).problems, []);
  assert.deepEqual(check({ ...ok, module: 'https://cdn.example/picker.js' }).problems, []);
  assert.deepEqual(check({ ...ok, module: './a/../picker.mjs' }).problems, []);

  // The tag, at the boundary of each rule of a valid custom element name (the HTML standard's since
  // whatwg/html#7991, Chromium's; tests/qa_apps.rs holds the checker to Chromium's define).
  for (const good of [
    'plan-picker',
    'a-',
    'x-1',
    'my-élément',
    'x-×',
    'x-$',
    'x-\u2000',
    'x-\u{10000}',
    'font-faces',
    'annotation-xml2',
  ]) {
    assert.deepEqual(check({ ...ok, tag: good }).problems, [], good);
  }
  for (const [bad, why] of [
    ['Plan-picker', 'must start with a lowercase ASCII letter'],
    ['plan-Picker', 'may not contain the uppercase letter `P`'],
    ['planpicker', 'must contain a hyphen'],
    ['-plan', 'must start with a lowercase ASCII letter'],
    ['1-plan', 'must start with a lowercase ASCII letter'],
    ['é-plan', 'must start with a lowercase ASCII letter'],
    ['plan picker-x', 'may not contain U+0020 (whitespace, NUL, / or >)'],
    ['plan-\tx', 'may not contain U+0009 (whitespace, NUL, / or >)'],
    ['plan-a/b', 'may not contain U+002F (whitespace, NUL, / or >)'],
    ['plan-a>b', 'may not contain U+003E (whitespace, NUL, / or >)'],
    ['plan-\0', 'may not contain U+0000 (whitespace, NUL, / or >)'],
    ['font-face', 'is reserved by SVG and MathML'],
    ['annotation-xml', 'is reserved by SVG and MathML'],
    ['missing-glyph', 'is reserved by SVG and MathML'],
    ['', 'must be a non-empty string'],
    [7, 'must be a non-empty string'],
  ]) {
    const r = check({ ...ok, tag: bad });
    assert.deepEqual(kinds(r), ['invalid-tag'], `${bad}`);
    assert.equal(
      r.problems[0].message,
      `panel \`plans\`: tag \`${bad}\` is not a valid custom element name: it ${why}`,
    );
  }
  assert.deepEqual(kinds(check({ module: ok.module })), ['invalid-tag']);

  // The module: inside the folder, a file, or an absolute http(s) URL.
  for (const bad of [
    '../picker.js',
    '/etc/picker.js',
    'a/../../picker.js',
    'file:///picker.js',
    'ftp://x/p.js',
    'http://u:p@x/p.js',
    'a\\b.js',
    'app/',
    '.',
  ]) {
    const r = check({ ...ok, module: bad });
    assert.deepEqual(kinds(r), ['src-outside'], bad);
    assert.match(
      r.problems[0].message,
      /must be a file inside the layout file's folder or an absolute http: or https: URL/,
    );
  }
  assert.deepEqual(kinds(check({ tag: ok.tag })), ['invalid-module']);
  assert.deepEqual(kinds(check({ ...ok, module: 3 })), ['invalid-module']);

  // Attributes: an object of strings with lowercase attribute names.
  for (const [attributes, where] of [
    [['label'], 'attributes'],
    ['label', 'attributes'],
    [{ Label: 'x' }, 'Label'],
    [{ 'a b': 'x' }, 'a b'],
    [{ '1a': 'x' }, '1a'],
    [{ '-a': 'x' }, '-a'],
    [{ 'a"': 'x' }, 'a"'],
    [{ '': 'x' }, '""'],
    [{ label: 7 }, 'label'],
    [{ label: null }, 'label'],
    [{ label: true }, 'label'],
  ]) {
    const r = check({ ...ok, attributes });
    assert.deepEqual(kinds(r), ['invalid-attributes'], JSON.stringify(attributes));
    assert.ok(r.problems[0].line > 1, where);
  }
  assert.equal(
    check({ ...ok, attributes: { label: 7 } }).problems[0].message,
    'panel `plans`: attribute `label` must be a string, not number',
  );

  // Unknown keys with the nearest known one; origin as a src page's.
  const r = check({ ...ok, tags: 'x' });
  assert.deepEqual(kinds(r), ['unknown-key']);
  assert.match(
    r.problems[0].message,
    /`layout\.panels\.plans\.tags` is not a known key; nearest known: `tag` \(known here: kind, module, tag, attributes, origin\)/,
  );
  assert.deepEqual(kinds(check({ ...ok, origin: 'other' })), ['invalid-origin']);
  assert.deepEqual(kinds(check({ ...ok, src: 'app/' })), ['unknown-key']);

  // What the side holding the files says of a module path, and the network of a URL module.
  const seen = [];
  const r2 = check(
    { ...ok, module: 'a/./b/../picker.js' },
    {
      checkModule: (p, raw) => (
        seen.push([p, raw]),
        { kind: 'missing-src', message: `module \`${raw}\` does not exist` }
      ),
    },
  );
  assert.deepEqual(seen, [['a/picker.js', 'a/./b/../picker.js']]);
  assert.deepEqual(kinds(r2), ['missing-src']);
  assert.equal(r2.problems[0].message, 'panel `plans`: module `a/./b/../picker.js` does not exist');
  const r3 = check(
    { ...ok, module: 'http://localhost:1/p.js' },
    { checkUrl: (u) => ({ kind: 'unreachable-url', message: `url ${u} does not answer` }) },
  );
  assert.deepEqual(kinds(r3), ['unreachable-url']);
});
