// The deep active element of this realm (spec: focus — document -> open/closed shadow roots ->
// fragments): the document's activeElement, then each shadow root's own activeElement, through the
// closed roots the runtime captured (dom/shadow-roots.js). A fact about the DOM now; what focus means
// for observation and the focus record is realm/focus.js.
import { doc, nDocActive, nRootActive } from '../core/natives.js';
import { shadowOf } from './shadow-roots.js';

// Deep active element of this realm: document -> open/closed shadow roots -> fragments.
export function deepActive() {
  let el = null;
  try {
    el = nDocActive.call(doc());
  } catch (_) {
    el = null;
  }
  for (let g = 0; el && g < 64; g++) {
    const r = shadowOf(el);
    if (!r) break;
    let inner = null;
    try {
      inner = nRootActive.call(r);
    } catch (_) {
      inner = null;
    }
    if (!inner || inner === el) break;
    el = inner;
  }
  return el;
}
