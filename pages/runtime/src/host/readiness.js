// Readiness (spec: ready() — after the window load event and a 200 ms DOM-quiet period (at most
// 2 s), every child realm has granted a capability or been given up on (50 discovery attempts at
// 100 ms); granted children are asked for their own children (relay operation `ready`), so the
// answer is the flattened tree of {mount_id, state}: relay/ready-children.js). A Host that knows its
// apps are mounted says so with ready({mounted: true}): that event replaces the DOM-quiet guess.
import { W, doc, nAddEL, nSetTimeout, nDateNow } from '../core/natives.js';
import { DISCOVERY_ATTEMPTS, DISCOVERY_INTERVAL_MS } from '../core/constants.js';
import { REALM, HOST } from '../core/state.js';
import { whenDomReady } from '../realm/document.js';
import { readyChildren } from '../relay/ready-children.js';

// Hosts often mount their apps after the load event (a fetched layout, a lazily imported engine):
// "currently mounted" is taken after the window load event and a 200 ms DOM-quiet period (at most
// 2 s of waiting), so ready() right after load does not resolve before the children exist.
function whenLoaded() {
  if (!REALM.loaded) {
    REALM.loaded = new Promise((resolve) => {
      if (doc().readyState === 'complete') resolve();
      else {
        nAddEL.call(W, 'load', () => resolve(), { once: true });
        nSetTimeout(resolve, 10000);
      }
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
