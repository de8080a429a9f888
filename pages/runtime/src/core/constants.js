// Constants of the contract: schema names, limits and timings (spec: Attention Context payload,
// capability.v1 / relay.v2 handshake, budgets, event window; schemas.md §3-§5, relay.md).
// A lookup table without a prototype: `toString`, `constructor`, `__proto__` ... are not members
// unless listed (a hostile child or page can name any of them). Every name -> value table uses it.
export function lookupTable(entries) {
  return Object.freeze(Object.assign(Object.create(null), entries));
}
export const SCHEMA = 'wippy.attention.v1';
export const CAP_SCHEMA = 'wippy.attention.capability.v1';
export const RELAY_SCHEMA = 'wippy.attention.relay.v2';
export const RELAY_V1 = 'wippy.attention.relay.v1';
export const EVENT_WINDOW_MS = 60000;
export const MAX_EVENTS = 32;
export const TEXT_MAX = 160;
export const EVENT_ONLY_TARGETS = 8;
export const MAX_PATH_SEGMENTS = 32;
export const DISCOVERY_INTERVAL_MS = 100;
export const DISCOVERY_ATTEMPTS = 50;
export const QUERY_TIMEOUT_MS = 1500;
// Of a snapshot's query timeout, the part kept for assembling the snapshot after the child queries end.
export const ASSEMBLY_MARGIN_MS = 30;
export const GRANT_LIFETIME_MS = 60000;
// A child keeps every token it granted its parent until that token expires, at most this many (the
// oldest dropped beyond): a discovery or renewal round asks up to DISCOVERY_ATTEMPTS times, and the
// parent may hold the token of any answer of the current round or the one before it (relay/child.js).
export const MAX_LIVE_GRANTS = 2 * DISCOVERY_ATTEMPTS;
export const GRANT_LIMITS = { points: 256, candidates: 128, bytes: 131072 };
export const ROOT_BUDGET = { depth: 8, queries: 128, points: 4096, candidates: 128, bytes: 131072 };
export const ENVELOPE_TARGET_BYTES = 30720; // serialized envelope headroom under 32 KiB
// wippy.attention versions 2 to 4: at most 16,384 bytes of the canonical JSON of the whole envelope.
// The spec ("Limits by attachment version") gives every envelope 32 KiB, then "The known kinds add
// their own limits:" (the table that followed is lost in our copy) and "The envelope limit for
// versions 2 to 4 applies to the canonical JSON of the whole envelope" without its number. The
// reference fills the gap: the Session's code refuses a larger one with `attachment-bytes-exceeded`
// (schemas.md §1 step 13.2; harness contract::validate ATTENTION_V2_MAX_ENVELOPE_BYTES). All
// wippy.attention content of a message also stays within the 256 KiB expanded budget.
export const COMPACT_ENVELOPE_MAX_BYTES = 16384;
// The longest attachment id the envelope writes (host/envelope.js), in bytes of its canonical JSON
// string without the quotes: a compact snapshot is budgeted for an id this long.
export const ATTACHMENT_ID_MAX_BYTES = 128;
export const EXPANDED_BUDGET_BYTES = 262144;
export const ATTENTION_VERSIONS = [1, 2, 3, 4];
export const POINTER_TYPES = ['pointermove', 'pointerdown', 'pointerup', 'click', 'touchstart', 'touchend'];
export const DISCRETE = lookupTable({ pointerdown: 1, pointerup: 1, click: 1, touchstart: 1, touchend: 1 });
export const RELAY_CODES = [
  'invalid-request',
  'unsupported-version',
  'unauthorized',
  'host-instance-mismatch',
  'capability-expired',
  'capability-revoked',
  'generation-mismatch',
  'deadline-exceeded',
  'detached',
  'navigation',
  'disconnected',
  'response-too-large',
  'internal-error',
  'unavailable',
];
export const CODE_TO_REASON = lookupTable({
  'deadline-exceeded': 'child-timeout',
  'detached': 'stale-mount',
  'generation-mismatch': 'stale-mount',
  'navigation': 'navigation',
  'disconnected': 'child-disconnected',
  'response-too-large': 'response-budget',
});
export const OMISSION_REASONS = [
  'candidate-budget',
  'capability-unavailable',
  'child-disconnected',
  'child-timeout',
  'clipped',
  'depth-limit',
  'excluded',
  'navigation',
  'non-invertible-transform',
  'occluded',
  'point-budget',
  'query-budget',
  'redacted',
  'response-budget',
  'runtime-metadata-unavailable',
  'selection-detached',
  'selection-excluded',
  'selection-redacted',
  'selection-unavailable',
  'stale-mount',
  'unsupported-transform',
  'unsupported-boundary',
];

// The inspection API (spec: "Canonical inspection and agent tools"; relay.md v2; schemas.md §8).
export const INSPECT = Object.freeze({
  findMax: 8, // matches per find page
  treeMax: 32, // nodes per getTree page
  depthDefault: 2,
  depthMax: 32,
  selectorMax: 512, // characters of a CSS selector
  stringMax: 256, // role / name / text / resource_id / node_id
  continuationTtlMs: 30000,
  continuationMax: 160, // characters of a continuation token
  omissionsMax: 256,
  subsPerCaller: 16,
  subsTotal: 128,
  noticeIntervalMs: 100, // at most 10 notices per second per subscription
  backpressureAt: 50, // updates coalesced into one pending notice before it becomes `backpressure`
  radiusMax: 100,
  stepMax: 100,
  sessionBytes: 98304, // canonical bytes of the Session route's `inspection` object
  targetsMax: 32,
  timeoutMs: 1500,
  registryMax: 8192, // issued NodeRefs remembered per realm
});
export const INSPECT_EVENTS = ['tree', 'invalidation', 'cursor', 'focus', 'selection', 'geometry'];
export const INSPECT_OUTCOMES = ['ok', 'empty', 'cleared', 'unknown', 'partial', 'unavailable', 'stale', 'cancelled'];
// Omission reasons of inspection results: the snapshot's plus the inspection API's own.
export const INSPECT_OMISSIONS = OMISSION_REASONS.concat([
  'invalid-request',
  'revision-changed',
  'continuation-expired',
  'continuation-used',
  'subscription-limit',
  'scope-crossed',
]);
