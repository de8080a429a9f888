// The inert, privacy-filtered copy of one scope (a document or a shadow root) that CSS search matches
// (spec: "CSS matching uses an inert privacy-filtered structure"): plain objects, never live nodes, so
// the selector engine calls no page-patchable DOM method. The copy holds the scope's own tree only
// (no shadow roots, no iframe documents: CSS never crosses its scope, as querySelectorAll does not).
// Privacy rules, each applied here:
//   - excluded elements (exclude marker, the composer, sensitive controls) are absent with their
//     subtree, so they count for no sibling position, :has or :empty;
//   - redacted elements (redact marker and its subtree, labels of sensitive controls) keep their
//     element (name, namespace, position, live state) but have no attributes and no text children;
//   - editable values are absent: the `value` attribute of text-entry inputs, the text of a textarea
//     and of editable content (contenteditable and its subtree);
//   - safe non-editable value attributes (checkbox, radio, button-like inputs, range, color, option,
//     button, li, meter, progress, data, param) and live state (checked, selected, disabled ...) stay.
// Pure: the DOM side passes a reader (dom/inert-dom.js); the Node tests pass one over plain objects.
//
// reader: {kind(n) -> 'element'|'text'|null, children(n) -> nodes, name(n), ns(n), attrs(n) -> [[name,
//   value]], text(n), excluded(n), redacted(n), editable(n) (an editing host or a textarea: its text is
//   an editable value), valueEditable(n) (its `value` attribute is an editable value), state(n) ->
//   (pseudo name) -> boolean}.
// opts: {redacted: the scope lies in a redacted subtree, editable: the scope lies in editable content,
//   document: the scope is a document (its element child is :root), maxNodes}.
export const HTML_NS = 'http://www.w3.org/1999/xhtml';

export function buildInert(scope, reader, opts) {
  const o = opts || {};
  const budget = { left: o.maxNodes || 20000, cut: false };
  const root = { type: 'root', name: '#root', children: [], parent: null, live: scope };
  fill(root, scope, reader, !!o.redacted, !!o.editable, !!o.document, budget);
  return { root: root, cut: budget.cut };
}
function fill(into, from, reader, redacted, editable, isDocument, budget) {
  const kids = reader.children(from);
  for (let i = 0; i < kids.length; i++) {
    const n = kids[i];
    const k = reader.kind(n);
    if (k === 'text') {
      if (redacted || editable) continue;
      if (--budget.left < 0) {
        budget.cut = true;
        return;
      }
      into.children.push({ type: 'text', data: reader.text(n), parent: into });
      continue;
    }
    if (k !== 'element') continue;
    if (reader.excluded(n)) continue;
    if (--budget.left < 0) {
      budget.cut = true;
      return;
    }
    const red = redacted || reader.redacted(n);
    const edit = editable || reader.editable(n);
    const ns = reader.ns(n) || '';
    const html = ns === HTML_NS;
    const attribs = Object.create(null);
    if (!red) {
      const list = reader.attrs(n);
      const dropValue = reader.valueEditable(n);
      for (let j = 0; j < list.length; j++) {
        const an = html ? list[j][0].toLowerCase() : list[j][0];
        if (dropValue && an === 'value') continue;
        attribs[an] = list[j][1];
      }
    }
    const el = {
      type: 'tag',
      name: (reader.name(n) || '').toLowerCase(),
      localName: reader.name(n) || '',
      ns: ns,
      attribs: attribs,
      children: [],
      parent: into,
      isDocElement: isDocument && into.type === 'root',
      live: n,
      state: reader.state(n),
    };
    into.children.push(el);
    fill(el, n, reader, red, edit, false, budget);
    if (budget.cut) return;
  }
}
// Which inputs carry a safe value attribute (their value is no text the user typed).
const SAFE_VALUE_INPUT_TYPES = {
  checkbox: 1,
  radio: 1,
  button: 1,
  submit: 1,
  reset: 1,
  image: 1,
  range: 1,
  color: 1,
};
// Whether an element's `value` attribute is an editable value (a text-entry input's default text).
export function valueIsEditable(localName, ns, type) {
  if (ns !== HTML_NS || localName !== 'input') return false;
  const t = (type || 'text').trim().toLowerCase();
  return !SAFE_VALUE_INPUT_TYPES[t];
}
