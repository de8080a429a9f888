// The managed layout declaration's rules (DESIGN.md's shape), with no DOM: the reference Host
// validates with them before mounting (host.js), and the harness CLI runs the same functions under
// Node for `--layout-file` (harness/src/qa/declaration.rs), so a file is refused with the Host's own
// `{kind, message, panelId?, line, column}` problems, printed as `FILE:LINE:COL: kind: message`,
// before any browser opens. Strict: an unknown key is refused with its path and the nearest known
// key, a key given twice is refused, and fixed sizes that cannot fit the viewport are refused naming
// the panels and their sizes. A page panel may name QA's own application: a file or folder beside the
// layout file (`src`) or a URL served elsewhere (`url`); a component panel mounts a web component
// from an ES module (`module`, a file beside the layout file or a URL) as `<tag attributes...>`.

import { JsonSyntaxError, parseJsonSource } from './json-source.js';

/** The Host's builtin panels (host.js BUILTINS renders each; it reports a `config` error if they differ). */
export const BUILTIN_IDS = ['@HOST/nav-sidebar', '@HOST/chat'];
/** The Host's pages (host.js PAGES describes each; it reports a `config` error if they differ). */
export const PAGE_IDS = ['home', 'tools'];

export const SIZE = /^(\d+(?:\.\d+)?)(px|fr)$/;

/** The keys each part of a declaration may have; anything else is an `unknown-key`. */
export const KEYS = {
  top: ['layout'],
  layout: ['layouts', 'panels'],
  root: ['direction', 'children'],
  placed: ['panel', 'size', 'main'],
  split: ['direction', 'children', 'size'],
  builtin: ['kind', 'id'],
  page: ['kind', 'id', 'src', 'url', 'origin', 'routes'],
  component: ['kind', 'module', 'tag', 'attributes', 'origin'],
};

/** The most path prefixes one url page may route (`routes`). */
export const MAX_ROUTES = 16;

/**
 * The paths the harness's own server answers at the Host origin (harness/src/server/mod.rs: the Host,
 * the runtime, the reference pages and their bundles, the gateway, QA's pages, the Session's API): a
 * url page's `routes` may not overlap them.
 */
export const SERVED_PREFIXES = [
  '/host/',
  '/runtime/',
  '/apps/',
  '/corpora/',
  '/vendor/',
  '/node_modules/',
  '/fragments/',
  '/qa/',
  '/qa-url/',
  '/qa-component/',
  '/api/v1/',
];

/** The panel kinds a declaration may name. */
export const PANEL_KINDS = ['builtin', 'page', 'component'];

/** How an application page (`src`) is mounted in engine iframe: cross-origin (default) or same-origin. */
export const ORIGINS = ['cross', 'same'];

/**
 * `path` relative to the layout file's folder as the normalized parts it names: `null` for a path
 * that leaves that folder (absolute, a URL, `..` above it, a backslash).
 */
function insideParts(path) {
  if (typeof path !== 'string' || path === '' || path.includes('\\') || /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(path))
    return null;
  if (path.startsWith('/')) return null;
  const parts = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.length === 0) return null;
      parts.pop();
    } else {
      parts.push(part);
    }
  }
  return parts;
}

/**
 * Where a page panel's `src` leads, relative to the layout file's folder: `null` for a path that
 * leaves that folder (absolute, a URL, `..` above it, a backslash), else the normalized relative path
 * (`app/`, `app/page.html`). A folder (no `.html` at the end) is served with its `index.html`.
 */
export function normalizeSrc(src) {
  const parts = insideParts(src);
  if (parts === null) return null;
  const path = parts.join('/');
  return /\.html?$/i.test(path) ? path : path === '' ? '' : `${path}/`;
}

/**
 * Where a component panel's `module` file leads, relative to the layout file's folder: the
 * normalized relative path (`app/picker.js`), or `null` for a path that leaves the folder or names
 * no file in it (empty, `.`, ending in `/`). A URL module is [`pageUrl`]'s.
 */
export function normalizeModule(module) {
  const parts = insideParts(module);
  if (parts === null || parts.length === 0 || module.endsWith('/')) return null;
  return parts.join('/');
}

/**
 * Whether `name` is a valid custom element name, as the HTML standard defines it since
 * whatwg/html#7991 (what Chromium's `customElements.define` enforces): an ASCII lowercase letter
 * first, no ASCII uppercase letter, a hyphen somewhere, none of ASCII whitespace, NUL, `/` and `>`
 * (a valid element local name), and none of the names SVG and MathML reserved. Returns null when
 * valid, else why not.
 */
export function customElementNameProblem(name) {
  if (typeof name !== 'string' || name === '') return 'must be a non-empty string';
  if (!/^[a-z]/.test(name)) return 'must start with a lowercase ASCII letter';
  const upper = /[A-Z]/.exec(name);
  if (upper) return `may not contain the uppercase letter \`${upper[0]}\``;
  if (!name.includes('-')) return 'must contain a hyphen';
  const bad = /[\t\n\f\r \0/>]/.exec(name);
  if (bad)
    return `may not contain U+${bad[0].codePointAt(0).toString(16).toUpperCase().padStart(4, '0')} (whitespace, NUL, / or >)`;
  if (RESERVED_ELEMENT_NAMES.includes(name)) return 'is reserved by SVG and MathML';
  return null;
}

/** The hyphenated names SVG and MathML already use, which no custom element may take. */
export const RESERVED_ELEMENT_NAMES = [
  'annotation-xml',
  'color-profile',
  'font-face',
  'font-face-src',
  'font-face-uri',
  'font-face-format',
  'font-face-name',
  'missing-glyph',
];

/**
 * An attribute name a component panel may set: lowercase (an HTML document's `setAttribute`
 * lowercases names, so `Label` and `label` would be one attribute), an XML name start (`a`-`z`,
 * `_`, `:`) then `a`-`z`, `0`-`9`, `-`, `_`, `.`, `:`.
 */
export const ATTRIBUTE_NAME = /^[a-z_:][a-z0-9_.:-]*$/;

/**
 * A page panel's `url` (an application served elsewhere, a dev server) as a URL object: only an
 * absolute `http:` or `https:` URL without credentials; `null` for anything else.
 */
export function pageUrl(url) {
  if (typeof url !== 'string') return null;
  let u;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (!['http:', 'https:'].includes(u.protocol) || u.username || u.password) return null;
  return u;
}

/** Levenshtein distance (small strings: keys). */
function distance(a, b) {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length];
}

/** The known key nearest to `key` (the first of the nearest, in `known`'s order). */
export function nearestKey(key, known) {
  let best = known[0];
  for (const k of known) if (distance(key, k) < distance(key, best)) best = k;
  return best;
}

/** `layout.layouts.default.children[1].size` for `['layout', 'layouts', 'default', 'children', 1, 'size']`. */
export function showPath(path) {
  return path.map((p, n) => (typeof p === 'number' ? `[${p}]` : n === 0 ? p : `.${p}`)).join('');
}

/**
 * Check a declaration shaped like DESIGN.md's YAML before anything is mounted. Returns a list of
 * `{kind, message, panelId?, path}` (`path` the member path the problem is at); empty means valid.
 * Kinds: invalid-declaration, unknown-key, missing-layout, invalid-direction, invalid-children,
 * invalid-size, invalid-main, unknown-panel, duplicate-panel, multiple-main, missing-main,
 * invalid-panel, unknown-builtin, unknown-page, duplicate-page, src-outside, invalid-origin, invalid-url,
 * invalid-module, invalid-tag, invalid-attributes, invalid-routes, does-not-fit.
 * A page panel is a reference page (`{kind: 'page', id}`), the application's own file or folder
 * beside the layout file (`{kind: 'page', src, origin?}`) or an application served elsewhere
 * (`{kind: 'page', url, routes?}`, http or https; [`checkRoutes`]). A component panel mounts `<tag>` from an ES module
 * (`{kind: 'component', module, tag, attributes?, origin?}`, [`checkComponent`]).
 * With `viewport` (`{width, height}`, CSS px) the fixed sizes of every layout must fit it.
 */
export function validateDeclaration(decl, layoutName = 'default', { viewport } = {}) {
  const errors = [];
  const err = (kind, path, message, panelId) =>
    errors.push(panelId === undefined ? { kind, message, path } : { kind, message, panelId, path });
  const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
  const onlyKeys = (obj, path, known) => {
    for (const key of Object.keys(obj)) {
      if (known.includes(key)) continue;
      const at = [...path, key];
      err(
        'unknown-key',
        at,
        `\`${showPath(at)}\` is not a known key; nearest known: \`${nearestKey(key, known)}\` (known here: ${known.join(', ')})`,
      );
    }
  };
  if (!isObj(decl) || !isObj(decl.layout)) {
    err('invalid-declaration', ['layout'], 'the declaration must be an object with a `layout` object');
    return errors;
  }
  onlyKeys(decl, [], KEYS.top);
  onlyKeys(decl.layout, ['layout'], KEYS.layout);
  const { layouts, panels } = decl.layout;
  if (!isObj(layouts)) err('invalid-declaration', ['layout', 'layouts'], '`layout.layouts` must be an object');
  if (!isObj(panels)) err('invalid-declaration', ['layout', 'panels'], '`layout.panels` must be an object');
  if (!isObj(layouts) || !isObj(panels)) return errors;

  const pagesUsed = new Map();
  const routed = [];
  for (const [panelId, panel] of Object.entries(panels)) {
    const at = ['layout', 'panels', panelId];
    if (!isObj(panel) || !PANEL_KINDS.includes(panel.kind)) {
      err(
        'invalid-panel',
        isObj(panel) ? [...at, 'kind'] : at,
        `panel \`${panelId}\`: kind must be \`builtin\`, \`page\` or \`component\`, not \`${isObj(panel) ? panel.kind : panel}\``,
        panelId,
      );
      continue;
    }
    onlyKeys(panel, at, KEYS[panel.kind]);
    if (panel.kind === 'page' && panel.routes !== undefined) {
      if (panel.url === undefined)
        err(
          'invalid-routes',
          [...at, 'routes'],
          `panel \`${panelId}\`: routes applies only to a \`url\` page (the paths its server answers at the Host's origin)`,
          panelId,
        );
      else checkRoutes(panelId, panel.routes, [...at, 'routes'], routed, err);
    }
    if (panel.kind === 'component') {
      checkComponent(panelId, panel, at, err);
    } else if (panel.kind === 'builtin') {
      if (!BUILTIN_IDS.includes(panel.id))
        err(
          'unknown-builtin',
          [...at, 'id'],
          `panel \`${panelId}\`: no builtin \`${panel.id}\` (known: ${BUILTIN_IDS.join(', ')})`,
          panelId,
        );
    } else if ([panel.id, panel.src, panel.url].filter((v) => v !== undefined).length !== 1) {
      err(
        'invalid-panel',
        at,
        `panel \`${panelId}\`: a page names a reference page (\`id\`), the application's own file or folder (\`src\`) or its URL (\`url\`), exactly one`,
        panelId,
      );
    } else if (panel.url !== undefined) {
      if (pageUrl(panel.url) === null)
        err(
          'invalid-url',
          [...at, 'url'],
          `panel \`${panelId}\`: url \`${panel.url}\` must be an absolute http: or https: URL without credentials`,
          panelId,
        );
      if (panel.origin !== undefined)
        err(
          'invalid-origin',
          [...at, 'origin'],
          `panel \`${panelId}\`: origin applies only to a \`src\` page (a \`url\` page has its URL's origin)`,
          panelId,
        );
    } else if (panel.src !== undefined) {
      if (normalizeSrc(panel.src) === null)
        err(
          'src-outside',
          [...at, 'src'],
          `panel \`${panelId}\`: src \`${panel.src}\` must be a path inside the layout file's folder`,
          panelId,
        );
      checkOrigin(panelId, panel, at, err);
    } else if (panel.origin !== undefined) {
      err('invalid-origin', [...at, 'origin'], `panel \`${panelId}\`: origin applies only to a \`src\` page`, panelId);
    } else if (!PAGE_IDS.includes(panel.id))
      err(
        'unknown-page',
        [...at, 'id'],
        `panel \`${panelId}\`: no page \`${panel.id}\` (known: ${PAGE_IDS.join(', ')})`,
        panelId,
      );
    else if (pagesUsed.has(panel.id))
      err(
        'duplicate-page',
        [...at, 'id'],
        `panel \`${panelId}\`: page \`${panel.id}\` is already mounted by panel \`${pagesUsed.get(panel.id)}\``,
        panelId,
      );
    else pagesUsed.set(panel.id, panelId);
  }

  if (!isObj(layouts[layoutName])) {
    err('missing-layout', ['layout', 'layouts'], `no layout \`${layoutName}\` in \`layout.layouts\``);
  }
  for (const [name, root] of Object.entries(layouts)) {
    const before = errors.length;
    checkLayout(root, ['layout', 'layouts', name], panels, err, onlyKeys);
    if (viewport && errors.length === before) checkFit(root, ['layout', 'layouts', name], viewport, err);
  }
  return errors;
}

/**
 * A url page's `routes` (as a Web Fragment's `routePatterns`): path prefixes at the Host's origin the
 * gateway proxies to the url's server at the same path. A non-empty array of at most [`MAX_ROUTES`]
 * strings, each starting and ending with `/`, without `..`, `.`, `//`, `\\`, `%`, `?` or `#`, never
 * `/` nor a prefix overlapping one the harness serves ([`SERVED_PREFIXES`]) or one routed before
 * (`routed`: `{prefix, panelId}` of the panels checked so far, this one's own added).
 */
function checkRoutes(panelId, routes, at, routed, err) {
  if (!Array.isArray(routes) || routes.length === 0 || routes.length > MAX_ROUTES) {
    err(
      'invalid-routes',
      at,
      `panel \`${panelId}\`: routes must be a non-empty array of at most ${MAX_ROUTES} path prefixes (\`["/assets/"]\`)`,
      panelId,
    );
    return;
  }
  const overlaps = (a, b) => a.startsWith(b) || b.startsWith(a);
  routes.forEach((prefix, i) => {
    const bad = (why) => err('invalid-routes', [...at, i], `panel \`${panelId}\`: route \`${prefix}\` ${why}`, panelId);
    if (typeof prefix !== 'string' || !prefix.startsWith('/') || !prefix.endsWith('/') || prefix === '/')
      return bad('must be a path prefix starting and ending with `/`, not `/` itself');
    if (/[?#%\\]/.test(prefix)) return bad('must not contain `?`, `#`, `%` or `\\`');
    const segments = prefix.slice(1, -1).split('/');
    if (segments.some((s) => s === '' || s === '.' || s === '..'))
      return bad('must not contain an empty (`//`), `.` or `..` segment');
    const served = SERVED_PREFIXES.find((p) => overlaps(prefix, p));
    if (served) return bad(`overlaps \`${served}\`, which the harness serves itself`);
    const other = routed.find((r) => overlaps(prefix, r.prefix));
    if (other) return bad(`overlaps route \`${other.prefix}\` of panel \`${other.panelId}\``);
    routed.push({ prefix, panelId });
  });
}

/**
 * A component panel (`{kind: 'component', module, tag, attributes?, origin?}`): `module` a file
 * inside the layout file's folder or an absolute http(s) URL, `tag` a valid custom element name,
 * `attributes` an object of string values with lowercase attribute names, `origin` as a `src` page's.
 */
function checkComponent(panelId, panel, at, err) {
  if (typeof panel.module !== 'string' || panel.module === '')
    err(
      'invalid-module',
      panel.module === undefined ? at : [...at, 'module'],
      `panel \`${panelId}\`: a component names its ES module (\`module\`: a path beside the layout file or an http(s) URL)`,
      panelId,
    );
  else if (
    /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(panel.module)
      ? pageUrl(panel.module) === null
      : normalizeModule(panel.module) === null
  )
    err(
      'src-outside',
      [...at, 'module'],
      `panel \`${panelId}\`: module \`${panel.module}\` must be a file inside the layout file's folder or an absolute http: or https: URL without credentials`,
      panelId,
    );
  const why = customElementNameProblem(panel.tag);
  if (why !== null)
    err(
      'invalid-tag',
      panel.tag === undefined ? at : [...at, 'tag'],
      panel.tag === undefined
        ? `panel \`${panelId}\`: a component names the custom element it mounts (\`tag\`)`
        : `panel \`${panelId}\`: tag \`${panel.tag}\` is not a valid custom element name: it ${why}`,
      panelId,
    );
  if (panel.attributes !== undefined) {
    const attrs = panel.attributes;
    if (attrs === null || typeof attrs !== 'object' || Array.isArray(attrs))
      err('invalid-attributes', [...at, 'attributes'], `panel \`${panelId}\`: attributes must be an object`, panelId);
    else
      for (const [name, value] of Object.entries(attrs)) {
        if (!ATTRIBUTE_NAME.test(name))
          err(
            'invalid-attributes',
            [...at, 'attributes', name],
            `panel \`${panelId}\`: \`${name}\` is not an attribute name a component may be given (lowercase: a-z, _ or : first, then a-z, 0-9, -, _, ., :)`,
            panelId,
          );
        else if (typeof value !== 'string')
          err(
            'invalid-attributes',
            [...at, 'attributes', name],
            `panel \`${panelId}\`: attribute \`${name}\` must be a string, not ${value === null ? 'null' : typeof value}`,
            panelId,
          );
      }
  }
  checkOrigin(panelId, panel, at, err);
}

/** How a `src` page or a component is mounted with engine iframe (`origin`): one of [`ORIGINS`]. */
function checkOrigin(panelId, panel, at, err) {
  if (panel.origin !== undefined && !ORIGINS.includes(panel.origin))
    err(
      'invalid-origin',
      [...at, 'origin'],
      `panel \`${panelId}\`: origin must be one of ${ORIGINS.join(', ')}, not \`${panel.origin}\``,
      panelId,
    );
}

/** One layout tree: directions, children, sizes, placed panels, exactly one `main`. */
function checkLayout(root, rootPath, panels, err, onlyKeys) {
  const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
  const where = showPath(rootPath);
  if (!isObj(root)) {
    err('invalid-children', rootPath, `${where}: must be an object with \`direction\` and \`children\``);
    return;
  }
  onlyKeys(root, rootPath, KEYS.root);
  const seen = new Set();
  let mains = 0;
  const walk = (node, path) => {
    const at = showPath(path);
    if (!['horizontal', 'vertical'].includes(node.direction))
      err('invalid-direction', [...path, 'direction'], `${at}: direction must be \`horizontal\` or \`vertical\``);
    if (!Array.isArray(node.children) || node.children.length === 0) {
      err('invalid-children', [...path, 'children'], `${at}: children must be a non-empty array`);
      return;
    }
    node.children.forEach((child, i) => {
      const childPath = [...path, 'children', i];
      const cat = showPath(childPath);
      if (!isObj(child)) {
        err('invalid-children', childPath, `${cat}: must be an object`);
        return;
      }
      const placed = child.panel !== undefined;
      const split = !placed && (child.children !== undefined || child.direction !== undefined);
      onlyKeys(
        child,
        childPath,
        placed ? KEYS.placed : split ? KEYS.split : [...new Set([...KEYS.placed, ...KEYS.split])],
      );
      const panelId = typeof child.panel === 'string' ? child.panel : undefined;
      if (child.size !== undefined && !(typeof child.size === 'string' && SIZE.test(child.size))) {
        err(
          'invalid-size',
          [...childPath, 'size'],
          `${cat}: size \`${child.size}\` must look like \`240px\` or \`1fr\``,
          panelId,
        );
      }
      if (child.main !== undefined && typeof child.main !== 'boolean') {
        err('invalid-main', [...childPath, 'main'], `${cat}: main must be true or false`, panelId);
      }
      if (panelId !== undefined) {
        if (!isObj(panels[panelId]))
          err(
            'unknown-panel',
            [...childPath, 'panel'],
            `${cat}: panel \`${panelId}\` is not declared in \`layout.panels\``,
            panelId,
          );
        if (seen.has(panelId))
          err('duplicate-panel', [...childPath, 'panel'], `${cat}: panel \`${panelId}\` is placed twice`, panelId);
        seen.add(panelId);
        if (child.main === true) mains += 1;
      } else if (placed) {
        err('invalid-children', [...childPath, 'panel'], `${cat}: panel must be a panel id (a string)`);
      } else if (split) {
        walk(child, childPath);
      } else {
        err('invalid-children', childPath, `${cat}: needs \`panel\` or nested \`direction\`/\`children\``);
      }
    });
  };
  walk(root, rootPath);
  if (mains > 1)
    err('multiple-main', rootPath, `${where}: ${mains} children are marked \`main: true\`; at most one may be`);
  if (mains === 0) err('missing-main', rootPath, `${where}: no child is marked \`main: true\``);
}

/**
 * The boxes a valid layout tree gets in a `width` x `height` CSS px shell, as host.css lays them out:
 * px children are fixed (`flex: 0 0 Npx`), fr children share what is left (`flex: N 1 0px`,
 * `min-width: 0`), every child fills the cross axis. `[{panel, x, y, width, height}]`, document order.
 */
export function layoutBoxes(root, { width, height }) {
  const out = [];
  const place = (node, x, y, w, h) => {
    const horizontal = node.direction === 'horizontal';
    const along = horizontal ? w : h;
    const sizes = node.children.map((c) => SIZE.exec(c.size || '1fr'));
    const fixed = sizes.reduce((sum, m) => sum + (m[2] === 'px' ? Number(m[1]) : 0), 0);
    const frs = sizes.reduce((sum, m) => sum + (m[2] === 'fr' ? Number(m[1]) : 0), 0);
    const free = Math.max(0, along - fixed);
    let at = horizontal ? x : y;
    node.children.forEach((child, i) => {
      const m = sizes[i];
      const size = m[2] === 'px' ? Number(m[1]) : frs > 0 ? (free * Number(m[1])) / frs : 0;
      const [cx, cy, cw, ch] = horizontal ? [at, y, size, h] : [x, at, w, size];
      if (child.panel !== undefined) out.push({ panel: child.panel, x: cx, y: cy, width: cw, height: ch });
      else place(child, cx, cy, cw, ch);
      at += size;
    });
  };
  place(root, 0, 0, width, height);
  return out;
}

/** Every split's fixed (px) children must fit the length the split gets along its direction. */
function checkFit(root, rootPath, viewport, err) {
  const visit = (node, path, w, h) => {
    const horizontal = node.direction === 'horizontal';
    const along = horizontal ? w : h;
    const fixed = [];
    let sum = 0;
    let frs = 0;
    node.children.forEach((child, i) => {
      const m = SIZE.exec(child.size || '1fr');
      if (m[2] === 'px') {
        sum += Number(m[1]);
        fixed.push(`${child.panel ?? showPath([...path, 'children', i])} ${child.size}`);
      } else {
        frs += Number(m[1]);
      }
    });
    if (sum > along) {
      const side = horizontal ? 'width' : 'height';
      const of =
        path === rootPath
          ? `the ${along}px ${side} of the ${viewport.width}x${viewport.height} CSS px viewport`
          : `its ${along}px ${side}`;
      const panels = node.children.filter((c) => c.panel !== undefined && SIZE.exec(c.size || '1fr')[2] === 'px');
      err(
        'does-not-fit',
        path,
        `${showPath(path)}: fixed sizes ${fixed.join(' + ')} = ${sum}px do not fit in ${of}`,
        panels.length === 1 ? panels[0].panel : undefined,
      );
      return;
    }
    const free = along - sum;
    node.children.forEach((child, i) => {
      if (child.panel !== undefined) return;
      const m = SIZE.exec(child.size || '1fr');
      const size = m[2] === 'px' ? Number(m[1]) : frs > 0 ? (free * Number(m[1])) / frs : 0;
      const [cw, ch] = horizontal ? [size, h] : [w, size];
      visit(child, [...path, 'children', i], cw, ch);
    });
  };
  visit(root, rootPath, viewport.width, viewport.height);
}

/**
 * Checks a declaration file's text: strict JSON (`invalid-json` at its line and column, a member
 * given twice is a `duplicate-key`), then [`validateDeclaration`]. Every problem carries the `line`
 * and `column` it is at. Returns `{declaration, problems}` (`declaration` null when not JSON).
 */
export function checkDeclarationText(text, { viewport, layoutName = 'default', checkSrc, checkUrl, checkModule } = {}) {
  let source;
  try {
    source = parseJsonSource(text);
  } catch (e) {
    if (!(e instanceof JsonSyntaxError)) throw e;
    return {
      declaration: null,
      problems: [{ kind: 'invalid-json', message: e.message, line: e.line, column: e.column }],
    };
  }
  const problems = source.duplicates.map((d) => ({
    kind: 'duplicate-key',
    message: `\`${showPath(d.path)}\` is given twice`,
    line: d.line,
    column: d.column,
  }));
  const rules = validateDeclaration(source.value, layoutName, { viewport });
  // What only the side holding the files can check (the CLI, `checkSrc`): does each `src` lead to a
  // page inside the layout file's folder. `checkSrc(src)` returns null or `{kind, message}`.
  // Likewise `checkUrl(url)`: does each `url` page and URL module answer (the CLI asks before a
  // browser starts), and `checkModule(path, raw)`: is each module path a file inside the folder.
  if ((checkSrc || checkUrl || checkModule) && rules.length === 0) {
    const side = (panelId, key, bad) =>
      bad &&
      rules.push({
        kind: bad.kind,
        message: `panel \`${panelId}\`: ${bad.message}`,
        panelId,
        path: ['layout', 'panels', panelId, key],
      });
    for (const [panelId, panel] of Object.entries(source.value.layout.panels)) {
      if (panel.kind === 'component') {
        const path = normalizeModule(panel.module);
        if (path === null && checkUrl) side(panelId, 'module', checkUrl(panel.module));
        if (path !== null && checkModule) side(panelId, 'module', checkModule(path, panel.module));
      }
      if (panel.kind !== 'page') continue;
      if (panel.url !== undefined && checkUrl) side(panelId, 'url', checkUrl(panel.url));
      if (panel.src !== undefined && checkSrc) side(panelId, 'src', checkSrc(normalizeSrc(panel.src), panel.src));
    }
  }
  for (const { path, ...p } of rules) {
    problems.push({ ...p, ...source.at(path, { key: p.kind === 'unknown-key' }) });
  }
  // In the file's order, as a compiler lists them (stable: same place keeps the rules' order).
  problems.sort((a, b) => a.line - b.line || a.column - b.column);
  return { declaration: source.value, problems };
}

/** The one form every problem is shown in, by the Host and the CLI alike: `FILE:LINE:COL: kind: message`. */
export function formatProblem(file, p) {
  return `${file}:${p.line ?? 1}:${p.column ?? 1}: ${p.kind}: ${p.message}`;
}
