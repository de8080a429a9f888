// Identity (spec: target_id unique across realms and stable for the element's life; mount_id from
// data-wippy-mount-id (<= 160 bytes) or generated; generation counts remounts of one mount_id in a
// realm, starting at 1): node ids <realm>-n<k>, target ids t-<realm>-n<k>, mount ids and generations.
import { utf8Len } from '../core/util.js';
import { attr } from '../core/dom-reads.js';
import { REALM_ID, REALM, nodeIds, explicitGen, explicitMax } from '../core/state.js';

export function nodeKey(el) {
  let k = nodeIds.get(el);
  if (!k) {
    k = REALM_ID + '-n' + ++REALM.nodeCounter;
    nodeIds.set(el, k);
  }
  return k;
}
export function mountOf(el) {
  const m = attr(el, 'data-wippy-mount-id');
  if (m && m.length > 0 && utf8Len(m) <= 160) {
    let g = explicitGen.get(el);
    if (!g) {
      g = (explicitMax.get(m) || 0) + 1;
      explicitMax.set(m, g);
      explicitGen.set(el, g);
    }
    return { mount_id: m, generation: g };
  }
  return { mount_id: nodeKey(el), generation: 1 };
}
export function targetIdOf(el) {
  return 't-' + nodeKey(el);
}
