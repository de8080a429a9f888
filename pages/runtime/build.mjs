// Builds the bundles the server serves, each with esbuild (pinned in ../package.json):
// - the Attention runtime: the ES modules under src/ (entry src/main.js) into one classic script, an
//   IIFE with nothing loaded at run time, written to dist/attention.js;
// - the Material Web corpus: ../corpora/material.js (which imports @material/web, whose modules name
//   lit / @lit/context / tslib by bare specifier) into one ES module, ../corpora/dist/material.js.
// The server (harness/src/server/runtime_bundle.rs) runs this whenever an input is newer than any
// output; run it by hand with `node runtime/build.mjs` from pages/. Every write is atomic (a
// temporary file beside the output, then a rename), so concurrent builds and readers never see a
// partial bundle.
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));

const BUNDLES = [
  {
    entry: join(here, 'src', 'main.js'),
    out: join(here, 'dist', 'attention.js'),
    options: {
      format: 'iife',
      // The runtime's functions were written for strict mode (one 'use strict' IIFE); ES modules are
      // strict, and the classic script that carries them must be too.
      banner: { js: "'use strict';" },
    },
  },
  {
    entry: join(here, '..', 'corpora', 'material.js'),
    out: join(here, '..', 'corpora', 'dist', 'material.js'),
    options: { format: 'esm' },
  },
];

async function build({ entry, out, options }) {
  let result;
  try {
    result = await esbuild.build({
      entryPoints: [entry],
      bundle: true,
      platform: 'browser',
      target: 'es2020',
      minify: false,
      charset: 'utf8',
      legalComments: 'inline',
      write: false,
      logLevel: 'silent',
      ...options,
    });
  } catch (e) {
    // esbuild's own messages (file:line:column: text), for the server's error to quote.
    const errors = (e && e.errors) || [];
    for (const m of errors) {
      const at = m.location ? `${m.location.file}:${m.location.line}:${m.location.column}: ` : '';
      console.error(`${at}${m.text}`);
    }
    if (!errors.length) console.error(String((e && e.stack) || e));
    process.exit(1);
  }
  for (const w of result.warnings) console.error(`esbuild warning: ${w.text}`);

  await mkdir(dirname(out), { recursive: true });
  const tmp = join(dirname(out), `.${Date.now()}.${process.pid}.tmp`);
  try {
    await writeFile(tmp, result.outputFiles[0].contents);
    await rename(tmp, out);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}

for (const b of BUNDLES) await build(b);
