// Closed shadow roots: every realm patches Element.prototype.attachShadow to keep host -> ShadowRoot,
// so resolution can enter closed roots created after the runtime loaded (spec: web components with
// closed roots are traversed; declarative closed roots are a known limitation). A fragment realm
// forwards the roots of its custom elements to the main realm, which renders them.
import { W, nAttachShadow, nShadowRootGet } from './natives.js';
import { ROLE, REALM, closedRoots } from './state.js';
import { observeRoot } from './discovery.js';

export function registerRoot(host, root) {
  try { if (host && root) { closedRoots.set(host, root); observeRoot(root); } } catch (_) { /* ignore */ }
}
export function installShadowPatch() {
  // In a fragment realm, custom elements defined by fragment code live in this realm's prototypes but
  // render in the main document: forward their shadow roots to the main realm's registry.
  if (ROLE === 'fragment-realm') {
    try { const p = W.parent && W.parent.__wippyAttentionRuntime; if (p && p.registerRoot) REALM.forwardRoot = p.registerRoot; } catch (_) { REALM.forwardRoot = null; }
  }
  try {
    Element.prototype.attachShadow = function attachShadow(init) {
      const root = nAttachShadow.call(this, init);
      registerRoot(this, root);
      const forwardRoot = REALM.forwardRoot;
      if (forwardRoot) { try { forwardRoot(this, root); } catch (_) { /* ignore */ } }
      return root;
    };
  } catch (_) { /* ignore */ }
}
export function shadowOf(el) {
  let r = null;
  try { r = nShadowRootGet.call(el); } catch (_) { r = null; }
  return r || closedRoots.get(el) || null;
}
