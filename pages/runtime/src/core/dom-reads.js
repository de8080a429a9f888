// DOM reads over the captured natives that never throw (a hostile or detached node gives a neutral
// answer), the composed-tree walk (parentNode, then ShadowRoot.host; never ownerDocument or
// getRootNode, which Web Fragments patch), random ids, and the error-swallowing listener wrapper.
import {
  W,
  nNodeType,
  nLocalName,
  nGetAttribute,
  nHasAttribute,
  nParentNode,
  nHostGet,
  nIsConnected,
  nGetBCR,
  nDocGetById,
  nFragGetById,
  nGetRandomValues,
  nDebug,
} from './natives.js';

export function randHex(bytes) {
  const a = new Uint8Array(bytes);
  nGetRandomValues(a);
  let s = '';
  for (let i = 0; i < a.length; i++) s += (a[i] < 16 ? '0' : '') + a[i].toString(16);
  return s;
}
export function randB36(n) {
  let s = '';
  while (s.length < n) s += parseInt(randHex(4), 16).toString(36);
  return s.slice(0, n);
}
export function safe(fn, fallback) {
  try {
    return fn();
  } catch (e) {
    nDebug('[wippy-attention]', e && e.message);
    return fallback;
  }
}
// Listener wrapper: errors go to console.debug only.
export const wrap = (fn) =>
  function (ev) {
    try {
      fn(ev);
    } catch (e) {
      nDebug('[wippy-attention]', e && e.message);
    }
  };
export function nodeType(n) {
  try {
    return nNodeType.call(n);
  } catch (_) {
    return 0;
  }
}
export function localName(el) {
  try {
    return nLocalName.call(el) || '';
  } catch (_) {
    return '';
  }
}
export function attr(el, name) {
  try {
    return nGetAttribute.call(el, name);
  } catch (_) {
    return null;
  }
}
export function hasAttr(el, name) {
  try {
    return nHasAttribute.call(el, name);
  } catch (_) {
    return false;
  }
}
export function parentOf(n) {
  try {
    return nParentNode.call(n);
  } catch (_) {
    return null;
  }
}
export function hostOf(root) {
  try {
    return nHostGet.call(root);
  } catch (_) {
    return null;
  }
}
export function isConnected(n) {
  try {
    return nIsConnected ? nIsConnected.call(n) : true;
  } catch (_) {
    return false;
  }
}
export function composedParent(n) {
  const p = parentOf(n);
  if (p) return p;
  if (nodeType(n) === 11) return hostOf(n);
  return null;
}
export function treeRoot(n) {
  let r = n,
    p;
  while ((p = parentOf(r))) r = p;
  return r;
}
export function rectOf(el) {
  try {
    const b = nGetBCR.call(el);
    return { x: b.left, y: b.top, width: b.width, height: b.height };
  } catch (_) {
    return { x: 0, y: 0, width: 0, height: 0 };
  }
}
export function viewportRect() {
  return { x: 0, y: 0, width: W.innerWidth || 0, height: W.innerHeight || 0 };
}
// getElementById in the tree (document or shadow root) that holds `el`.
export function byIdInRoot(el, id) {
  const root = treeRoot(el);
  try {
    if (nodeType(root) === 9) return nDocGetById.call(root, id);
    if (nodeType(root) === 11) return nFragGetById.call(root, id);
  } catch (_) {
    /* ignore */
  }
  return null;
}
