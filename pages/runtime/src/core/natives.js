// Natives captured when the bundle is evaluated, synchronously before any page script runs (pages
// and Web Fragments patch some of these). Spec: the runtime must keep working over hostile or
// patched page globals; it never uses ownerDocument/getRootNode (Web Fragments patch both).
// TextEncoder and URL are captured by util.js and origins.js, which stay DOM-free so the Node unit
// tests can import them; they are re-exported here for the DOM-side modules.
export { nTextEncoder } from './util.js';
export { nURL } from './origins.js';

export const W = window;
// The realm's current document, read on every use: when an iframe's initial about:blank document is
// replaced by a same-origin navigation the Window (and this runtime) stays, the document does not.
// `window.document` is [LegacyUnforgeable]: pages cannot patch it.
const nWindowDocument = (Object.getOwnPropertyDescriptor(W, 'document') || {}).get;
export function doc() {
  try {
    return nWindowDocument ? nWindowDocument.call(W) : W.document;
  } catch (_) {
    return W.document;
  }
}
const getDesc = (proto, name) => {
  try {
    return Object.getOwnPropertyDescriptor(proto, name);
  } catch (_) {
    return undefined;
  }
};
export const nParentNode = getDesc(Node.prototype, 'parentNode').get;
export const nFirstChild = getDesc(Node.prototype, 'firstChild').get;
export const nNextSibling = getDesc(Node.prototype, 'nextSibling').get;
export const nNodeType = getDesc(Node.prototype, 'nodeType').get;
export const nIsConnected = (getDesc(Node.prototype, 'isConnected') || {}).get;
export const nNodeValue = getDesc(Node.prototype, 'nodeValue').get;
export const nLocalName = getDesc(Element.prototype, 'localName').get;
export const nShadowRootGet = getDesc(Element.prototype, 'shadowRoot').get;
export const nHostGet = getDesc(ShadowRoot.prototype, 'host').get;
export const nGetAttribute = Element.prototype.getAttribute;
export const nHasAttribute = Element.prototype.hasAttribute;
export const nGetBCR = Element.prototype.getBoundingClientRect;
export const nAttachShadow = Element.prototype.attachShadow;
export const nAttachInternals = (typeof HTMLElement !== 'undefined' && HTMLElement.prototype.attachInternals) || null;
// ElementInternals getters (role, ARIA reflection, the shadow root of its own element, also closed
// and declarative ones): prop -> getter.
export const nInternalsGet = (function () {
  const out = {};
  const proto = typeof ElementInternals !== 'undefined' ? ElementInternals.prototype : null;
  if (!proto) return out;
  [
    'role',
    'shadowRoot',
    'ariaLabel',
    'ariaChecked',
    'ariaSelected',
    'ariaExpanded',
    'ariaPressed',
    'ariaDisabled',
    'ariaRequired',
    'ariaCurrent',
    'ariaInvalid',
    'ariaHidden',
    'ariaValueNow',
    'ariaValueText',
    'ariaHasPopup',
    'ariaLevel',
    'ariaReadOnly',
  ].forEach((p) => {
    const d = getDesc(proto, p);
    if (d && d.get) out[p] = d.get;
  });
  return out;
})();
// The flat tree: a slottable's assigned slot (null for slots of closed roots), a slot's assigned nodes.
export const nElAssignedSlot = (getDesc(Element.prototype, 'assignedSlot') || {}).get || null;
export const nTextAssignedSlot =
  (typeof Text !== 'undefined' && (getDesc(Text.prototype, 'assignedSlot') || {}).get) || null;
export const nAssignedNodes =
  (typeof HTMLSlotElement !== 'undefined' && HTMLSlotElement.prototype.assignedNodes) || null;
export const nGetClientRects = Element.prototype.getClientRects;
export const nCreateRange = Document.prototype.createRange;
export const nRangeSelectNodeContents = Range.prototype.selectNodeContents;
export const nRangeGetClientRects = Range.prototype.getClientRects;
export const nDocEFP = Document.prototype.elementFromPoint;
export const nRootEFP = ShadowRoot.prototype.elementFromPoint || null;
export const nDocActive = getDesc(Document.prototype, 'activeElement').get;
export const nRootActive = getDesc(ShadowRoot.prototype, 'activeElement').get;
export const nDocGetById = Document.prototype.getElementById;
export const nFragGetById = DocumentFragment.prototype.getElementById;
export const nQSA = Element.prototype.querySelectorAll;
export const nMatches = Element.prototype.matches;
export const nClosest = Element.prototype.closest;
export const nNamespaceURI = getDesc(Element.prototype, 'namespaceURI').get;
export const nCaretPositionFromPoint = Document.prototype.caretPositionFromPoint || null;
export const nDocQSA = Document.prototype.querySelectorAll;
export const nFragQSA = DocumentFragment.prototype.querySelectorAll;
export const nAddEL = EventTarget.prototype.addEventListener;
export const nGetCS = W.getComputedStyle.bind(W);
export const nPerfNow = performance.now.bind(performance);
export const nTimeOrigin =
  typeof performance.timeOrigin === 'number' && isFinite(performance.timeOrigin)
    ? performance.timeOrigin
    : Date.now() - performance.now();
// Absolute monotonic-clock time (ms) of an event, comparable across realms: timeOrigin + timeStamp.
export function eventTime(ev) {
  const ts = ev && ev.timeStamp;
  return nTimeOrigin + (typeof ts === 'number' && isFinite(ts) && ts > 0 ? ts : nPerfNow());
}
export function nowAbs() {
  return nTimeOrigin + nPerfNow();
}
export const nDateNow = Date.now;
export const nSetTimeout = W.setTimeout.bind(W);
export const nClearTimeout = W.clearTimeout.bind(W);
export const nPostMessage = W.postMessage; // called on other windows via .call
export const nMutationObserver = W.MutationObserver;
export const nJSONStringify = JSON.stringify;
export const nJSONParse = JSON.parse;
export const nGetRandomValues = crypto.getRandomValues.bind(crypto);
export const nSubtle = W.isSecureContext && crypto.subtle ? crypto.subtle : null;
export const nWeakRef = W.WeakRef;
export const nDebug = W.console && W.console.debug ? W.console.debug.bind(W.console) : function () {};
// Attributes (the inert copy for CSS search: dom/inert-dom.js) and text, over the captured natives.
export const nAttributesGet = getDesc(Element.prototype, 'attributes').get;
export const nNNMLength = getDesc(NamedNodeMap.prototype, 'length').get;
export const nNNMItem = NamedNodeMap.prototype.item;
export const nAttrName = getDesc(Attr.prototype, 'name').get;
export const nAttrValue = getDesc(Attr.prototype, 'value').get;
export const nTextContent = getDesc(Node.prototype, 'textContent').get;
export const nDocElement = getDesc(Document.prototype, 'documentElement').get;
export const nOffsetWidth = (getDesc(HTMLElement.prototype, 'offsetWidth') || {}).get || null;
export const nOffsetHeight = (getDesc(HTMLElement.prototype, 'offsetHeight') || {}).get || null;
export const nIsContentEditable = (getDesc(HTMLElement.prototype, 'isContentEditable') || {}).get || null;
// The inert native copy CSS search matches (dom/css-native.js): an inert document of the realm
// (DOMParser: no browsing context, so nothing in it loads, runs or upgrades), filled with shallow
// imports of the scope's elements, matched with the realm's own querySelectorAll.
export const nDOMParser = W.DOMParser;
export const nParseFromString = W.DOMParser.prototype.parseFromString;
export const nImportNode = Document.prototype.importNode;
export const nCreateTextNode = Document.prototype.createTextNode;
export const nCreateElementNS = Document.prototype.createElementNS;
export const nCreateDocumentFragment = Document.prototype.createDocumentFragment;
export const nAppendChild = Node.prototype.appendChild;
export const nRemoveChild = Node.prototype.removeChild;
export const nSetAttribute = Element.prototype.setAttribute;
export const nRemoveAttributeNode = Element.prototype.removeAttributeNode;
export const nCompatMode = (getDesc(Document.prototype, 'compatMode') || {}).get || null;
export const nContentType = (getDesc(Document.prototype, 'contentType') || {}).get || null;
export const nNodeListLength = getDesc(NodeList.prototype, 'length').get;
export const nNodeListItem = NodeList.prototype.item;
