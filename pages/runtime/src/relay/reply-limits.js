// The limits one transport grant puts on a child's reply (spec "Recursive resolution": the default
// transport grant allows 256 points, 128 candidates and a 128 KiB response; relay.md "Budgets and
// timers"): the candidates beyond the request's candidate budget are cut (fewest sample points first
// out, ties in sampling order) with one `candidate-budget` omission, then the reply is halved until
// its serialized size fits the byte budget, with one `response-budget` omission. Each omission
// names this realm's mount and the first affected point. DOM-free: the caller passes how a reply is
// measured (UTF-8 bytes of its JSON).

// The first point (in request order) that one of `dropped` candidates was sampled at: the first
// affected point_id of a budget omission.
export function firstPointOf(dropped, points) {
  const hit = new Set();
  for (const c of dropped) for (const pid of c.sample_point_ids || []) hit.add(pid);
  for (const p of points) if (hit.has(p.point_id)) return p.point_id;
  return points.length ? points[0].point_id : undefined;
}

// At most `limit` candidates, the best sampled kept (a stable sort: equal counts keep their order).
// -> {candidates, omission: {reason: 'candidate-budget', mount_id, point_id} | null}.
export function limitCandidates(cands, limit, points, mountId) {
  if (cands.length <= limit) return { candidates: cands, omission: null };
  const sorted = cands.slice().sort((a, b) => b.sample_point_ids.length - a.sample_point_ids.length);
  return {
    candidates: sorted.slice(0, limit),
    omission: { reason: 'candidate-budget', mount_id: mountId, point_id: firstPointOf(sorted.slice(limit), points) },
  };
}

// Halves `reply.candidates` (and drops their hits) until `sizeOf(reply) <= limit` or none is left,
// recording one `response-budget` omission. Mutates `reply`. -> {untrimmed, size} in bytes; `size`
// still over `limit` means the reply cannot be sent (`response-too-large`).
export function trimToBytes(reply, limit, sizeOf, points, mountId) {
  let size = sizeOf(reply);
  const untrimmed = size;
  while (size > limit && reply.candidates.length > 0) {
    const half = Math.floor(reply.candidates.length / 2);
    const dropped = reply.candidates.slice(half);
    reply.candidates = reply.candidates.slice(0, half);
    const keep = new Set(reply.candidates.map((c) => c.target_id));
    Object.keys(reply.hits).forEach((pid) => {
      reply.hits[pid] = reply.hits[pid].filter((x) => keep.has(x));
      if (!reply.hits[pid].length) delete reply.hits[pid];
    });
    if (!reply.omissions.some((o) => o.reason === 'response-budget'))
      reply.omissions.push({ reason: 'response-budget', mount_id: mountId, point_id: firstPointOf(dropped, points) });
    size = sizeOf(reply);
  }
  return { untrimmed: untrimmed, size: size };
}
