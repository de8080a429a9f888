// The managed layout declaration's rules (DESIGN.md's shape), with no DOM: the reference Host
// validates with them before mounting (host.js), and the harness CLI runs the same function under
// Node for `--layout-file`, so a file is rejected with the Host's own `{kind, message, panelId?}`
// errors before any browser opens (harness/src/qa/declaration.rs).

/** The Host's builtin panels (host.js BUILTINS renders each; it reports a `config` error if they differ). */
export const BUILTIN_IDS = ['@HOST/nav-sidebar', '@HOST/chat'];
/** The Host's pages (host.js PAGES describes each; it reports a `config` error if they differ). */
export const PAGE_IDS = ['home', 'tools'];

export const SIZE = /^(\d+(?:\.\d+)?)(px|fr)$/;

/**
 * Check a declaration shaped like DESIGN.md's YAML before anything is mounted. Returns a list of
 * `{kind, message, panelId?}`; empty means valid. Kinds: invalid-declaration, missing-layout,
 * invalid-direction, invalid-children, invalid-size, unknown-panel, duplicate-panel, multiple-main,
 * missing-main, invalid-panel, unknown-builtin, unknown-page, duplicate-page.
 */
export function validateDeclaration(decl, layoutName = 'default') {
  const errors = [];
  const err = (kind, message, panelId) =>
    errors.push(panelId === undefined ? { kind, message } : { kind, message, panelId });
  const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (!isObj(decl) || !isObj(decl.layout)) {
    err('invalid-declaration', 'the declaration must be an object with a `layout` object');
    return errors;
  }
  const { layouts, panels } = decl.layout;
  if (!isObj(layouts)) err('invalid-declaration', '`layout.layouts` must be an object');
  if (!isObj(panels)) err('invalid-declaration', '`layout.panels` must be an object');
  if (errors.length) return errors;

  const pagesUsed = new Map();
  for (const [panelId, panel] of Object.entries(panels)) {
    if (!isObj(panel) || typeof panel.id !== 'string') {
      err('invalid-panel', `panel \`${panelId}\` needs {kind, id}`, panelId);
      continue;
    }
    if (panel.kind === 'builtin') {
      if (!BUILTIN_IDS.includes(panel.id))
        err(
          'unknown-builtin',
          `panel \`${panelId}\`: no builtin \`${panel.id}\` (known: ${BUILTIN_IDS.join(', ')})`,
          panelId,
        );
    } else if (panel.kind === 'page') {
      if (!PAGE_IDS.includes(panel.id))
        err('unknown-page', `panel \`${panelId}\`: no page \`${panel.id}\` (known: ${PAGE_IDS.join(', ')})`, panelId);
      else if (pagesUsed.has(panel.id))
        err(
          'duplicate-page',
          `panel \`${panelId}\`: page \`${panel.id}\` is already mounted by panel \`${pagesUsed.get(panel.id)}\``,
          panelId,
        );
      else pagesUsed.set(panel.id, panelId);
    } else {
      err(
        'invalid-panel',
        `panel \`${panelId}\`: kind must be \`builtin\` or \`page\`, not \`${panel.kind}\``,
        panelId,
      );
    }
  }

  const root = layouts[layoutName];
  if (!isObj(root)) {
    err('missing-layout', `no layout \`${layoutName}\` in \`layout.layouts\``);
    return errors;
  }
  const seen = new Set();
  let mains = 0;
  const walk = (node, where) => {
    if (!['horizontal', 'vertical'].includes(node.direction))
      err('invalid-direction', `${where}: direction must be \`horizontal\` or \`vertical\``);
    if (!Array.isArray(node.children) || node.children.length === 0) {
      err('invalid-children', `${where}: children must be a non-empty array`);
      return;
    }
    node.children.forEach((child, i) => {
      const at = `${where}.children[${i}]`;
      if (!isObj(child)) {
        err('invalid-children', `${at}: must be an object`);
        return;
      }
      const panelId = typeof child.panel === 'string' ? child.panel : undefined;
      if (child.size !== undefined && !(typeof child.size === 'string' && SIZE.test(child.size))) {
        err('invalid-size', `${at}: size \`${child.size}\` must look like \`240px\` or \`1fr\``, panelId);
      }
      if (panelId !== undefined) {
        if (!isObj(panels[panelId]))
          err('unknown-panel', `${at}: panel \`${panelId}\` is not declared in \`layout.panels\``, panelId);
        if (seen.has(panelId)) err('duplicate-panel', `${at}: panel \`${panelId}\` is placed twice`, panelId);
        seen.add(panelId);
        if (child.main === true) mains += 1;
      } else if (child.children !== undefined) {
        walk(child, at);
      } else {
        err('invalid-children', `${at}: needs \`panel\` or nested \`direction\`/\`children\``);
      }
    });
  };
  walk(root, `layout.layouts.${layoutName}`);
  if (mains > 1) err('multiple-main', `${mains} children are marked \`main: true\`; at most one may be`);
  if (mains === 0) err('missing-main', 'no child is marked `main: true`');
  return errors;
}
