// Readiness (spec: ready() — after the window load event and a 200 ms DOM-quiet period (at most
// 2 s), every child realm has granted a capability or been given up on (50 discovery attempts at
// 100 ms); granted children are asked for their own children (relay operation `ready`), so the
// answer is the flattened tree of {mount_id, state}). A Host that knows its apps are mounted says
// so with ready({mounted: true}): that event replaces the DOM-quiet guess.
import { W, doc, nAddEL, nSetTimeout, nDateNow } from '../core/natives.js';
import { DISCOVERY_ATTEMPTS, DISCOVERY_INTERVAL_MS } from '../core/constants.js';
import { cutBytes } from '../core/util.js';
import { safe } from '../core/dom-reads.js';
import { REALM, HOST, bindings } from '../core/state.js';
import { scanIframes } from '../relay/discovery.js';
import { usable, waitUsable, sendSimple } from '../relay/parent.js';

export function whenDomReady() {
  if (!REALM.domReady) {
    REALM.domReady = new Promise((resolve) => {
      if (doc().readyState !== 'loading') resolve();
      else nAddEL.call(doc(), 'DOMContentLoaded', () => resolve(), { once: true });
    });
  }
  return REALM.domReady;
}
export async function readyChildren(deadlineAt) {
  await whenDomReady();
  safe(scanIframes);
  const list = Array.from(bindings.values());
  await Promise.all(list.map((b) => waitSettled(b, deadlineAt)));
  const out = [];
  await Promise.all(list.map(async (b) => {
    out.push({ mount_id: b.mountId, state: usable(b) ? 'granted' : (b.state === 'detached' || b.state === 'unsupported' ? b.state : 'unavailable') });
    if (usable(b)) {
      const r = await sendSimple(b, 'ready', deadlineAt);
      if (r.result && Array.isArray(r.result.children)) {
        for (const c of r.result.children.slice(0, 64)) {
          if (c && typeof c.mount_id === 'string' && ['granted', 'unavailable', 'unsupported', 'detached'].indexOf(c.state) >= 0) out.push({ mount_id: cutBytes(c.mount_id, 160), state: c.state });
        }
      }
    }
  }));
  return out;
}
function waitSettled(b, deadlineAt) {
  if (usable(b) || b.state === 'unavailable' || b.state === 'unsupported' || b.state === 'detached') return Promise.resolve();
  return waitUsable(b, deadlineAt);
}
// Hosts often mount their apps after the load event (a fetched layout, a lazily imported engine):
// "currently mounted" is taken after the window load event and a 200 ms DOM-quiet period (at most
// 2 s of waiting), so ready() right after load does not resolve before the children exist.
function whenLoaded() {
  if (!REALM.loaded) {
    REALM.loaded = new Promise((resolve) => {
      if (doc().readyState === 'complete') resolve();
      else { nAddEL.call(W, 'load', () => resolve(), { once: true }); nSetTimeout(resolve, 10000); }
    });
  }
  return REALM.loaded;
}
async function settleMounts(maxMs) {
  await whenLoaded();
  const start = nDateNow();
  while (nDateNow() - start < maxMs && nDateNow() - REALM.lastMutationAt < 200) {
    await new Promise((r) => nSetTimeout(r, 50));
  }
}
export async function ready(options) {
  if (options && options.mounted === true) await whenDomReady();
  else await settleMounts(2000);
  const children = await readyChildren(nDateNow() + DISCOVERY_ATTEMPTS * DISCOVERY_INTERVAL_MS + 1500);
  return { host_instance_id: HOST.hostInstanceId, children: children };
}

