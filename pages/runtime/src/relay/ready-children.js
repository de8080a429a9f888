// This realm's child realms for readiness (spec: ready() — every child realm has granted a capability
// or been given up on; granted children are asked for their own children with the relay operation
// `ready`, so the answer is the flattened tree of {mount_id, state}). The top realm's ready()
// (host/readiness.js) and a child answering a parent's `ready` query (relay/child.js) both use it.
import { cutBytes } from '../core/util.js';
import { safe } from '../core/dom-reads.js';
import { bindings } from '../core/state.js';
import { whenDomReady } from '../realm/document.js';
import { scanIframes } from './discovery.js';
import { usable, waitUsable, sendSimple } from './parent.js';

export async function readyChildren(deadlineAt) {
  await whenDomReady();
  safe(scanIframes);
  const list = Array.from(bindings.values());
  await Promise.all(list.map((b) => waitSettled(b, deadlineAt)));
  const out = [];
  await Promise.all(
    list.map(async (b) => {
      out.push({
        mount_id: b.mountId,
        state: usable(b) ? 'granted' : b.state === 'detached' || b.state === 'unsupported' ? b.state : 'unavailable',
      });
      if (usable(b)) {
        const r = await sendSimple(b, 'ready', deadlineAt);
        if (r.result && Array.isArray(r.result.children)) {
          for (const c of r.result.children.slice(0, 64)) {
            if (
              c &&
              typeof c.mount_id === 'string' &&
              ['granted', 'unavailable', 'unsupported', 'detached'].indexOf(c.state) >= 0
            )
              out.push({ mount_id: cutBytes(c.mount_id, 160), state: c.state });
          }
        }
      }
    }),
  );
  return out;
}
function waitSettled(b, deadlineAt) {
  if (usable(b) || b.state === 'unavailable' || b.state === 'unsupported' || b.state === 'detached')
    return Promise.resolve();
  return waitUsable(b, deadlineAt);
}
