// The sampling lattice and the capture options of a snapshot (spec: capture, schemas.md §4 — rows
// y = -extent..extent outer, columns inner, a point included when dx² + dy² <= r², ids p0.. in that
// order, coordinates rounded to 1/1000 px; radius 0..100 (default 20), step 1..100 (default 5),
// privacy text "none", per-child timeout (default 1,500 ms, at most 10 s)). DOM-free.
import { QUERY_TIMEOUT_MS } from '../core/constants.js';
import { r3 } from '../core/util.js';

export function latticePoints(cx, cy, radius, step) {
  const pts = [];
  const extent = Math.floor(radius / step);
  for (let j = -extent; j <= extent; j++) {
    for (let i = -extent; i <= extent; i++) {
      const dx = i * step,
        dy = j * step;
      if (dx * dx + dy * dy <= radius * radius)
        pts.push({ point_id: 'p' + pts.length, x: r3(cx + dx), y: r3(cy + dy) });
    }
  }
  return pts;
}
// The snapshot() options, validated: out-of-range values fall back to the defaults.
export function captureOptions(options) {
  options = options || {};
  const radius =
    typeof options.radius_css_px === 'number' && options.radius_css_px >= 0 && options.radius_css_px <= 100
      ? options.radius_css_px
      : 20;
  const step =
    typeof options.step_css_px === 'number' && options.step_css_px >= 1 && options.step_css_px <= 100
      ? options.step_css_px
      : 5;
  const textNone = !!(options.privacy && options.privacy.text === 'none') || options.privacy_text === 'none';
  const timeout =
    typeof options.timeout_ms === 'number' && options.timeout_ms > 0
      ? Math.min(options.timeout_ms, 10000)
      : QUERY_TIMEOUT_MS;
  return { radius: radius, step: step, textNone: textNone, timeout: timeout };
}
