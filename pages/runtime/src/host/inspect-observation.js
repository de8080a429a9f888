// The observation reads: getCursor, getFocus, getSelection, answered from the Host's records (top
// realm); a child realm asks the top.
import { iso } from '../core/util.js';
import { safe, nodeType } from '../core/dom-reads.js';
import { ROLE, TOP } from '../core/state.js';
import { checkOptions, READ_OPTIONS } from '../core/inspect-args.js';
import { issueLocal, treeParent } from '../realm/inspect-nodes.js';
import { currentFocusRecord } from '../realm/focus.js';
import { selectionOut } from '../realm/selection.js';
import { askChild } from '../relay/inspect-relay.js';
import { mergeChildWindows } from '../relay/parent.js';
import { eventOut } from './snapshot.js';
import { clampPath } from '../dom/segments.js';
import { privacyOf } from '../dom/privacy.js';
import { result, invalid, outcomeOf, ctxFor, notGranted, unavailableHere, viaTop, recOf } from './inspect-result.js';

export async function getCursor(caller, options) {
  const o = checkOptions(options, READ_OPTIONS, 1);
  if (o.error) return invalid(o.error);
  if (ROLE === 'child') return notGranted() ? unavailableHere() : viaTop(caller, 'getCursor', [options]);
  // Child realms keep their pointermoves in their own windows (issue 23); the Host merges them
  // before it reads the latest pointer, as a snapshot does.
  await mergeChildWindows();
  const p = TOP.pointer;
  if (!p) return result('empty', { nodes: [], event: false }, []);
  const keep = new Set((p.candidates || []).map((c) => c.target_id));
  const e = safe(() => eventOut(p, keep), null);
  if (!e) return result('unknown', { nodes: [], event: false }, []);
  const ev = {
    event_id: e.event_id,
    type: e.type,
    sequence: e.sequence,
    observed_at: e.observed_at,
    point: e.point,
    pointer_type: e.pointer_type || null,
    candidate_ids: e.candidate_ids,
  };
  return result('ok', { nodes: [], event: ev }, []);
}
export async function getFocus(caller, options) {
  const o = checkOptions(options, READ_OPTIONS, 1);
  if (o.error) return invalid(o.error);
  if (ROLE === 'child') return notGranted() ? unavailableHere() : viaTop(caller, 'getFocus', [options]);
  const fr = safe(currentFocusRecord, null);
  if (!fr || !fr.candidate) {
    const outcome = TOP.focusChanges && TOP.focusChanges.length ? 'cleared' : 'empty';
    return result(outcome, { nodes: [], focus: false }, []);
  }
  const f = fr.f;
  const focus = {
    focused_at: iso(f.focused_ms),
    event_id: f.event_id,
    sequence: f.sequence,
    summary: fr.candidate.summary,
    candidate_id: fr.candidate.target_id,
    path: clampPath(fr.candidate.path),
  };
  let nodes = f.el && !f.binding ? [safe(() => recOf(f.el), null)].filter(Boolean) : [];
  const omissions = [];
  if (f.binding && f.binding.iframe) {
    // Focus in a child realm: its node, asked of that child by the candidate's id (= node_id).
    const ctx = ctxFor();
    const a = await askChild(
      f.binding.iframe,
      { op: 'find', query: { node_id: fr.candidate.target_id }, want: 1 },
      { depth: ctx.budgets.depth, queries: ctx.budgets.queries, bytes: ctx.budgets.bytes, candidates: 1 },
      ctx.deadlineAt,
      null,
    );
    nodes = a.records.slice(0, 1);
    for (const o of a.omissions) if (o.reason !== 'redacted') omissions.push(o);
  }
  return result(outcomeOf([true], omissions), { nodes: nodes, focus: focus }, omissions);
}
export async function getSelection(caller, options) {
  const o = checkOptions(options, READ_OPTIONS, 1);
  if (o.error) return invalid(o.error);
  if (ROLE === 'child') return notGranted() ? unavailableHere() : viaTop(caller, 'getSelection', [options]);
  const s = safe(() => selectionOut(false), { selection: null, omissions: [] });
  const om = s.omissions.map((x) => ({ reason: x.reason }));
  if (!s.selection) {
    if (om.some((x) => x.reason === 'selection-detached')) return result('stale', { nodes: [], selection: false }, om);
    if (om.length) return result('partial', { nodes: [], selection: false }, om);
    return result('empty', { nodes: [], selection: false }, []);
  }
  const sel = s.selection;
  const data = {
    nodes: [],
    selection: {
      selection_id: sel.selection_id,
      selected_at: sel.selected_at,
      kind: sel.kind,
      collapsed: sel.collapsed,
      direction: sel.direction,
      text: sel.text,
      ranges: sel.ranges,
      anchor_path: sel.anchor_path,
      focus_path: sel.focus_path,
    },
  };
  // The selection's endpoints as refs (their elements, the selection's own anchor and focus): in the top
  // realm's DOM directly; in a child realm asked of that child by the node ids it reported.
  const t = TOP.selection;
  if (t && !t.binding && s.selection.text !== undefined) {
    const elOf = (n) => (n && nodeType(n) === 3 ? treeParent(n) : n);
    const a = elOf(t.anchorNode),
      f = elOf(t.focusNode);
    if (a && nodeType(a) === 1 && !privacyOf(a).excluded) data.anchor = issueLocal(a);
    if (f && nodeType(f) === 1 && !privacyOf(f).excluded) data.focus = issueLocal(f);
  } else if (t && t.binding && t.binding.iframe) {
    const ids = [t.anchor_node_id, t.focus_node_id];
    const refs = await Promise.all(
      ids.map(async (id) => {
        if (typeof id !== 'string') return null;
        const ctx = ctxFor();
        const a = await askChild(
          t.binding.iframe,
          { op: 'find', query: { node_id: id }, want: 1 },
          { depth: ctx.budgets.depth, queries: ctx.budgets.queries, bytes: ctx.budgets.bytes, candidates: 1 },
          ctx.deadlineAt,
          null,
        );
        const rec = a.records[0];
        return rec && rec.ref.node_id === id ? rec.ref : null;
      }),
    );
    if (refs[0]) data.anchor = refs[0];
    if (refs[1]) data.focus = refs[1];
  }
  return result(om.length ? 'partial' : 'ok', data, om);
}
