// Closed shadow roots and ElementInternals: every realm patches Element.prototype.attachShadow to keep
// host -> ShadowRoot and HTMLElement.prototype.attachInternals to keep element -> ElementInternals,
// so resolution can enter closed roots created after the runtime loaded, read roles and ARIA state a
// component set on its internals, and enter a custom element's declarative closed root through
// `internals.shadowRoot` (spec: web components with closed roots are traversed). A fragment realm
// forwards both to the main realm, which renders them. A root registered here is announced on the
// hub (`root`): the relay observes it for iframes and focus (relay/discovery.js).
import { W, nAttachShadow, nAttachInternals, nInternalsGet, nShadowRootGet } from '../core/natives.js';
import { ROLE, REALM, closedRoots, internalsOf } from '../core/state.js';
import { emit } from '../core/hub.js';

// Roots announced on the hub: every root attachShadow made, and a declarative open root (never made
// through attachShadow) the first time a walk enters it, so from then on its changes move the tree
// revision and its iframes are found: nothing the runtime read under a root can change unseen.
const announcedRoots = new WeakSet();
export function registerRoot(host, root) {
  try {
    if (host && root) {
      announcedRoots.add(root);
      closedRoots.set(host, root);
      emit('root', root);
    }
  } catch (_) {
    /* ignore */
  }
}
export function registerInternals(el, internals) {
  try {
    if (el && internals) internalsOf.set(el, internals);
  } catch (_) {
    /* ignore */
  }
}
export function installShadowPatch() {
  // In a fragment realm, custom elements defined by fragment code live in this realm's prototypes but
  // render in the main document: forward their shadow roots and internals to the main realm.
  if (ROLE === 'fragment-realm') {
    try {
      const p = W.parent && W.parent.__wippyAttentionRuntime;
      if (p && p.registerRoot) REALM.forwardRoot = p.registerRoot;
      if (p && p.registerInternals) REALM.forwardInternals = p.registerInternals;
    } catch (_) {
      REALM.forwardRoot = null;
      REALM.forwardInternals = null;
    }
  }
  try {
    Element.prototype.attachShadow = function attachShadow(init) {
      const root = nAttachShadow.call(this, init);
      registerRoot(this, root);
      const forwardRoot = REALM.forwardRoot;
      if (forwardRoot) {
        try {
          forwardRoot(this, root);
        } catch (_) {
          /* ignore */
        }
      }
      return root;
    };
  } catch (_) {
    /* ignore */
  }
  if (!nAttachInternals) return;
  try {
    HTMLElement.prototype.attachInternals = function attachInternals() {
      const internals = nAttachInternals.call(this);
      registerInternals(this, internals);
      const forward = REALM.forwardInternals;
      if (forward) {
        try {
          forward(this, internals);
        } catch (_) {
          /* ignore */
        }
      }
      return internals;
    };
  } catch (_) {
    /* ignore */
  }
}
// A property of the element's ElementInternals (captured getter), or null.
export function internalsProp(el, prop) {
  const i = internalsOf.get(el);
  const g = nInternalsGet[prop];
  if (!i || !g) return null;
  try {
    const v = g.call(i);
    return v === undefined ? null : v;
  } catch (_) {
    return null;
  }
}
export function shadowOf(el) {
  let r = null;
  try {
    r = nShadowRootGet.call(el);
  } catch (_) {
    r = null;
  }
  if (r) {
    if (!announcedRoots.has(r)) {
      announcedRoots.add(r);
      emit('root', r);
    }
    return r;
  }
  r = closedRoots.get(el);
  if (r) return r;
  // A declarative closed root (<template shadowrootmode="closed">) is never created through
  // attachShadow, but a custom element's own internals hand it out.
  r = internalsProp(el, 'shadowRoot');
  if (r) {
    registerRoot(el, r);
    return r;
  }
  return null;
}
