// Realm-local paths (spec: Paths and identity — `host` (top document only) -> marked boundaries ->
// `iframe` (frame_origin, rect, clip_rect, local_to_parent) -> `web-fragment` -> web component +
// `shadow-root` -> `element`). A child realm's paths have no document segment; the parent prepends
// its chain up to and including the iframe segment. Also the iframe geometry read from the DOM.
import { doc, nGetCS, nURL } from '../core/natives.js';
import { cutBytes, r3, rectOut, intersect, sameRect } from '../core/util.js';
import { canonicalOrigin, validFrameOrigin } from '../core/origins.js';
import { attr, hasAttr, localName, nodeType, composedParent, rectOf, viewportRect } from '../core/dom-reads.js';
import { ROLE, HOST, bindings } from '../core/state.js';
import { nodeKey, mountOf } from './identity.js';
import { selfRedacted } from '../dom/privacy.js';
import { boundaryKindOf, frameGeometry, transformUnsupported } from '../dom/segments.js';

export function boundaryKind(el) {
  return boundaryKindOf(attr(el, 'data-wippy-kind'));
}
function copyIds(seg, el) {
  const put = (k, a, max) => {
    const v = attr(el, a);
    if (v !== null && v !== undefined) seg[k] = cutBytes(v, max);
  };
  put('panel_id', 'data-wippy-panel-id', 128);
  put('artifact_id', 'data-wippy-artifact-id', 128);
  put('page_id', 'data-wippy-page-id', 128);
  put('package_id', 'data-wippy-package-id', 256);
  put('label', 'data-wippy-label', 256);
}
function boundarySeg(el, kind, withRect) {
  const m = mountOf(el);
  const seg = { kind: kind, mount_id: m.mount_id, generation: m.generation };
  copyIds(seg, el);
  seg.tag_name = cutBytes(localName(el), 128);
  if (withRect) seg.rect = rectOut(rectOf(el));
  return seg;
}
export function iframeGeometry(ifr) {
  const b = rectOf(ifr);
  let cs = null;
  try {
    cs = nGetCS(ifr);
  } catch (_) {
    cs = null;
  }
  const px = (v) => {
    const n = parseFloat(v);
    return isFinite(n) ? n : 0;
  };
  const box = {
    bl: cs ? px(cs.borderLeftWidth) : 0,
    bt: cs ? px(cs.borderTopWidth) : 0,
    pl: cs ? px(cs.paddingLeft) : 0,
    pt: cs ? px(cs.paddingTop) : 0,
    br: cs ? px(cs.borderRightWidth) : 0,
    bb: cs ? px(cs.borderBottomWidth) : 0,
    pr: cs ? px(cs.paddingRight) : 0,
    pb: cs ? px(cs.paddingBottom) : 0,
  };
  let ow = 0,
    oh = 0;
  try {
    ow = ifr.offsetWidth;
    oh = ifr.offsetHeight;
  } catch (_) {
    /* ignore */
  }
  return frameGeometry(b, box, ow, oh);
}
// Mapping a point into a child realm supports translation and axis-aligned scale only: a rotation
// or skew on the iframe or any ancestor (composed tree) makes the child unsupported for sampling.
export function hasUnsupportedTransform(el) {
  for (let n = el, guard = 0; n && guard < 256; n = composedParent(n), guard++) {
    if (nodeType(n) !== 1) continue;
    let cs = null;
    try {
      cs = nGetCS(n);
    } catch (_) {
      cs = null;
    }
    if (!cs) continue;
    if (transformUnsupported(cs.rotate, cs.transform)) return true;
  }
  return false;
}
function frameOriginOf(ifr, binding) {
  if (hasAttr(ifr, 'srcdoc')) return 'about:srcdoc';
  if (binding && binding.childOrigin && validFrameOrigin(binding.childOrigin)) return binding.childOrigin;
  try {
    const o = new nURL(attr(ifr, 'src') || '', doc().baseURI).origin;
    if (canonicalOrigin(o)) return o;
  } catch (_) {
    /* ignore */
  }
  return null;
}
// geom: the iframe's geometry when the caller already read it in this task (iframeGeometry).
function iframeSeg(ifr, geom) {
  const m = mountOf(ifr);
  const seg = { kind: 'iframe', mount_id: m.mount_id, generation: m.generation };
  copyIds(seg, ifr);
  seg.tag_name = 'iframe';
  const fo = frameOriginOf(ifr, bindings.get(ifr));
  if (fo) seg.frame_origin = fo;
  const g = geom || iframeGeometry(ifr);
  seg.rect = rectOut(g.rect);
  const clip = intersect(g.rect, viewportRect());
  if (!sameRect(clip, g.rect)) seg.clip_rect = rectOut(clip);
  seg.local_to_parent = {
    matrix: [r3(g.sx), 0, 0, 0, 0, r3(g.sy), 0, 0, 0, 0, 1, 0, r3(g.ox), r3(g.oy), 0, 1],
    convention: 'dommatrix-column-major',
    direction: 'local-to-parent',
  };
  return seg;
}
// Build the realm-local path from the realm root to `leaf`. When asIframe is true the leaf is an
// iframe being descended into and becomes an `iframe` segment; geom: its geometry when the caller
// read it already (the same task, so the same layout).
export function localPath(leaf, asIframe, geom) {
  const up = [];
  // The segments that carry a rect (boundaries, web fragments), with the element it is read from.
  const boxed = [];
  const withBox = (seg, n) => {
    boxed.push([seg, n]);
    return seg;
  };
  let viaShadow = false;
  let fragment = false;
  for (let n = leaf; n;) {
    const t = nodeType(n);
    if (t === 1) {
      const ln = localName(n);
      if (n === leaf) {
        if (asIframe) up.push(iframeSeg(n, geom));
        else {
          const m = mountOf(n);
          up.push({ kind: 'element', mount_id: m.mount_id, generation: m.generation, tag_name: cutBytes(ln, 128) });
        }
        const bk = boundaryKind(n);
        if (bk) up.push(withBox(boundarySeg(n, bk, true), n));
      } else if (ln === 'web-fragment') {
        const m = mountOf(n);
        const seg = { kind: 'web-fragment', mount_id: m.mount_id, generation: m.generation };
        copyIds(seg, n);
        seg.tag_name = 'web-fragment';
        if (!seg.label) {
          const fid = attr(n, 'fragment-id');
          if (fid) seg.label = cutBytes(fid, 256);
        }
        seg.rect = rectOut(rectOf(n));
        up.push(withBox(seg, n));
        fragment = true;
      } else if (ln === 'web-fragment-host') {
        // internal container of a fragment: not a segment
      } else {
        const bk = boundaryKind(n);
        if (viaShadow) {
          const hk = nodeKey(n);
          up.push({ kind: 'shadow-root', mount_id: hk + '-sr', generation: 1 });
          if (bk) up.push(withBox(boundarySeg(n, bk, true), n));
          else if (ln.indexOf('-') > 0) up.push(withBox(boundarySeg(n, 'web-component', true), n));
        } else if (bk) up.push(withBox(boundarySeg(n, bk, true), n));
      }
      if (selfRedacted(n)) for (let i = 0; i < up.length; i++) delete up[i].label;
      viaShadow = false;
    } else if (t === 11) {
      viaShadow = true;
    } else if (t === 9) {
      if (ROLE === 'top') up.push({ kind: 'host', mount_id: HOST.hostInstanceId, generation: HOST.mountGeneration });
      break;
    }
    n = composedParent(n);
  }
  up.reverse();
  // boxes: [index in path, element] of every segment whose rect was read from an element.
  return { path: up, fragment: fragment, boxes: boxed.map(([seg, n]) => [up.indexOf(seg), n]) };
}
