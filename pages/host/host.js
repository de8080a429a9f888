// The reference Host's shared code: what gets mounted (the app catalog), how it is mounted per engine
// (cross-origin iframe or Web Fragment), the two layouts' builders, the managed layout declaration's
// validator, and the small test-facing surface on window.__host.
//
// ES module, no build step. The markup it produces follows the contract in pages/README.md: every Host
// boundary carries data-wippy-kind and a deterministic data-wippy-mount-id, every point tests or the CLI
// name carries data-landmark. The shell follows the viewport (1280x720 by default); every other size is
// fixed pixels, so geometry is the same on every run at one viewport.

import { attachSession } from './composer.js';
import { attachOverlay } from './overlay.js';
import {
  BUILTIN_IDS,
  PAGE_IDS,
  SIZE,
  checkDeclarationText,
  formatProblem,
  normalizeSrc,
  validateDeclaration,
} from './declaration.js';

export { validateDeclaration };

const params = new URLSearchParams(location.search);

/**
 * The Host's Attention configuration: `?actions=on` enables agent clarification actions (candidates
 * carry `action_ref`, the Session may open Host-owned overlays); any other value or none leaves them
 * off (spec operational verification item 1: interactive capabilities off open no overlay).
 */
export const AGENT_ACTIONS_ENABLED = params.get('actions') === 'on';
if (window.wippyAttention && typeof window.wippyAttention.configure === 'function') {
  window.wippyAttention.configure({ agent_actions_enabled: AGENT_ACTIONS_ENABLED });
}

/** Which engine mounts pages: `iframe` (default) or `fragment`. */
export const ENGINES = ['iframe', 'fragment'];

const state = {
  layout: null,
  engine: 'iframe',
  /** `{kind, message, panelId?}` per problem; also `window.__hostErrors`. */
  errors: [],
  /** One entry per mounted app: `{artifactId, mountId, engine, element}`. */
  mounts: [],
  pending: new Map(),
};

let resolveReady;
const ready = new Promise((resolve) => {
  resolveReady = resolve;
});

window.__hostErrors = state.errors;
window.__host = {
  get layout() {
    return state.layout;
  },
  get engine() {
    return state.engine;
  },
  errors: state.errors,
  /** Resolves once every mounted realm reported loaded: `{layout, engine, ok, errors, mounts}`. */
  ready,
  /** Remount one artifact's app (same mount ids, a fresh realm); resolves when it is loaded again. */
  remount: (artifactId) => remount(artifactId),
  /** `{declaration}` the layout was built from (managed, or compat with `?layout=`; else null). */
  declaration: null,
  /** Validate any declaration object with the same rules managed.html applies: `[{kind, message, panelId?, path}]`. */
  validate: (decl) => validateDeclaration(decl),
  /**
   * Check a declaration file's text as this Host does when it loads one (strict JSON, the rules, and
   * in managed the fit in this viewport; compat does not apply the arrangement):
   * `[{kind, message, panelId?, line, column}]`, in the file's order.
   */
  check: (text) => checkDeclarationText(text, { viewport: fitViewport() }).problems,
  /** Texts submitted through the composer, oldest first. */
  composerSubmits: [],
  /**
   * When true, Send behaves like a Host whose non-steering Session runs a turn: the composer's
   * textarea and Send are disabled (so the focused textarea loses focus) until `finishTurn()`.
   */
  blockingTurns: false,
  /** Whether a blocking turn is running (the composer is disabled). */
  turnRunning: false,
  /** Ends the running turn: re-enables the composer and focuses its textarea again. */
  finishTurn: () => {},
};

/**
 * Rect of the first element with `data-landmark=name` in the Host document or any OPEN shadow tree
 * under it (this includes Web Fragment content in engine fragment). Host-viewport CSS px, or null.
 */
window.__landmarkRect = (name) => {
  const el = deepQuery(document, `[data-landmark="${CSS.escape(name)}"]`);
  if (!el) return null;
  const r = el.getBoundingClientRect();
  return { x: r.x, y: r.y, width: r.width, height: r.height };
};

function deepQuery(root, selector) {
  const direct = root.querySelector(selector);
  if (direct) return direct;
  for (const el of root.querySelectorAll('*')) {
    if (el.shadowRoot) {
      const found = deepQuery(el.shadowRoot, selector);
      if (found) return found;
    }
  }
  return null;
}

/** The CSS px box the managed shell lays out in: the layout viewport. */
function shellViewport() {
  return { width: document.documentElement.clientWidth, height: document.documentElement.clientHeight };
}

/**
 * The viewport a declaration's fixed sizes must fit (`does-not-fit`): the shell's in managed, none in
 * compat, whose chrome is fixed and which does not apply the declaration's arrangement.
 */
function fitViewport() {
  return state.layout === 'compat' ? undefined : shellViewport();
}

function reportError(error) {
  state.errors.push(error);
  console.error('[host]', error.kind, error.message, error.panelId ?? '');
}

// ---------------------------------------------------------------------------------------------------
// Origins

function childOrigin() {
  const meta = document.querySelector('meta[name="wippy-child-origin"]');
  const value = meta && meta.content;
  if (value && /^https?:\/\/[^/]+$/.test(value)) return value;
  reportError({
    kind: 'config',
    message:
      'meta wippy-child-origin is missing or was not replaced by the server; cross-origin apps fall back to the Host origin',
  });
  return location.origin;
}

// ---------------------------------------------------------------------------------------------------
// What gets mounted

/**
 * The app catalog. `app` names a file `pages/apps/<app>.html` (iframe `__CHILD_ORIGIN__/apps/<app>.html`,
 * fragment `/fragments/<app>/`); `srcdoc` apps are same-origin srcdoc iframes in both engines.
 */
const ARTIFACTS = {
  'leaf-left': { app: 'leaf', query: 'side=left', width: 240, height: 120, label: 'Left leaf', landmark: 'boundary' },
  'leaf-right': {
    app: 'leaf',
    query: 'side=right',
    width: 240,
    height: 120,
    label: 'Right leaf',
    landmark: 'right-leaf-artifact',
  },
  'bridge': { app: 'bridge', width: 480, height: 150, label: 'Bridge', landmark: 'bridge-artifact' },
  'closed-shadow': { srcdoc: true, width: 208, height: 96, label: 'Closed shadow', landmark: 'closed-shadow-artifact' },
  // Optional extras, mounted only when named in ?extras=a,b (at the end of the tools page).
  'no-runtime': {
    app: 'plain',
    query: 'attention=off',
    noRuntime: true,
    iframeOnly: true,
    extra: true,
    width: 208,
    height: 64,
    label: 'No runtime',
    landmark: 'no-runtime-artifact',
  },
  // An app with an iframe of its own: a grandchild realm (inside an OOPIF, or inside a fragment).
  'nest': { app: 'nest', extra: true, width: 208, height: 96, label: 'Nest', landmark: 'nest-artifact' },
  // An iframe created blank: the Host runs the runtime in its initial about:blank document, then
  // navigates it same-origin to apps/plain.html (the browser keeps the Window; issue 7).
  'blank-nav': {
    app: 'plain',
    blankNav: true,
    iframeOnly: true,
    extra: true,
    width: 208,
    height: 64,
    label: 'Blank then navigated',
    landmark: 'blank-nav-artifact',
  },
  // Omission extras (pages/README.md "Omission extras"): 100x64 Child-origin iframes of apps/peer.html in
  // both engines, mounted side by side in the order named, so a point on the shared edge of a failing
  // extra and `sibling` samples both.
  ...omissionExtras({
    sibling: { query: '', label: 'Healthy sibling' },
    dense: { query: '', label: 'Dense peer' },
    bare: { query: 'attention=off', label: 'Peer without runtime', noRuntime: true },
    hang: { query: 'attention=off&fake=hang', label: 'Hanging peer' },
    unready: { query: 'attention=off&fake=unready', label: 'Peer never ready' },
    vanish: { query: 'attention=off&fake=vanish', label: 'Vanishing peer', testHooks: true },
    remount: { query: 'attention=off&fake=remount', label: 'Remounting peer', testHooks: true },
    navigate: { query: 'attention=off&fake=navigate', label: 'Navigating peer' },
    hostile: { query: 'attention=off&hostile=1', label: 'Hostile peer', noRuntime: true },
    'renew-short': { query: 'attention=off&fake=renew&life=2000', label: 'Peer granting 2 s' },
    'renew-mid': { query: 'attention=off&fake=renew&life=12000', label: 'Peer granting 12 s' },
    sandboxed: { query: '', label: 'Sandboxed peer', sandbox: 'allow-scripts' },
    rotated: { query: '', label: 'Rotated peer', style: 'transform:rotate(6deg)' },
    nested: { query: 'nest=9', label: 'Nine nested realms' },
    grid: { query: 'grid=1', label: 'Grid of large candidates' },
    fan: { query: 'fan=1', label: 'Fan of 100 tiny realms' },
  }),
  // Realm-count extras (pages/README.md "Realm extras"): N Child-origin child realms of the Host in a
  // 128x128 grid, each possibly with a grandchild (tests/budgets.rs: budgets and leases end to end).
  ...realmExtras([1, 4, 16, 64]),
};

function realmExtras(counts) {
  const out = {};
  for (const n of counts) {
    for (const grand of [false, true]) {
      const id = `realms-${n}` + (grand ? '-grand' : '');
      out[id] = {
        app: 'peer',
        realms: n,
        cell: grand ? 'grand' : '1',
        iframeOnly: true,
        extra: true,
        width: 128,
        height: 128,
        label: `${n} child realms` + (grand ? ' with grandchildren' : ''),
        landmark: `${id}-artifact`,
      };
    }
  }
  // One 128x128 child realm tiled with 4x4 px buttons (point, candidate and byte limits of one grant).
  out['realms-buttons'] = {
    app: 'peer',
    realms: 1,
    cell: 'buttons',
    iframeOnly: true,
    extra: true,
    width: 128,
    height: 128,
    label: 'One realm of 4x4 buttons',
    landmark: 'realms-buttons-artifact',
  };
  return out;
}

function omissionExtras(list) {
  const out = {};
  for (const [id, e] of Object.entries(list)) {
    out[id] = {
      app: 'peer',
      query: `name=${id}` + (e.query ? `&${e.query}` : ''),
      iframeOnly: true,
      extra: true,
      width: 100,
      height: 64,
      label: e.label,
      landmark: `${id}-artifact`,
      noRuntime: !!e.noRuntime,
      sandbox: e.sandbox,
      style: e.style,
      testHooks: !!e.testHooks,
    };
  }
  return out;
}

/**
 * `?corpus=shoelace|material|internals|sensitive|conformance&mount=same-origin|cross-origin|fragment`: the home page holds only the component
 * corpus `apps/corpus-<name>.html` (480x400): a same-origin iframe (Host site), a cross-origin iframe
 * (Child site) or a Web Fragment (needs engine=fragment). Without `corpus` nothing changes.
 */
const CORPORA = ['shoelace', 'material', 'internals', 'sensitive', 'conformance'];
const MOUNTS = ['same-origin', 'cross-origin', 'fragment'];
const CORPUS = (() => {
  const name = params.get('corpus');
  if (!name) return null;
  const mount = params.get('mount') || 'cross-origin';
  if (!CORPORA.includes(name) || !MOUNTS.includes(mount)) {
    reportError({
      kind: 'config',
      message: `corpus \`${name}\` / mount \`${mount}\` unknown (corpora: ${CORPORA.join(', ')}; mounts: ${MOUNTS.join(', ')})`,
    });
    return null;
  }
  const id = `corpus-${name}`;
  ARTIFACTS[id] = {
    app: id,
    width: 480,
    height: 400,
    label: `Corpus ${name}`,
    landmark: 'corpus-artifact',
    sameOrigin: mount === 'same-origin',
    iframeOnly: mount !== 'fragment',
  };
  if (mount === 'fragment' && params.get('engine') !== 'fragment') {
    reportError({ kind: 'config', message: 'corpus mount `fragment` needs engine=fragment' });
  }
  return { id, mount };
})();

/**
 * `?geometry=a,b`: geometry variants for the oracle tests, as one extra style sheet (and a scroll
 * after mounting). Without the parameter nothing changes, so the default layout stays pixel-identical.
 */
const LEFT_FRAME = '[data-wippy-artifact-id="leaf-left"] > iframe, [data-wippy-artifact-id="leaf-left"] > web-fragment';
const HOME_PANEL = '[data-wippy-mount-id="panel-main"], #page-area';
const GEOMETRY = {
  /** CSS zoom on the row holding the left and right leaves: an ancestor of their iframes (or fragment leaves). */
  'zoom-frame': { css: '.row:has(> [data-wippy-artifact-id="leaf-left"]) { zoom: 1.25; }' },
  /** CSS zoom on the Host privacy probes: an ancestor of Host-document leaves. */
  'zoom-leaf': { css: '[data-landmark="host-privacy-probes"] { zoom: 1.5; }' },
  /** transform: scale() on the left leaf's iframe / web-fragment. */
  'scale-frame': { css: `${LEFT_FRAME} { transform: scale(0.8); transform-origin: 0 0; }` },
  /** scale with translate on the left leaf's iframe / web-fragment. */
  'scale-translate-frame': {
    css: `${LEFT_FRAME} { transform: translate(12px, 6px) scale(0.8); transform-origin: 0 0; }`,
  },
  /** scale on the panel holding the home page (managed `main`, compat `page-area`). */
  'scale-panel': { css: `${HOME_PANEL} { transform: scale(0.9); transform-origin: 0 0; }` },
  /** the page scrolled by 40px (the body made taller than the viewport). */
  'scroll-page': { css: 'body { height: 1200px !important; }', scroll: () => window.scrollTo(0, 40) },
  /** the home panel scrolled by 40px (extra space at the end of its page body). */
  'scroll-panel': {
    css: `:is(${HOME_PANEL}) .page-body::after { content: ''; display: block; height: 400px; }`,
    scroll: () => {
      for (const el of document.querySelectorAll(HOME_PANEL)) el.scrollTop = 40;
    },
  },
  /** border and padding on the left leaf's iframe (its content box shrinks inside the same artifact). */
  'border-frame': {
    css: '[data-wippy-artifact-id="leaf-left"] > iframe { border: 7px solid #345; padding: 5px 9px; box-sizing: border-box; }',
  },
  /** rotation / skew on the left leaf's iframe: unsupported for point mapping. */
  'rotate-frame': { css: `${LEFT_FRAME} { transform: rotate(4deg); }` },
  'skew-frame': { css: `${LEFT_FRAME} { transform: skewX(8deg); }` },
};
const VARIANTS = (params.get('geometry') || '')
  .split(',')
  .filter(Boolean)
  .filter((id) => {
    if (GEOMETRY[id]) return true;
    reportError({
      kind: 'config',
      message: `unknown geometry variant \`${id}\` (known: ${Object.keys(GEOMETRY).join(', ')})`,
    });
    return false;
  });

function applyGeometry() {
  if (VARIANTS.length === 0) return;
  const style = document.createElement('style');
  style.setAttribute('data-host-geometry', VARIANTS.join(','));
  style.textContent = VARIANTS.map((id) => GEOMETRY[id].css).join('\n');
  document.head.append(style);
  for (const id of VARIANTS) if (GEOMETRY[id].scroll) GEOMETRY[id].scroll();
}

/** `?extras=no-runtime,...`: optional artifacts; unknown names are reported as `config` errors. */
const EXTRAS = (params.get('extras') || '')
  .split(',')
  .filter(Boolean)
  .filter((id) => {
    if (ARTIFACTS[id] && ARTIFACTS[id].extra) return true;
    reportError({
      kind: 'config',
      message: `unknown extra \`${id}\` (known: ${Object.keys(ARTIFACTS)
        .filter((k) => ARTIFACTS[k].extra)
        .join(', ')})`,
    });
    return false;
  });

/** Pages: titled lists of sections; a section is a row of artifacts or the Host-document privacy probes. */
const PAGES = {
  home: {
    title: 'Home',
    sections: CORPUS
      ? [{ label: 'Component corpus', artifacts: [CORPUS.id] }]
      : [
          { label: 'Edge-to-edge children', artifacts: ['leaf-left', 'leaf-right'] },
          { label: 'Nested bridge', artifacts: ['bridge'] },
        ],
  },
  tools: {
    title: 'Tools',
    sections: [
      { label: 'Closed shadow root (srcdoc)', artifacts: ['closed-shadow'] },
      { label: 'Host privacy probes', probes: true },
      { label: 'Extras', artifacts: EXTRAS, optional: true },
    ],
  },
};

const BUILTINS = {
  '@HOST/nav-sidebar': renderNav,
  '@HOST/chat': renderChat,
};

// The declaration rules (declaration.js) name the same builtins and pages as this catalog.
if (Object.keys(BUILTINS).join() !== BUILTIN_IDS.join() || Object.keys(PAGES).join() !== PAGE_IDS.join()) {
  reportError({
    kind: 'config',
    message: 'declaration.js BUILTIN_IDS / PAGE_IDS differ from host.js BUILTINS / PAGES',
  });
}

function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'style') el.style.cssText = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  // Text as explicit nodes: web-fragments' patched append() warns about string arguments.
  for (const c of children) {
    if (c === null || c === undefined) continue;
    el.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
  }
  return el;
}

function renderArtifact(artifactId) {
  const spec = ARTIFACTS[artifactId];
  const el = h('div', {
    class: 'artifact',
    'data-wippy-kind': 'artifact',
    'data-wippy-artifact-id': artifactId,
    'data-wippy-mount-id': `artifact-${artifactId}`,
    'data-wippy-label': spec.label,
    'data-wippy-package-id': 'reference.apps',
    'data-landmark': spec.landmark,
    style: `width:${spec.width}px;height:${spec.height}px` + (spec.style ? `;${spec.style}` : ''),
  });
  el.append(createMount(artifactId));
  return el;
}

/** The element that holds the app's realm: an iframe or a web-fragment, with its mount id. */
function createMount(artifactId) {
  const spec = ARTIFACTS[artifactId];
  const mountId = `mount-${artifactId}`;
  let el;
  let loaded;
  if (spec.url && state.engine !== 'fragment') {
    // An application served elsewhere, engine iframe: an iframe of its own origin (the harness
    // injects the runtime through CDP).
    el = h('iframe', { title: spec.label, src: spec.url, 'data-wippy-mount-id': mountId });
    loaded = new Promise((resolve) => el.addEventListener('load', resolve, { once: true }));
  } else if (spec.url && !spec.qa) {
    // Engine fragment proxies the upstream through the gateway over plain http: only.
    reportError({
      kind: 'config',
      message: `page url ${spec.url} cannot be mounted with engine=fragment: the gateway proxies http: urls only`,
    });
    el = h('div', { 'data-wippy-mount-id': mountId });
    loaded = Promise.resolve();
  } else if (spec.qa && state.engine === 'fragment') {
    el = h('web-fragment', { 'fragment-id': artifactId, src: `/fragments/${spec.qa}`, 'data-wippy-mount-id': mountId });
    loaded = spec.component ? componentReport(artifactId, spec.component) : fragmentContent(el);
  } else if (spec.qa) {
    const origin = spec.sameOrigin ? location.origin : state.childOrigin;
    el = h('iframe', { title: spec.label, src: `${origin}/${spec.qa}`, 'data-wippy-mount-id': mountId });
    loaded = spec.component
      ? componentReport(artifactId, spec.component)
      : new Promise((resolve) => el.addEventListener('load', resolve, { once: true }));
  } else if (spec.blankNav) {
    el = h('iframe', { title: spec.label, 'data-wippy-mount-id': mountId, 'data-landmark': `${artifactId}-frame` });
    loaded = blankThenNavigate(el, `${location.origin}/apps/${spec.app}.html`);
  } else if (spec.srcdoc) {
    el = h('iframe', { title: spec.label, 'data-wippy-mount-id': mountId, 'data-landmark': `${artifactId}-frame` });
    loaded = new Promise((resolve) => el.addEventListener('load', resolve, { once: true }));
    el.srcdoc = closedShadowSrcdoc();
  } else if (spec.realms) {
    // A k x k grid of Child-origin iframes, direct children of the Host realm: `rl-<i>-frame`, mount id
    // `mount-<artifact>-<i>`, row-major.
    const k = Math.round(Math.sqrt(spec.realms));
    const size = spec.width / k;
    el = h('div', {
      class: 'realms',
      'data-landmark': `${artifactId}-frame`,
      style: `position:relative;width:${spec.width}px;height:${spec.height}px`,
    });
    const loads = [];
    for (let i = 0; i < spec.realms; i++) {
      const frame = h('iframe', {
        title: `Realm ${i}`,
        src: `${state.childOrigin}/apps/peer.html?name=rl-${i}&cell=${spec.cell}`,
        'data-wippy-mount-id': `${mountId}-${i}`,
        'data-landmark': `rl-${i}-frame`,
        style: `position:absolute;border:0;margin:0;padding:0;left:${(i % k) * size}px;top:${Math.floor(i / k) * size}px;width:${size}px;height:${size}px`,
      });
      loads.push(new Promise((resolve) => frame.addEventListener('load', resolve, { once: true })));
      el.append(frame);
    }
    loaded = Promise.all(loads);
  } else if (state.engine === 'fragment' && !spec.iframeOnly) {
    const src = `/fragments/${spec.app}/` + (spec.query ? `?${spec.query}` : '');
    el = h('web-fragment', {
      'fragment-id': artifactId,
      src,
      'data-wippy-mount-id': mountId,
      'data-landmark': `${artifactId}-frame`,
    });
    loaded = new Promise((resolve) => state.pending.set(artifactId, resolve));
  } else {
    const origin = spec.sameOrigin ? location.origin : state.childOrigin;
    const src = `${origin}/apps/${spec.app}.html` + (spec.query ? `?${spec.query}` : '');
    // The Host knows which of its mounts it serves without the runtime (`?attention=off`) and says so
    // (`data-wippy-runtime="absent"`), so nobody waits 50 discovery attempts for a grant that cannot come.
    el = h('iframe', {
      title: spec.label,
      src,
      sandbox: spec.sandbox,
      'data-wippy-runtime': spec.noRuntime ? 'absent' : null,
      'data-wippy-mount-id': mountId,
      'data-landmark': `${artifactId}-frame`,
    });
    loaded = new Promise((resolve) => el.addEventListener('load', resolve, { once: true }));
  }
  const mount = {
    artifactId,
    mountId,
    engine: el.localName === 'web-fragment' ? 'fragment' : 'iframe',
    element: el,
    loaded,
  };
  state.mounts = state.mounts.filter((m) => m.artifactId !== artifactId);
  state.mounts.push(mount);
  return el;
}

/**
 * A QA application's fragment has loaded when its realm window fired `load` (web-fragments fires it
 * after the content's scripts ran and its images loaded); third-party pages send no
 * `wippy-app-ready`. Polled per animation frame, as nothing announces the realm iframe.
 */
function fragmentContent(el) {
  return new Promise((resolve) => {
    const check = () => {
      const host =
        el.querySelector('web-fragment-host') || (el.shadowRoot && el.shadowRoot.querySelector('web-fragment-host'));
      const realm = host && document.querySelector(`iframe[name="wf:${CSS.escape(el.getAttribute('fragment-id'))}"]`);
      const body = host && host.shadowRoot && host.shadowRoot.querySelector('wf-body');
      if (body && (!realm || (realm.contentDocument && realm.contentDocument.readyState === 'complete'))) resolve();
      else requestAnimationFrame(check);
    };
    check();
  });
}

/**
 * `blank-nav`: the iframe is created with its same-origin `src`; while that navigation is under way
 * the frame shows its initial about:blank document, and the runtime source runs there (an inline
 * script, as an embedder's init script would) right after the iframe is inserted (a microtask). The
 * navigation then replaces the document and the browser keeps the Window. Resolves on the load of
 * `url`; `data-window-kept` / `data-blank-document-replaced` on the iframe say what happened.
 */
let runtimeSource = null;
function blankThenNavigate(el, url) {
  if (runtimeSource === null) {
    // Synchronous on purpose: the script must run before the navigation commits.
    const xhr = new XMLHttpRequest();
    xhr.open('GET', '/runtime/attention.js', false);
    xhr.send();
    runtimeSource = xhr.responseText;
  }
  el.setAttribute('src', url);
  return new Promise((resolve) => {
    queueMicrotask(() => {
      const blank = el.isConnected && el.contentDocument;
      if (!blank || el.contentWindow.location.href !== 'about:blank') {
        reportError({ kind: 'mount', message: 'blank-nav: the iframe showed no initial about:blank document' });
        resolve();
        return;
      }
      const script = blank.createElement('script');
      script.textContent = runtimeSource;
      (blank.head || blank.documentElement || blank).appendChild(script);
      if (!el.contentWindow.__wippyAttentionRuntime)
        reportError({ kind: 'mount', message: 'blank-nav: the runtime did not start in about:blank' });
      // A mark on the about:blank global: still there after the navigation only if the Window was kept.
      el.contentWindow.__wippyBlankWindowMark = true;
      el.addEventListener('load', function onLoad() {
        if (el.contentWindow.location.href !== url) return;
        el.removeEventListener('load', onLoad);
        el.setAttribute('data-window-kept', String(el.contentWindow.__wippyBlankWindowMark === true));
        el.setAttribute('data-blank-document-replaced', String(el.contentDocument !== blank));
        resolve();
      });
    });
  });
}

// Fragment apps announce themselves with a composed `wippy-app-ready` event; at the document it is
// retargeted to the <web-fragment>.
document.addEventListener('wippy-app-ready', (e) => {
  const id = e.target && e.target.getAttribute && e.target.getAttribute('fragment-id');
  const resolve = id && state.pending.get(id);
  if (resolve) {
    state.pending.delete(id);
    resolve();
  }
});

/**
 * A component panel's mount has loaded when its generated document (harness
 * server/qa_component.rs) reports how it went: `defined` once `<tag>` is in it; anything else is a
 * `component-failed` error naming the panel, the module and the tag, and the Host's summary is not
 * ok (the harness ends the open with it, not with a timeout). Only the mount's own window is heard:
 * its iframe's, or in engine fragment its realm iframe's (`wf:<fragment id>`).
 */
function componentReport(artifactId, component) {
  return new Promise((resolve) => state.pending.set(`component:${artifactId}`, { component, resolve }));
}

window.addEventListener('message', (e) => {
  const report = e.data && typeof e.data === 'object' ? e.data['wippy-qa-component'] : null;
  if (!report || typeof report !== 'object') return;
  const mount = state.mounts.find((m) => {
    const win =
      m.element.localName === 'iframe'
        ? m.element.contentWindow
        : document.querySelector(`iframe[name="wf:${CSS.escape(m.artifactId)}"]`)?.contentWindow;
    return win === e.source;
  });
  const waiting = mount && state.pending.get(`component:${mount.artifactId}`);
  if (!waiting) return;
  state.pending.delete(`component:${mount.artifactId}`);
  const { panelId, module, tag } = waiting.component;
  if (report.state !== 'defined') {
    reportError({
      kind: 'component-failed',
      panelId,
      module,
      tag,
      reason: String(report.state),
      message: `panel \`${panelId}\`: component <${tag}> from module \`${module}\`: ${String(report.detail)}`,
    });
  }
  waiting.resolve();
});

// Test-only hook for the misbehaving peers (apps/peer-fake.js): an extra declared with `testHooks` may
// ask, from its own live window and the Child origin, to be removed ("remove": its iframe goes, nothing
// replaces it) or remounted ("remount": a new iframe, a new mount generation). Nothing else is accepted.
window.addEventListener('message', (e) => {
  const what = e.data && typeof e.data === 'object' ? e.data.wippy_test : null;
  if (what !== 'remove' && what !== 'remount') return;
  const mount = state.mounts.find((m) => m.element.localName === 'iframe' && m.element.contentWindow === e.source);
  if (!mount || !ARTIFACTS[mount.artifactId].testHooks || e.origin !== state.childOrigin) return;
  if (what === 'remove') mount.element.remove();
  else remount(mount.artifactId);
});

async function remount(artifactId) {
  const box = document.querySelector(`.artifact[data-wippy-artifact-id="${CSS.escape(artifactId)}"]`);
  if (!box) throw new Error(`no artifact ${artifactId}`);
  // Not box.replaceChildren(): web-fragments 0.8.2 patches it and, called with no arguments, it never
  // removes anything (its insertion countdown starts at 0).
  for (const child of Array.from(box.childNodes)) child.remove();
  box.appendChild(createMount(artifactId));
  await state.mounts.find((m) => m.artifactId === artifactId).loaded;
  return summary();
}

// ---------------------------------------------------------------------------------------------------
// The closed-shadow srcdoc app (built here, as Wippy's Host builds its srcdoc documents)

/** srcdoc HTML: the runtime script FIRST (as Wippy's Host puts proxy.js first), then the app. */
function closedShadowSrcdoc() {
  const runtime = `${location.origin}/runtime/attention.js`;
  return (
    '<!doctype html><html lang="en"><head>' +
    `<script src="${runtime}"></script>` +
    '<meta charset="utf-8"><title>Closed shadow app</title><style>' +
    'html,body{margin:0;padding:0}' +
    '.closed-app{box-sizing:border-box;width:100%;height:96px;overflow:hidden;padding:8px 12px;background:#f0ebf7;font:12px/14px system-ui,sans-serif;color:#1d2733}' +
    '.closed-title{display:block;height:14px;margin:0 0 8px 0;font-size:11px;color:#556}' +
    'wippy-closed-fixture{display:block;width:184px;height:58px}' +
    '</style></head><body>' +
    '<div class="closed-app" id="closed-app" data-landmark="closed-shadow-app">' +
    '<span class="closed-title">Closed shadow root</span>' +
    '<wippy-closed-fixture id="closed-fixture" data-landmark="closed-fixture"></wippy-closed-fixture>' +
    '</div>' +
    `<script src="${location.origin}/apps/leaf-log.js"></script>` +
    `<script>(${closedShadowApp.toString()})();</script>` +
    '</body></html>'
  );
}

/** Runs inside the srcdoc realm (serialized with toString: no outer references). */
function closedShadowApp() {
  'use strict';
  var closedRoot = null;
  class ClosedFixture extends HTMLElement {
    constructor() {
      super();
      closedRoot = this.attachShadow({ mode: 'closed' });
      closedRoot.innerHTML =
        '<style>' +
        ':host{display:block}' +
        '.leaf{display:block;width:120px;height:32px;margin:0;padding:0;border:0;border-radius:0;box-sizing:border-box;' +
        'font:12px/14px system-ui,sans-serif;color:#fff;background:#6b3b98;cursor:pointer}' +
        '.leaf:focus{outline:2px solid #111;outline-offset:-2px}' +
        '.safe{display:block;height:14px;margin-top:8px;white-space:nowrap;font:12px/14px system-ui,sans-serif}' +
        '</style>' +
        '<button class="leaf" type="button" data-landmark="closed-shadow-leaf" aria-label="Attention target closed">Closed leaf</button>' +
        '<span class="safe" data-landmark="closed-shadow-safe-text">Safe text in a closed root</span>';
    }
  }
  customElements.define('wippy-closed-fixture', ClosedFixture);

  // Ground truth (pages/apps/leaf-log.js), listeners inside the closed root.
  window.__installLeafLog(closedRoot, function () {
    return closedRoot.querySelector('[data-landmark="closed-shadow-leaf"]');
  });
  window.__installLandmarkRect(closedRoot);
  window.__appReady = true;
}

// ---------------------------------------------------------------------------------------------------
// Page content, builtins

function renderPageBody(pageId) {
  const page = PAGES[pageId];
  const body = h('div', { class: 'page-body' });
  for (const section of page.sections) {
    if (section.optional && section.artifacts.length === 0) continue;
    body.append(h('span', { class: 'section-label' }, section.label));
    if (section.probes) {
      body.append(h('div', { class: 'row' }, hostProbes()));
    } else {
      body.append(h('div', { class: 'row' }, ...section.artifacts.map(renderArtifact)));
    }
  }
  return body;
}

/** Host-document privacy probes (the child-realm ones live in apps/leaf.html?side=left). */
function hostProbes() {
  const password = h('input', {
    type: 'password',
    name: 'host-password',
    autocomplete: 'off',
    'aria-label': 'Host probe password',
    'data-landmark': 'host-probe-password',
  });
  password.value = 'CANARY-PASSWORD-HOST';
  return h(
    'div',
    { class: 'probes', 'data-landmark': 'host-privacy-probes' },
    password,
    h('div', { 'data-wippy-attention': 'exclude', 'data-landmark': 'host-probe-exclude' }, 'CANARY-EXCLUDE-HOST'),
    h('div', { 'data-wippy-attention': 'redact', 'data-landmark': 'host-probe-redact' }, 'CANARY-REDACT-HOST'),
  );
}

function renderNav() {
  const items = [
    ['#home', 'Home', true],
    ['#tools', 'Tools', false],
    ['#settings', 'Settings', false],
  ];
  return h(
    'div',
    { 'data-landmark': 'nav' },
    h('h2', { class: 'panel-title' }, 'Navigation'),
    h(
      'ul',
      { class: 'nav-list' },
      ...items.map(([href, text, current]) =>
        h(
          'li',
          {},
          h('a', { href, 'aria-current': current ? 'page' : null, 'data-landmark': `nav-${text.toLowerCase()}` }, text),
        ),
      ),
    ),
  );
}

function renderChat() {
  const input = h('textarea', {
    name: 'message',
    rows: '3',
    'aria-label': 'Message',
    placeholder: 'Message',
    'data-landmark': 'composer-input',
  });
  input.value = 'CANARY-COMPOSER-DRAFT';
  // Inside the composer, over the empty left part of the Send row: nothing sampled moves.
  const toggle = h(
    'button',
    {
      type: 'button',
      class: 'composer-context',
      'aria-pressed': 'false',
      disabled: true,
      'data-landmark': 'composer-context-toggle',
    },
    'Context: off',
  );
  const form = h(
    'form',
    { class: 'composer', 'data-wippy-composer': true, 'data-landmark': 'composer', 'aria-label': 'Message composer' },
    h(
      'ul',
      { class: 'composer-uploads', 'aria-label': 'Attached files', 'data-landmark': 'composer-uploads' },
      h('li', {}, 'CANARY-COMPOSER-UPLOAD.png'),
    ),
    input,
    toggle,
    h('button', { type: 'submit', 'data-landmark': 'composer-send' }, 'Send'),
  );
  const send = form.querySelector('button[type=submit]');
  const log = h(
    'ul',
    { class: 'chat-log', 'aria-label': 'Conversation' },
    h('li', {}, 'Assistant: point at something and ask about it.'),
  );
  let session = null;
  const overlay = attachOverlay({
    enabled: AGENT_ACTIONS_ENABLED,
    send: (r) => session && session.sendActionResult(r),
    prepareCapture: (cap, meta) => session.prepareCapture(cap, meta),
  });
  session = attachSession({
    form,
    input,
    toggle,
    log,
    uploads: form.querySelector('.composer-uploads'),
    onActionRequest: (req) => overlay.handle(req),
    onActionCancel: (d) => overlay.cancelled(d),
    onSocketClosed: () => overlay.disconnected(),
  });
  window.__host.session = session;
  window.__host.overlay = overlay;
  // The Host's agent-actions setting, changed at run time (as a settings change or policy would):
  // the runtime stops issuing action_refs, the next message's runtime_context reports it, and an
  // active overlay ends `permission-denied`.
  window.__host.setAgentActions = (on) => {
    if (window.wippyAttention && typeof window.wippyAttention.configure === 'function')
      window.wippyAttention.configure({ agent_actions_enabled: !!on });
    overlay.setEnabled(!!on);
    return !!on;
  };
  input.addEventListener('keydown', (e) => {
    // Only a trusted Enter sends (an untrusted one is ignored, as the runtime ignores untrusted input).
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing && e.isTrusted) {
      e.preventDefault();
      form.requestSubmit();
    }
  });
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const text = input.value;
    window.__host.composerSubmits.push(text);
    input.value = '';
    if (window.__host.blockingTurns) {
      window.__host.turnRunning = true;
      input.disabled = true;
      send.disabled = true;
    } else {
      input.focus();
    }
    session.send(text);
  });
  window.__host.finishTurn = () => {
    window.__host.turnRunning = false;
    input.disabled = false;
    send.disabled = false;
    input.focus();
  };
  return h(
    'div',
    { class: 'chat-region', style: 'height:100%', 'data-landmark': 'chat' },
    h('h2', { class: 'panel-title' }, 'Chat'),
    log,
    form,
  );
}

// ---------------------------------------------------------------------------------------------------
// Managed layout declaration

function flexFor(size) {
  const m = SIZE.exec(size || '1fr');
  return m[2] === 'px' ? `flex:0 0 ${m[1]}px` : `flex:${m[1]} 1 0px`;
}

function renderManagedNode(node, panels) {
  const vertical = node.direction === 'vertical';
  const box = h('div', { class: `split${vertical ? ' vertical' : ''}` });
  // A child's size runs along its parent's direction; it fills the cross axis.
  const cross = vertical ? 'width:100%;min-height:0' : 'height:100%;min-width:0';
  for (const child of node.children) {
    const style = `${flexFor(child.size)};${cross}`;
    if (child.panel === undefined) {
      const sub = renderManagedNode(child, panels);
      sub.style.cssText = style;
      box.append(sub);
    } else {
      box.append(renderPanel(child.panel, panels[child.panel], style));
    }
  }
  return box;
}

/** Whether a declared panel mounts QA's own application (a `src` or `url` page, a component). */
function isAppPanel(panel) {
  return panel.kind === 'component' || (panel.kind === 'page' && (panel.src !== undefined || panel.url !== undefined));
}

function renderPanel(panelId, panel, style) {
  const app = isAppPanel(panel);
  const kindClass =
    panel.kind === 'page' || panel.kind === 'component'
      ? panel.id === 'home' || app
        ? 'page-region'
        : 'tools-region'
      : panel.id === '@HOST/chat'
        ? 'chat-region'
        : panel.id === '@HOST/nav-sidebar'
          ? 'nav-region'
          : '';
  const el = h('section', {
    class: `region ${kindClass}`,
    style,
    'data-wippy-kind': 'panel',
    'data-wippy-panel-id': panelId,
    'data-wippy-mount-id': `panel-${panelId}`,
    'data-wippy-label': panelId,
    'data-landmark': `panel-${panelId}`,
  });
  if (panel.kind === 'builtin') {
    el.append(BUILTINS[panel.id]());
  } else if (app) {
    el.append(h('h2', { class: 'panel-title' }, panelId));
    el.append(renderAppPage(panelId, panel));
  } else {
    el.append(h('h2', { class: 'panel-title' }, PAGES[panel.id].title));
    const page = h(
      'div',
      {
        class: 'page',
        'data-wippy-kind': 'page',
        'data-wippy-page-id': panel.id,
        'data-wippy-mount-id': `page-${panel.id}`,
        'data-wippy-label': PAGES[panel.id].title,
        'data-landmark': `page-${panel.id}`,
      },
      renderPageBody(panel.id),
    );
    el.append(page);
  }
  return el;
}

/**
 * A `url` page's route through the gateway's proxy (engine fragment):
 * `qa-url/<layout name>/<panel id>/<the url's file name and query>`, the gateway fetching the url's
 * directory from its server (harness/src/server/qa_url.rs); undefined for a url it does not proxy
 * (anything but http:, as it has no TLS client).
 */
function proxiedUrl(layout, panelId, url) {
  const u = new URL(url);
  if (u.protocol !== 'http:') return undefined;
  const file = u.pathname.slice(u.pathname.lastIndexOf('/') + 1);
  return `qa-url/${layout}/${encodeURIComponent(panelId)}/${file}${u.search}`;
}

/**
 * QA's own application page (`{kind: 'page', src, origin?}` or `{kind: 'page', url}`) or component
 * (`{kind: 'component', module, tag, attributes?, origin?}`, a document the harness generates at
 * `/qa-component/<layout name>/?panel=<id>` that creates `<tag>` from the module) as one artifact,
 * mounted as Wippy mounts a page: engine iframe a cross-origin (out-of-process) iframe of the Child
 * site, or a same-origin one with `origin: 'same'`; engine fragment a Web Fragment through the
 * gateway. The harness serves the layout file's folder at `/qa/<layout name>/`. A `url` page is an
 * iframe of that URL (its own origin) in engine iframe, and in engine fragment a Web Fragment of the
 * gateway's proxy of it (`/fragments/qa-url/...`). Managed puts it in its panel's page
 * ([`renderAppPage`]), compat straight into the page area ([`renderCompatApps`]).
 */
function appArtifact(panelId, panel, style) {
  const layout = encodeURIComponent(state.layoutName);
  const path =
    panel.kind === 'component'
      ? `qa-component/${layout}/?panel=${encodeURIComponent(panelId)}`
      : panel.src !== undefined
        ? `qa/${layout}/${normalizeSrc(panel.src)}`
        : panel.url !== undefined && state.engine === 'fragment'
          ? proxiedUrl(layout, panelId, panel.url)
          : undefined;
  const artifactId = `app-${panelId}`;
  ARTIFACTS[artifactId] = {
    qa: path,
    component: panel.kind === 'component' ? { panelId, module: panel.module, tag: panel.tag } : undefined,
    url: panel.url,
    sameOrigin: panel.origin === 'same',
    label: panelId,
    landmark: `${artifactId}`,
  };
  const artifact = h('div', {
    class: 'artifact',
    'data-wippy-kind': 'artifact',
    'data-wippy-artifact-id': artifactId,
    'data-wippy-mount-id': `artifact-${artifactId}`,
    'data-wippy-label': panelId,
    'data-wippy-package-id': 'qa.apps',
    style,
  });
  artifact.append(createMount(artifactId));
  return artifact;
}

/** Managed: the application's artifact filling its panel's page under the panel's 32 px title. */
function renderAppPage(panelId, panel) {
  return h(
    'div',
    {
      class: 'page',
      style: 'height:calc(100% - 32px)',
      'data-wippy-kind': 'page',
      'data-wippy-page-id': panelId,
      'data-wippy-mount-id': `page-${panelId}`,
      'data-wippy-label': panelId,
    },
    appArtifact(panelId, panel, 'width:100%;height:100%'),
  );
}

/** The panel ids a layout tree places, in its document order (depth first, as managed renders them). */
function placedPanels(node) {
  return node.children.flatMap((c) => (c.panel !== undefined ? [c.panel] : placedPanels(c)));
}

/**
 * Compat with a declaration (`?layout=`): its chrome is fixed, so the declaration's arrangement
 * (sizes, directions) does not apply and its builtins are compat's own nav and chat. What its
 * `default` layout places goes into the page area in that order: a reference page (`id`) renders as
 * compat renders it without a declaration, an application panel is an artifact straight in the page
 * area (no page boundary), under a label with its panel id, as wide as the page area's body, and
 * carrying the landmark `panel-<id>`. The application artifacts share the height the reference
 * sections leave, equally, at least 160 px each (host.css `.compat-apps`).
 */
function renderCompatApps(body, decl) {
  const { layouts, panels } = decl.layout;
  body.classList.add('compat-apps');
  const titles = [];
  for (const panelId of placedPanels(layouts.default)) {
    const panel = panels[panelId];
    if (isAppPanel(panel)) {
      const artifact = appArtifact(panelId, panel, '');
      artifact.setAttribute('data-landmark', `panel-${panelId}`);
      body.append(h('div', { class: 'app-slot' }, h('span', { class: 'section-label' }, panelId), artifact));
      titles.push(panelId);
    } else if (panel.kind === 'page') {
      body.append(...Array.from(renderPageBody(panel.id).children));
      titles.push(PAGES[panel.id].title);
    }
  }
  document.querySelector('#page-area .page-title').textContent = titles.join(' · ');
}

function renderErrors() {
  document.body.replaceChildren(
    h(
      'section',
      { class: 'host-errors', role: 'alert', 'data-landmark': 'host-errors' },
      h('h1', {}, 'Layout declaration rejected'),
      h(
        'ul',
        {},
        ...state.errors.map((e) =>
          h(
            'li',
            { 'data-error-kind': e.kind, 'data-panel-id': e.panelId },
            e.file ? formatProblem(e.file, e) : `${e.kind}: ${e.message}`,
          ),
        ),
      ),
    ),
  );
}

// ---------------------------------------------------------------------------------------------------
// Boot

async function prepareEngine() {
  const engine = params.get('engine') || 'iframe';
  if (!ENGINES.includes(engine)) {
    reportError({
      kind: 'invalid-engine',
      message: `engine must be one of ${ENGINES.join(', ')}, not \`${engine}\`; using iframe`,
    });
  } else {
    state.engine = engine;
  }
  document.documentElement.setAttribute('data-host-engine', state.engine);
  state.childOrigin = childOrigin();
  if (state.engine === 'fragment') {
    const { initializeWebFragments } = await import('/vendor/web-fragments/elements.js');
    initializeWebFragments();
  }
}

function summary() {
  return {
    layout: state.layout,
    engine: state.engine,
    ok:
      !document.documentElement.hasAttribute('data-host-rejected') &&
      !state.errors.some((e) => e.kind === 'component-failed'),
    errors: state.errors.slice(),
    mounts: state.mounts.map(({ artifactId, mountId, engine }) => ({ artifactId, mountId, engine })),
  };
}

async function finish() {
  applyGeometry();
  await Promise.all(state.mounts.map((m) => m.loaded));
  document.documentElement.setAttribute('data-host-state', 'ready');
  resolveReady(summary());
}

/**
 * Loads and checks the declaration `layouts/<name>.json` (`?layout=name`) with declaration.js's
 * rules, in managed at the shell's viewport (compat does not apply the arrangement: [`fitViewport`]).
 * Every problem is reported (`window.__hostErrors`, `FILE:LINE:COL: kind: message` on the page);
 * returns the declaration, or null when the Host must not mount it.
 */
async function loadDeclaration(name) {
  state.layoutName = name;
  const file = `layouts/${name}.json`;
  let decl = null;
  if (!/^[a-z0-9-]+$/.test(name)) {
    reportError({ kind: 'invalid-declaration', message: `layout name \`${name}\` must match [a-z0-9-]+` });
  } else {
    try {
      const res = await fetch(new URL(file, import.meta.url), { cache: 'no-store' });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const { declaration, problems } = checkDeclarationText(await res.text(), { viewport: fitViewport() });
      for (const e of problems) reportError({ ...e, file });
      if (problems.length === 0) decl = declaration;
    } catch (e) {
      reportError({ kind: 'load-failed', message: `${file}: ${e.message}` });
    }
  }
  window.__host.declaration = decl;
  return decl;
}

/** A declaration the Host refuses: nothing is mounted, the problems are the page. */
function rejectDeclaration() {
  document.documentElement.setAttribute('data-host-rejected', '');
  document.documentElement.setAttribute('data-host-state', 'error');
  renderErrors();
  resolveReady(summary());
}

/**
 * compat.html: fixed chrome already in the markup; fill nav, chat and the page area: the reference
 * pages home and tools, or with `?layout=name` what that declaration places ([`renderCompatApps`]).
 */
export async function bootCompat() {
  state.layout = 'compat';
  document.documentElement.setAttribute('data-host-layout', 'compat');
  document.documentElement.setAttribute('data-host-state', 'loading');
  await prepareEngine();
  const name = params.get('layout');
  const decl = name === null ? null : await loadDeclaration(name);
  if (name !== null && !decl) {
    rejectDeclaration();
    return;
  }
  document.getElementById('nav-region').append(renderNav());
  document.getElementById('chat-region').append(renderChat());
  const body = document.querySelector('#page-area .page-body');
  if (decl) renderCompatApps(body, decl);
  else for (const pageId of ['home', 'tools']) body.append(...Array.from(renderPageBody(pageId).children));
  await finish();
}

/** managed.html: load `layouts/<name>.json` (`?layout=name`, default `default`), validate, then build. */
export async function bootManaged() {
  state.layout = 'managed';
  document.documentElement.setAttribute('data-host-layout', 'managed');
  document.documentElement.setAttribute('data-host-state', 'loading');
  await prepareEngine();
  const decl = await loadDeclaration(params.get('layout') || 'default');
  if (!decl) {
    rejectDeclaration();
    return;
  }
  const root = decl.layout.layouts.default;
  const shell = renderManagedNode(root, decl.layout.panels);
  shell.className = `shell${root.direction === 'vertical' ? ' vertical' : ''}`;
  shell.setAttribute('data-landmark', 'managed-shell');
  document.body.replaceChildren(shell);
  await finish();
}
