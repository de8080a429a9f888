// The flat tree (spec: candidate resolution through shadow roots; accessible names follow the
// flattened tree): a node's flat-tree parent (a slotted node's slot, a shadow root's host, else its
// parent), an element's flat-tree children (a shadow host's shadow-root children, a slot's assigned
// nodes or, when nothing is assigned, its fallback content), and which slotted text of a shadow
// host lies under a point (elementFromPoint stops at the host for a host's own slotted text).
import {
  nFirstChild,
  nNextSibling,
  nElAssignedSlot,
  nTextAssignedSlot,
  nAssignedNodes,
  nFragQSA,
  nGetClientRects,
  nCreateRange,
  nRangeSelectNodeContents,
  nRangeGetClientRects,
  doc,
} from '../core/natives.js';
import { localName, nodeType, parentOf, hostOf } from '../core/dom-reads.js';
import { shadowOf } from './shadow-roots.js';

export function childNodes(n) {
  const out = [];
  try {
    for (let c = nFirstChild.call(n); c && out.length < 4096; c = nNextSibling.call(c)) out.push(c);
  } catch (_) {
    /* ignore */
  }
  return out;
}
export function assignedNodes(slot) {
  if (!nAssignedNodes) return [];
  try {
    return Array.prototype.slice.call(nAssignedNodes.call(slot));
  } catch (_) {
    return [];
  }
}
// The slot a node is assigned to, also in closed roots the runtime knows (assignedSlot hides those).
export function slotOf(n, parent) {
  let s = null;
  try {
    s =
      nodeType(n) === 3
        ? nTextAssignedSlot
          ? nTextAssignedSlot.call(n)
          : null
        : nElAssignedSlot
          ? nElAssignedSlot.call(n)
          : null;
  } catch (_) {
    s = null;
  }
  if (s) return s;
  const root = parent && nodeType(parent) === 1 ? shadowOf(parent) : null;
  if (!root) return null;
  let slots = [];
  try {
    slots = nFragQSA.call(root, 'slot');
  } catch (_) {
    slots = [];
  }
  for (let i = 0; i < slots.length; i++) if (assignedNodes(slots[i]).indexOf(n) >= 0) return slots[i];
  return null;
}
export function flatParent(n) {
  const p = parentOf(n);
  if (!p) return nodeType(n) === 11 ? hostOf(n) : null;
  if (nodeType(p) === 11) return hostOf(p);
  if (nodeType(p) === 1 && shadowOf(p)) return slotOf(n, p) || p;
  return p;
}
export function flatChildren(el) {
  if (localName(el) === 'slot') {
    const a = assignedNodes(el);
    if (a.length) return a;
  }
  const root = nodeType(el) === 1 ? shadowOf(el) : null;
  return childNodes(root || el);
}
export function hasBox(el) {
  try {
    return nGetClientRects.call(el).length > 0;
  } catch (_) {
    return false;
  }
}
function within(r, x, y) {
  return x >= r.left && x < r.right && y >= r.top && y < r.bottom;
}
// The text node among a shadow host's own (slotted) children whose line boxes contain (x, y).
export function slottedTextAt(host, x, y) {
  let range = null;
  try {
    range = nCreateRange.call(doc());
  } catch (_) {
    return null;
  }
  const kids = childNodes(host);
  for (let i = 0; i < kids.length; i++) {
    const t = kids[i];
    if (nodeType(t) !== 3) continue;
    try {
      nRangeSelectNodeContents.call(range, t);
      const rects = nRangeGetClientRects.call(range);
      for (let j = 0; j < rects.length; j++) if (within(rects[j], x, y)) return t;
    } catch (_) {
      /* ignore */
    }
  }
  return null;
}
