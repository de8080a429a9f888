// Natives captured when the bundle is evaluated, synchronously before any page script runs (pages
// and Web Fragments patch some of these). Spec: the runtime must keep working over hostile or
// patched page globals; it never uses ownerDocument/getRootNode (Web Fragments patch both).
// TextEncoder and URL are captured by util.js and origins.js, which stay DOM-free so the Node unit
// tests can import them; they are re-exported here for the DOM-side modules.
export { nTextEncoder } from './util.js';
export { nURL } from './origins.js';

export const W = window;
export const D = document;
const getDesc = (proto, name) => { try { return Object.getOwnPropertyDescriptor(proto, name); } catch (_) { return undefined; } };
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
export const nDocEFP = Document.prototype.elementFromPoint;
export const nRootEFP = (ShadowRoot.prototype.elementFromPoint) || null;
export const nDocActive = getDesc(Document.prototype, 'activeElement').get;
export const nRootActive = getDesc(ShadowRoot.prototype, 'activeElement').get;
export const nDocGetById = Document.prototype.getElementById;
export const nFragGetById = DocumentFragment.prototype.getElementById;
export const nQSA = Element.prototype.querySelectorAll;
export const nDocQSA = Document.prototype.querySelectorAll;
export const nFragQSA = DocumentFragment.prototype.querySelectorAll;
export const nAddEL = EventTarget.prototype.addEventListener;
export const nGetCS = W.getComputedStyle.bind(W);
export const nPerfNow = performance.now.bind(performance);
export const nTimeOrigin = (typeof performance.timeOrigin === 'number' && isFinite(performance.timeOrigin)) ? performance.timeOrigin : Date.now() - performance.now();
// Absolute monotonic-clock time (ms) of an event, comparable across realms: timeOrigin + timeStamp.
export function eventTime(ev) { const ts = ev && ev.timeStamp; return nTimeOrigin + ((typeof ts === 'number' && isFinite(ts) && ts > 0) ? ts : nPerfNow()); }
export function nowAbs() { return nTimeOrigin + nPerfNow(); }
export const nDateNow = Date.now;
export const nSetTimeout = W.setTimeout.bind(W);
export const nClearTimeout = W.clearTimeout.bind(W);
export const nPostMessage = W.postMessage; // called on other windows via .call
export const nMutationObserver = W.MutationObserver;
export const nJSONStringify = JSON.stringify;
export const nGetRandomValues = crypto.getRandomValues.bind(crypto);
export const nSubtle = (W.isSecureContext && crypto.subtle) ? crypto.subtle : null;
export const nWeakRef = W.WeakRef;
export const nDebug = (W.console && W.console.debug) ? W.console.debug.bind(W.console) : function () {};
