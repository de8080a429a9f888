// This realm's child realms for readiness (spec: ready() — every child realm has granted a capability
// or been given up on; granted children are asked for their own children with the relay operation
// `ready`, so the answer is the flattened tree of {mount_id, state}). The top realm's ready()
// (host/readiness.js) and a child answering a parent's `ready` query (relay/child.js) both use it.
//
// Each child is reported, and asked, in the same task as its own wait ended: a child's state can
// change while the others are still awaited (a child that granted before its first load event
// negotiates again at that event, relay/parent.js onIframeLoad, and is `navigating` meanwhile), so
// a state read after waiting for all of them could call a granted child unavailable and never ask it.
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
  // The children in binding order, then what they said of their own children, as answers arrive.
  const own = new Array(list.length);
  const nested = [];
  await Promise.all(
    list.map(async (b, i) => {
      await waitSettled(b, deadlineAt);
      const granted = usable(b);
      own[i] = {
        mount_id: b.mountId,
        state: granted ? 'granted' : b.state === 'detached' || b.state === 'unsupported' ? b.state : 'unavailable',
      };
      if (!granted) return;
      const r = await sendSimple(b, 'ready', deadlineAt);
      if (r.result && Array.isArray(r.result.children)) {
        for (const c of r.result.children.slice(0, 64)) {
          if (
            c &&
            typeof c.mount_id === 'string' &&
            ['granted', 'unavailable', 'unsupported', 'detached'].indexOf(c.state) >= 0
          )
            nested.push({ mount_id: cutBytes(c.mount_id, 160), state: c.state });
        }
      }
    }),
  );
  return own.concat(nested);
}
function waitSettled(b, deadlineAt) {
  if (usable(b) || b.state === 'unavailable' || b.state === 'unsupported' || b.state === 'detached')
    return Promise.resolve();
  return waitUsable(b, deadlineAt);
}
