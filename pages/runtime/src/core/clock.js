// The observation clock (spec: the 60 s event window): wall-clock ms used for observed_at,
// focused_at, created_at and the window, = Date.now() + an offset that only the internal debug hook
// `__wippyAttentionRuntime.advanceClock(ms)` moves (forward only), so tests can age events past the
// window without a 60 s wait. The offset never appears in the public API or in a snapshot.
import { nDateNow } from './natives.js';
import { CLOCK } from './state.js';

export function obsNow() {
  return nDateNow() + CLOCK.offsetMs;
}
// A time another realm stamped on its own observation clock, in this realm's clock.
export function fromPeerClock(ms) {
  return ms + CLOCK.offsetMs;
}
// Moves the clock forward by ms (finite, 0..86,400,000); returns the total offset, or null when refused.
export function advanceClock(ms) {
  if (typeof ms !== 'number' || !isFinite(ms) || ms < 0 || ms > 86400000) return null;
  CLOCK.offsetMs += ms;
  return CLOCK.offsetMs;
}
