// Which elements can host a shadow root at all (DOM standard, "attach a shadow root": an HTML
// element whose local name is a valid custom element name or one of the valid shadow host names).
// Used to decide which hit elements may hide a shadow root the runtime cannot enter
// (hidden-roots.js). DOM-free.
const SHADOW_HOST_NAMES = {
  article: 1,
  aside: 1,
  blockquote: 1,
  body: 1,
  div: 1,
  footer: 1,
  h1: 1,
  h2: 1,
  h3: 1,
  h4: 1,
  h5: 1,
  h6: 1,
  header: 1,
  main: 1,
  nav: 1,
  p: 1,
  section: 1,
  span: 1,
};
// Names that match the custom element pattern but are reserved (SVG / MathML elements).
const RESERVED = {
  'annotation-xml': 1,
  'color-profile': 1,
  'font-face': 1,
  'font-face-src': 1,
  'font-face-uri': 1,
  'font-face-format': 1,
  'font-face-name': 1,
  'missing-glyph': 1,
};
// A valid custom element name, as far as HTML parsing produces local names: starts with a-z,
// contains a hyphen, no ASCII upper case, not reserved.
export function isCustomElementName(ln) {
  return typeof ln === 'string' && /^[a-z][^A-Z]*-[^A-Z]*$/.test(ln) && !RESERVED[ln];
}
// ln: the element's local name; html: whether it is in the HTML namespace.
export function canHostShadowRoot(ln, html) {
  if (!html || typeof ln !== 'string') return false;
  return !!SHADOW_HOST_NAMES[ln] || isCustomElementName(ln);
}
