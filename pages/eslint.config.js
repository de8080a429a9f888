// ESLint (flat config) for the JavaScript of pages/: the Attention runtime (runtime/src, bundled for
// the browser), its Node unit tests and build script, the reference Host, the test apps and the corpus
// entry. `npm test` runs it, then `prettier --check`, then the unit tests. HTML files (and their inline
// scripts) are not linted. The recommended rules, with the runtime's deliberate patterns allowed
// narrowly (see each rule below); pages/apps/ holds deliberately misbehaving and hostile test pages,
// linted for mistakes, never "fixed" in behaviour.
const js = require('@eslint/js');
const globals = require('globals');

module.exports = [
  { ignores: ['**/node_modules/', '**/dist/', '**/*.html'] },
  js.configs.recommended,
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // A catch that ignores its error names it `_` (`catch (_) { /* ignore */ }`: a DOM read on a
      // hostile or detached node, a postMessage to a window that went away); the omit idiom
      // `({ li, ...rest }) => rest` drops members on purpose. Everything else unused is reported.
      'no-unused-vars': ['error', { caughtErrors: 'all', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  {
    // `let v = fallback; try { v = read(); } catch (_) { v = fallback; }`: the runtime's reads over
    // hostile or patched DOM start every variable at its fallback, also where the catch sets it again.
    files: ['runtime/src/**/*.js', 'host/overlay.js'],
    rules: { 'no-useless-assignment': 'off' },
  },
  {
    // The runtime: ES modules bundled into one classic script for the browser (every realm).
    files: ['runtime/src/**/*.js'],
    languageOptions: { sourceType: 'module', globals: { ...globals.browser } },
  },
  {
    // Node: the unit tests, the build script, this file.
    files: ['runtime/test/**/*.js', 'runtime/build.mjs'],
    languageOptions: { sourceType: 'module', globals: { ...globals.node } },
  },
  {
    files: ['eslint.config.js'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
  },
  {
    // The reference Host and the corpus entries: ES modules in the top realm or an app realm.
    files: ['host/**/*.js', 'corpora/**/*.js', 'apps/corpus-mount.js'],
    languageOptions: { sourceType: 'module', globals: { ...globals.browser } },
  },
  {
    // The leaf log and the misbehaving / hostile relay peers: classic scripts of app documents.
    files: ['apps/leaf-log.js', 'apps/peer-fake.js', 'apps/peer-hostile.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.browser } },
  },
];
