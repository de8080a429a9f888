/*
 * The Wippy Attention runtime (the system under test), entry point of the bundle.
 *
 * esbuild bundles src/ into one classic script (dist/attention.js, an IIFE, nothing loaded at run
 * time). It is the first script of every HTML document (the server injects it; srcdoc documents get
 * it from the Host's mounting code; Web Fragment hidden realms get it in the gateway stub) and runs
 * synchronously before page scripts: every module's natives are captured while the bundle is
 * evaluated, then this installs, in order, the attachShadow patch (closed roots), the trusted-input,
 * focus and message listeners, the iframe scan, and the internal and public API. A realm that
 * already has a runtime is left alone. Module map and design notes: ../README.md.
 */
import { W, D, nAddEL } from './natives.js';
import { POINTER_TYPES } from './constants.js';
import { safe, wrap } from './dom.js';
import { ROLE } from './state.js';
import { installShadowPatch } from './shadow-roots.js';
import { scanIframes, observeRoot } from './discovery.js';
import { onPointerEvent } from './observation.js';
import { focusInListener, focusOutListener, onWindowBlur } from './focus.js';
import { onMessage } from './router.js';
import { whenDomReady } from './readiness.js';
import { defineInternal, definePublicApi } from './api.js';
import { installFocusReturn } from './focus-return.js';

function install() {
  installShadowPatch();
  const capt = { capture: true, passive: true };
  if (ROLE !== 'fragment-realm') {
    POINTER_TYPES.forEach((t) => nAddEL.call(W, t, wrap(onPointerEvent), capt));
    nAddEL.call(W, 'focusin', focusInListener, capt);
    nAddEL.call(W, 'focusout', focusOutListener, capt);
    nAddEL.call(W, 'blur', wrap(onWindowBlur), capt);
    nAddEL.call(W, 'message', wrap(onMessage), true);
    installFocusReturn();
    observeRoot(D);
    whenDomReady().then(() => safe(scanIframes));
    nAddEL.call(W, 'load', wrap(() => scanIframes()), { once: true });
  }
  defineInternal();
  definePublicApi();
}

if (!W.__wippyAttentionRuntime) install();
