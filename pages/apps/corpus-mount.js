// Mounting and announcing a third-party component corpus (pages/apps/corpus-shoelace.html,
// corpus-material.html): the same steps in iframe and fragment realms, imported by each page's
// module script so it runs in that page's realm.

/** Puts `markup` into `#corpus` and waits until every `<prefix>*` element is defined. */
export async function mountCorpus(markup, prefix) {
  const root = document.getElementById('corpus');
  // Through the realm's own document (a fragment realm patches it onto the physical tree), so the
  // realm's registry upgrades the components.
  const tpl = document.createElement('template');
  tpl.innerHTML = markup;
  root.appendChild(document.importNode(tpl.content, true));
  const tags = [
    ...new Set([...root.querySelectorAll('*')].map((e) => e.localName).filter((n) => n.startsWith(prefix))),
  ];
  await Promise.all(tags.map((t) => customElements.whenDefined(t)));
  return root;
}

/** Says the corpus is rendered: the landmark rect, `__appReady`, `data-app-ready` and the composed
 * `wippy-app-ready` event the Host waits for. */
export function announceReady(root, app) {
  window.__installLandmarkRect(null);
  window.__appReady = true;
  root.setAttribute('data-app-ready', 'true');
  root.dispatchEvent(new CustomEvent('wippy-app-ready', { bubbles: true, composed: true, detail: { app } }));
}
