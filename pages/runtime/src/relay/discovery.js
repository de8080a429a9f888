// Finding child realms (spec: relay — every iframe of the physical tree, document and every known
// shadow root, gets a binding; bounded work): the iframe scan, re-run on DOM mutations, and the
// registration of roots (MutationObserver, and focus listeners on shadow roots, since focus moving
// inside one shadow tree is not dispatched beyond it).
import { doc, nDocQSA, nFragQSA, nAddEL, nSetTimeout, nDateNow, nMutationObserver } from '../core/natives.js';
import { safe, nodeType, isConnected } from '../core/dom-reads.js';
import { ROLE, REALM, bindings, observedRoots } from '../core/state.js';
import { shadowOf } from '../dom/shadow-roots.js';
import { isIframe } from '../realm/hit-test.js';
import { getBinding, detach } from './parent.js';
import { focusInListener, focusOutListener } from '../realm/focus.js';

// Scan the physical tree (document and every known shadow root) for iframes; bounded work.
export function scanIframes() {
  if (ROLE === 'fragment-realm') return;
  const found = new Set();
  const roots = [doc()];
  let budget = 20000;
  for (let i = 0; i < roots.length && budget > 0; i++) {
    const root = roots[i];
    let all = [];
    try {
      all = nodeType(root) === 9 ? nDocQSA.call(root, '*') : nFragQSA.call(root, '*');
    } catch (_) {
      all = [];
    }
    for (let j = 0; j < all.length && budget-- > 0; j++) {
      const el = all[j];
      if (isIframe(el)) found.add(el);
      const sr = shadowOf(el);
      if (sr) {
        roots.push(sr);
        observeRoot(sr);
      }
    }
  }
  found.forEach((ifr) => {
    if (!bindings.has(ifr)) getBinding(ifr);
  });
  bindings.forEach((b, ifr) => {
    if (!isConnected(ifr)) detach(b);
  });
}
function scheduleScan() {
  if (REALM.scanTimer) return;
  REALM.scanTimer = nSetTimeout(() => {
    REALM.scanTimer = null;
    safe(scanIframes);
  }, 100);
}
const mutationObserver = nMutationObserver
  ? new nMutationObserver(() => {
      REALM.lastMutationAt = nDateNow();
      scheduleScan();
    })
  : null;
export function observeRoot(root) {
  if (observedRoots.has(root)) return;
  observedRoots.add(root);
  // Focus moving between two elements of one shadow tree is not dispatched beyond its shadow root
  // (target and relatedTarget retarget to the same host), so listen on every known root as well.
  if (nodeType(root) === 11 && ROLE !== 'fragment-realm') {
    try {
      nAddEL.call(root, 'focusin', focusInListener, true);
      nAddEL.call(root, 'focusout', focusOutListener, true);
    } catch (_) {
      /* ignore */
    }
  }
  if (!mutationObserver) return;
  try {
    mutationObserver.observe(root, {
      childList: true,
      subtree: true,
      attributes: true,
      attributeFilter: ['src', 'srcdoc', 'name'],
    });
  } catch (_) {
    /* ignore */
  }
}
