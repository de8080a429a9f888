// Pure rules of path segments and iframe geometry (spec: Paths — boundary kinds panel / artifact /
// page; a path longer than 32 segments keeps its first and last 16; an iframe's content box maps
// the child viewport into its parent's space (translation and axis-aligned scale only; rotation,
// skew and 3D give `unsupported-transform`)). DOM-free: paths.js reads the DOM and uses these.
import { MAX_PATH_SEGMENTS, lookupTable } from '../core/constants.js';

const BOUNDARY_KINDS = lookupTable({ panel: 1, artifact: 1, page: 1 });
// The boundary kind named by a data-wippy-kind value, or null.
export function boundaryKindOf(value) {
  return typeof value === 'string' && BOUNDARY_KINDS[value] ? value : null;
}

export function clampPath(path) {
  if (path.length <= MAX_PATH_SEGMENTS) return path;
  const half = MAX_PATH_SEGMENTS / 2;
  return path.slice(0, half).concat(path.slice(path.length - half));
}

// An iframe's mapping into its child realm: `rect` its border box (bounding client rect), `box` its
// used border and padding widths {bl, bt, br, bb, pl, pt, pr, pb}, `ow`/`oh` its layout size
// (offsetWidth/Height). Scale = rect / layout size; origin = rect + (border + padding) * scale.
export function frameGeometry(rect, box, ow, oh) {
  const sx = ow > 0 ? rect.width / ow : 1,
    sy = oh > 0 ? rect.height / oh : 1;
  const ox = rect.x + (box.bl + box.pl) * sx,
    oy = rect.y + (box.bt + box.pt) * sy;
  const cw = Math.max(0, ow - box.bl - box.br - box.pl - box.pr) * sx,
    ch = Math.max(0, oh - box.bt - box.bb - box.pt - box.pb) * sy;
  return { rect: rect, sx: sx || 1, sy: sy || 1, ox: ox, oy: oy, content: { x: ox, y: oy, width: cw, height: ch } };
}
// A child-viewport rect in the parent's space.
export function mapRect(r, g) {
  return { x: g.ox + r.x * g.sx, y: g.oy + r.y * g.sy, width: r.width * g.sx, height: r.height * g.sy };
}

// Whether one element's computed `rotate` / `transform` is beyond translation + axis-aligned scale.
export function transformUnsupported(rotate, transform) {
  if (rotate && rotate !== 'none' && !/^0(deg|rad|turn|grad)?$/.test(rotate.trim())) return true;
  if (!transform || transform === 'none') return false;
  const m = /^matrix(3d)?\(([^)]*)\)$/.exec(transform);
  if (!m) return true;
  const v = m[2].split(',').map(Number);
  if (!m[1]) {
    if (Math.abs(v[1]) > 1e-9 || Math.abs(v[2]) > 1e-9) return true;
  } else if ([1, 2, 3, 4, 6, 7, 8, 9, 11].some((i) => Math.abs(v[i]) > 1e-9) || Math.abs(v[15] - 1) > 1e-9) return true;
  return false;
}
