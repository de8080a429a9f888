// Builds the Attention runtime: bundles the ES modules under src/ (entry src/main.js) with esbuild
// into one classic script, an IIFE with nothing loaded at run time, written to dist/attention.js.
// The server (harness/src/server/runtime_bundle.rs) runs this whenever a source is newer than the
// bundle; run it by hand with `node runtime/build.mjs` from pages/. The write is atomic (a temporary
// file in dist/, then a rename), so concurrent builds and readers never see a partial bundle.
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, 'dist');
const out = join(dist, 'attention.js');

let result;
try {
  result = await esbuild.build({
    entryPoints: [join(here, 'src', 'main.js')],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2020',
    minify: false,
    charset: 'utf8',
    legalComments: 'inline',
    // The runtime's functions were written for strict mode (one 'use strict' IIFE); ES modules are
    // strict, and the classic script that carries them must be too.
    banner: { js: "'use strict';" },
    write: false,
    logLevel: 'silent',
  });
} catch (e) {
  // esbuild's own messages (file:line:column: text), for the server's error to quote.
  const errors = (e && e.errors) || [];
  for (const m of errors) {
    const at = m.location ? `${m.location.file}:${m.location.line}:${m.location.column}: ` : '';
    console.error(`${at}${m.text}`);
  }
  if (!errors.length) console.error(String(e && e.stack || e));
  process.exit(1);
}
for (const w of result.warnings) console.error(`esbuild warning: ${w.text}`);

await mkdir(dist, { recursive: true });
const tmp = join(dist, `.attention.js.${process.pid}.${Date.now()}.tmp`);
try {
  await writeFile(tmp, result.outputFiles[0].contents);
  await rename(tmp, out);
} catch (e) {
  await rm(tmp, { force: true });
  throw e;
}
