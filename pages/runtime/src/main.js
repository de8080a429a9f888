/*
 * The Wippy Attention runtime (the system under test), entry point of the bundle.
 *
 * esbuild bundles src/ into one classic script (dist/attention.js, an IIFE, nothing loaded at run
 * time). It is the first script of every HTML document (the server injects it; srcdoc documents get
 * it from the Host's mounting code; Web Fragment hidden realms get it in the gateway stub) and runs
 * synchronously before page scripts: every module's natives are captured while the bundle is
 * evaluated, then this installs, in order, the attachShadow patch (closed roots), the trusted-input,
 * focus and message listeners, the iframe scan, and the internal and public API. A realm that
 * already has a runtime is left alone, except that a runtime bound to the window's previous
 * document (an iframe's initial about:blank) is told to bind to the current one. Module map, the
 * layers (core < dom < realm < relay < host) and design notes: ../README.md. This module sees every
 * layer: it wires the hub (core/hub.js), through which a lower layer tells a higher one something.
 */
import { W } from './core/natives.js';
import { installShadowPatch } from './dom/shadow-roots.js';
import { installDocumentListeners } from './realm/document.js';
import { defineInternal, definePublicApi } from './host/api.js';
import { installFocusReturn } from './realm/focus-return.js';
import { ROLE } from './core/state.js';
import { on } from './core/hub.js';
import { observeRoot, scanIframes } from './relay/discovery.js';
import { onMessage } from './relay/router.js';
import { sendUp, forgetParent } from './relay/child.js';
import { detachAll, requestMerge } from './relay/parent.js';
import { observeForInspection, installInspectionListeners } from './realm/inspect-nodes.js';
import { noticeUp } from './relay/inspect-child.js';
import { onInspectUpCall } from './host/inspect.js';
import {
  onInspectionChange,
  invalidateAll,
  onTotalFromParent,
  onSlotCall,
  installSubscriptionListeners,
} from './host/subscriptions.js';

// Upward news, wired once while the bundle is evaluated (before page scripts, before install below).
// Each event has the handlers that were direct calls before the layering, in the same order.
on('root', observeRoot);
on('scan', scanIframes);
on('message', onMessage);
on('document-replaced', forgetParent);
on('document-replaced', detachAll);
on('observation-up', sendUp);
on('observation-separator', requestMerge);
on('root', observeForInspection);
on('document-replaced', invalidateAll);
on('inspection', noticeUp);
on('inspection', onInspectionChange);
on('inspect-up', onInspectUpCall);
on('inspect-total', onTotalFromParent);
on('subscribe-slot', onSlotCall);

function install() {
  installShadowPatch();
  installDocumentListeners();
  if (ROLE !== 'fragment-realm') installFocusReturn();
  installInspectionListeners();
  installSubscriptionListeners();
  defineInternal();
  definePublicApi();
}

// A realm that already has a runtime is left alone, except that a runtime which reached this
// window's previous document (the initial about:blank) binds to this one (realm/document.js).
const existing = W.__wippyAttentionRuntime;
if (!existing) install();
else if (typeof existing.adoptDocument === 'function') {
  try {
    existing.adoptDocument();
  } catch (_) {
    /* ignore */
  }
}
