//! The inspection API against Chromium's own engines (issue 19), shared by the `inspection_*` tests
//! and the verify rows: CSS search against native `querySelectorAll` on the same scope (and the
//! privacy rules against native qSA on a copy with the rule applied), semantic search against the
//! accessibility tree, geometry and hitTest against the box model and `DOM.getNodeForLocation`, and
//! the limits (matches, tree size and depth, continuations, subscriptions) at their boundaries.
//!
//! The trees are put into each realm kind of a cell (the Host document, the same-origin srcdoc, an
//! out-of-process iframe or a Web Fragment) under an open and a closed shadow root by page script in
//! that realm; a runtime node is joined to a native element by the realm's own node id of it (the
//! `__wippyAttentionRuntime` test hook, the fragment realm's main realm for a fragment).

use std::collections::BTreeSet;

use anyhow::{anyhow, bail, ensure, Context};
use serde_json::{json, Value};

use crate::attention::inspect::{NodeKind, NodesData};
use crate::attention::{NodeRef, Outcome, Reported, Revisions};
use crate::host::{
    Engine, Frame, HitQuery, HostOptions, InspectOptions, Inspected, Realm, SemanticQuery, Subscription,
};
use crate::report::text;
use crate::Host;

/// The CSS differential's tree (nothing sensitive in it).
pub const CSS_CORPUS: &str = include_str!("../../../fixtures/inspection/css-corpus.html");
/// The CSS differential's selectors, one a line.
const SELECTORS: &str = include_str!("../../../fixtures/inspection/selectors.txt");
/// The privacy rules' tree: excluded, sensitive, redacted and editable nodes beside safe ones.
pub const PRIVACY_CORPUS: &str = include_str!("../../../fixtures/inspection/privacy-corpus.html");

/// Selectors matched on a realm's Document scope (`:root` and `:scope` there, and a few that
/// reach the mounted trees' hosts without touching the realm's own privacy probes).
pub const DOCUMENT_SELECTORS: [&str; 12] = [
    ":root",
    ":scope",
    ":scope > body",
    ":root > head",
    ":scope > *",
    "html",
    "head > title",
    "[data-insp-host]",
    ":root [data-insp-host]",
    "[data-insp-host]:last-child",
    ":is(:root, :scope) > :is(head, body)",
    ":not(:root):not(:scope) > head",
];

/// The corpus selectors (comments and blank lines left out).
pub fn selectors() -> Vec<&'static str> {
    SELECTORS.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).collect()
}

/// A realm kind of a cell and where calls into it are made.
#[derive(Debug, Clone)]
pub struct RealmKind {
    /// `host`, `srcdoc`, `oopif` or `fragment` (or `one-document`: the top realm of a one-document page).
    pub kind: &'static str,
    pub realm: Realm,
}

/// The realm kinds a Host of `engine` has: the Host document and the same-origin srcdoc in both,
/// the right leaf as an out-of-process iframe (engine iframe) or a Web Fragment (engine fragment).
pub fn realm_kinds(engine: Engine) -> Vec<RealmKind> {
    let mut v = vec![
        RealmKind { kind: "host", realm: Realm::Top },
        RealmKind { kind: "srcdoc", realm: Realm::Frame(Frame::UrlContains("about:srcdoc".into())) },
    ];
    v.push(match engine {
        Engine::Iframe => {
            RealmKind { kind: "oopif", realm: Realm::Frame(Frame::UrlContains("leaf.html?side=right".into())) }
        }
        Engine::Fragment => RealmKind { kind: "fragment", realm: Realm::Frame(Frame::Name("wf:leaf-right".into())) },
    });
    v
}

/// Page script: the node id the runtime gives `n` (the main realm's for a fragment realm's node).
pub(crate) const ID_OF: &str = "((n) => {
    const R = window.__wippyAttentionRuntime;
    const M = R && R.role === 'fragment-realm' ? window.parent.__wippyAttentionRuntime : R;
    if (!M) throw new Error('no __wippyAttentionRuntime in this realm');
    if (typeof M.nodeIdOf === 'function') return M.nodeIdOf(n);
    return n && n.nodeType === 1 ? 't-' + M.mountIdOf(n) : null;
})";

/// A tree mounted in a realm: the key its root is kept under (`window.__inspRoots[key]`), its
/// shadow host's node id, and the NodeRef of its shadow root (the CSS scope).
#[derive(Debug, Clone)]
pub struct Mounted {
    pub key: String,
    pub realm: Realm,
    pub host_node_id: String,
    pub scope: NodeRef,
}

/// How a mounted tree's shadow host is laid out: out of the way, or visible at the realm's top left.
#[derive(Debug, Clone, Copy)]
pub enum Placement {
    Tiny,
    Visible,
}

/// Puts `markup` into a new shadow root (`mode` open or closed) on a new `<div data-insp-host=key>` in
/// `realm`'s document, then finds the shadow root's NodeRef through the runtime (`find({node_id})`
/// of the host, `getTree(host, depth 1)`). Elements with `data-pv` get `key-` prefixed to it, so
/// ground truth can find them by a unique attribute.
pub async fn mount(
    host: &Host,
    realm: &Realm,
    key: &str,
    markup: &str,
    mode: &str,
    placement: Placement,
) -> anyhow::Result<Mounted> {
    let style = match placement {
        Placement::Tiny => "position:absolute;left:0;top:0;width:1px;height:1px;overflow:hidden;",
        Placement::Visible => {
            "position:absolute;left:0;top:0;width:230px;height:116px;overflow:hidden;background:#fff;z-index:50;"
        }
    };
    let expr = format!(
        "(() => {{
            const idOf = {ID_OF};
            const doc = document;
            const parent = doc.getElementById('leaf-app') || doc.body || doc.documentElement;
            const el = doc.createElement('div');
            el.setAttribute('data-insp-host', {key});
            el.style.cssText = {style};
            parent.appendChild(el);
            const root = el.attachShadow({{ mode: {mode} }});
            root.innerHTML = {markup};
            for (const e of root.querySelectorAll('[data-pv]')) e.setAttribute('data-pv', {key} + '-' + e.getAttribute('data-pv'));
            (window.__inspRoots = window.__inspRoots || {{}})[{key}] = root;
            return idOf(el);
        }})()",
        key = json!(key),
        style = json!(style),
        mode = json!(mode),
        markup = json!(markup),
    );
    let id = host.eval_in_frame(&frame_of(realm), &expr).await?;
    let host_node_id = id.as_str().ok_or_else(|| anyhow!("no node id for the shadow host of {key}: {id}"))?.to_string();
    let scope =
        shadow_root_of(host, realm, &host_node_id).await.with_context(|| format!("the shadow root of {key}"))?;
    Ok(Mounted { key: key.to_string(), realm: realm.clone(), host_node_id, scope })
}

pub(crate) fn frame_of(realm: &Realm) -> Frame {
    match realm {
        Realm::Top => Frame::Top,
        Realm::Frame(f) => f.clone(),
    }
}

/// The NodeRef of the shadow root hosted by the element whose node id is `host_node_id`.
pub async fn shadow_root_of(host: &Host, realm: &Realm, host_node_id: &str) -> anyhow::Result<NodeRef> {
    let found = host.find_node_id(realm, host_node_id, &InspectOptions::default()).await?;
    let el = found
        .data
        .nodes
        .first()
        .ok_or_else(|| anyhow!("find({{node_id: {host_node_id}}}) found nothing: {}", found.json()))?
        .node_ref
        .clone();
    let tree = host.tree(realm, Some(&el), &InspectOptions::default().depth(1)).await?;
    tree.data
        .nodes
        .iter()
        .find(|n| n.kind == Some(NodeKind::ShadowRoot) && n.parent.as_ref() == Some(&el))
        .map(|n| n.node_ref.clone())
        .ok_or_else(|| anyhow!("getTree(host, depth 1) has no shadow-root child of {host_node_id}: {}", tree.json()))
}

/// The realm's Document NodeRef (`getTree()`'s root).
pub async fn document_of(host: &Host, realm: &Realm) -> anyhow::Result<NodeRef> {
    let tree = host.tree(realm, None, &InspectOptions::default().depth(0)).await?;
    tree.data
        .root
        .clone()
        .or_else(|| tree.data.nodes.iter().find(|n| n.kind == Some(NodeKind::Document)).map(|n| n.node_ref.clone()))
        .ok_or_else(|| anyhow!("getTree() named no document root: {}", tree.json()))
}

/// One selector's two answers: the runtime's pages (continuations followed) and native qSA's node
/// ids (or the exception native qSA threw).
#[derive(Debug)]
pub struct CssPair {
    pub selector: String,
    pub native: Result<Vec<String>, String>,
    pub pages: Vec<Inspected<NodesData>>,
}

impl CssPair {
    /// The runtime's matches over every page, in order.
    pub fn runtime_ids(&self) -> Vec<String> {
        self.pages.iter().flat_map(|p| p.data.nodes.iter().map(|n| n.node_id().to_string())).collect()
    }
}

/// Matches every selector of `selectors` with `find({css, scope})` (following continuations) and
/// with native `querySelectorAll` on the root kept under `native_root` (page script returning the
/// root), in one page round trip.
pub async fn css_pairs(
    host: &Host,
    realm: &Realm,
    scope: &NodeRef,
    native_root: &str,
    selectors: &[&str],
) -> anyhow::Result<Vec<CssPair>> {
    let expr = format!(
        "(async () => {{
            const idOf = {ID_OF};
            const a = window.$W.attention;
            const root = {native_root};
            const out = [];
            for (const sel of {sels}) {{
                let native = null, error = null;
                try {{ native = Array.from(root.querySelectorAll(sel), idOf); }} catch (e) {{ error = String(e && e.name); }}
                const pages = [];
                let cont = null;
                do {{
                    const r = await a.find({{ css: sel, scope: {scope} }}, cont ? {{ continuation: cont }} : {{}});
                    pages.push(r);
                    cont = r && r.continuation;
                }} while (cont && pages.length < 64);
                out.push({{ sel, native, error, pages }});
            }}
            return out;
        }})()",
        sels = json!(selectors),
        scope = json!(scope),
    );
    let got = host.eval_in_frame(&frame_of(realm), &expr).await?;
    let arr = got.as_array().ok_or_else(|| anyhow!("css batch returned {got}"))?;
    let mut out = Vec::new();
    for item in arr {
        let selector = item["sel"].as_str().unwrap_or_default().to_string();
        let native = match item["native"].as_array() {
            Some(ids) => Ok(ids.iter().map(|v| v.as_str().unwrap_or("<no id>").to_string()).collect()),
            None => Err(item["error"].as_str().unwrap_or("?").to_string()),
        };
        let mut pages = Vec::new();
        for p in item["pages"].as_array().cloned().unwrap_or_default() {
            let r: Inspected<NodesData> = Reported::parse_inspection(p).map_err(|e| {
                anyhow!("find({{css: {}}}) is not a strict InspectionResult: {e}", text::quote(&selector))
            })?;
            pages.push(r);
        }
        out.push(CssPair { selector, native, pages });
    }
    Ok(out)
}

/// Every disagreement between the runtime and native qSA, one line each: a selector native qSA
/// refuses must be `invalid-request`; any other must give exactly native's elements, in document order.
pub fn css_disagreements(pairs: &[CssPair]) -> Vec<String> {
    let mut bad = Vec::new();
    for p in pairs {
        match &p.native {
            Err(e) => {
                if !p.pages.iter().all(|r| r.is_invalid_request()) {
                    bad.push(format!(
                        "{}: native qSA throws {e}, the runtime answered {}",
                        text::quote(&p.selector),
                        text::list(&outcomes(p))
                    ));
                }
            }
            Ok(native) => {
                let runtime = p.runtime_ids();
                let last = p.pages.last().map(|r| r.outcome);
                if !matches!(last, Some(Outcome::Ok | Outcome::Empty)) {
                    bad.push(format!(
                        "{}: outcome {}, omitted {}",
                        text::quote(&p.selector),
                        text::list(&outcomes(p)),
                        text::list(&reasons(p))
                    ));
                } else if &runtime != native {
                    let (n, r): (BTreeSet<_>, BTreeSet<_>) = (native.iter().collect(), runtime.iter().collect());
                    let missed: Vec<_> = n.difference(&r).collect();
                    let extra: Vec<_> = r.difference(&n).collect();
                    bad.push(format!(
                        "{}: native {} nodes, runtime {} (missed {}, extra {}{})",
                        text::quote(&p.selector),
                        native.len(),
                        runtime.len(),
                        text::list(&missed),
                        text::list(&extra),
                        if missed.is_empty() && extra.is_empty() { ", order differs" } else { "" }
                    ));
                }
            }
        }
    }
    bad
}

fn outcomes(p: &CssPair) -> Vec<&'static str> {
    p.pages.iter().map(|r| r.outcome.as_str()).collect()
}

fn reasons(p: &CssPair) -> Vec<String> {
    p.pages.iter().flat_map(|r| r.reasons().into_iter().map(str::to_string)).collect()
}

/// The CSS differential in one realm: the corpus under an open and a closed shadow root, every
/// selector on both scopes, the document selectors on the realm's Document (not in a fragment
/// realm, whose document is the Host's). Returns how many selector x scope pairs agreed.
pub async fn css_differential_in(host: &Host, rk: &RealmKind) -> anyhow::Result<usize> {
    let sels = selectors();
    ensure!(sels.len() >= 300, "the corpus has {} selectors, fewer than 300", sels.len());
    let mut compared = 0;
    let mut bad = Vec::new();
    for mode in ["open", "closed"] {
        let key = format!("css-{}-{mode}", rk.kind);
        let m = mount(host, &rk.realm, &key, CSS_CORPUS, mode, Placement::Tiny).await?;
        let pairs = css_pairs(host, &rk.realm, &m.scope, &format!("window.__inspRoots[{}]", json!(key)), &sels).await?;
        compared += pairs.len();
        bad.extend(css_disagreements(&pairs).into_iter().map(|b| format!("{} {mode} root: {b}", rk.kind)));
    }
    if rk.kind != "fragment" {
        let doc = document_of(host, &rk.realm).await?;
        let pairs = css_pairs(host, &rk.realm, &doc, "document", &DOCUMENT_SELECTORS).await?;
        compared += pairs.len();
        bad.extend(css_disagreements(&pairs).into_iter().map(|b| format!("{} document: {b}", rk.kind)));
    }
    ensure!(bad.is_empty(), "{} of {compared} disagree with native querySelectorAll:\n{}", bad.len(), head(&bad, 25));
    Ok(compared)
}

/// [`css_differential_in`] in every realm kind of the Host's cell.
pub async fn css_differential(host: &Host) -> anyhow::Result<String> {
    let mut total = 0;
    let kinds = realm_kinds(host.engine);
    for rk in &kinds {
        total += css_differential_in(host, rk).await?;
    }
    Ok(format!(
        "{total} selector x scope pairs equal native querySelectorAll in {}",
        kinds.iter().map(|k| k.kind).collect::<Vec<_>>().join(", ")
    ))
}

/// The Shoelace / Material corpus (whichever the Host holds): every element-type, structure and
/// state selector built from the corpus's own tags, on the root the corpus lives in (the corpus
/// document of an iframe realm, the shadow root of a Web Fragment's host), equal to native qSA on
/// that root, once the corpus says it is rendered (the corpus realm is the `corpus-*` frame).
pub async fn css_corpus_differential(host: &Host, prefix: &str) -> anyhow::Result<String> {
    super::fidelity::corpus_ready(host).await?;
    let realm = match host.engine {
        Engine::Iframe => Realm::Frame(Frame::UrlContains("corpus-".into())),
        Engine::Fragment => Realm::Frame(Frame::Name(format!("wf:corpus-{}", corpus_name(prefix)))),
    };
    // Selectors from the corpus's own custom elements, and structure and state around them.
    let tags = host
        .eval_in_frame(
            &frame_of(&realm),
            &format!(
                "[...new Set([...document.querySelectorAll('*')].map((e) => e.localName).filter((n) => n.startsWith({p})))].slice(0, 24)",
                p = json!(prefix)
            ),
        )
        .await?;
    let tags: Vec<String> =
        tags.as_array().cloned().unwrap_or_default().iter().filter_map(|t| t.as_str().map(String::from)).collect();
    ensure!(!tags.is_empty(), "no {prefix}* element in the corpus realm");
    let mut sels: Vec<String> = Vec::new();
    for t in &tags {
        sels.extend([
            t.clone(),
            format!("{t}[disabled]"),
            format!("{t}:not([disabled])"),
            format!("{t}:first-child"),
            format!("{t}:nth-of-type(2)"),
            format!(":has(> {t})"),
            format!("{t} + *"),
        ]);
    }
    sels.extend(
        [":checked", ":disabled", "[aria-label]", "[variant]", "[type]", ":empty", ":scope > *", ":root"]
            .map(String::from),
    );
    let refs: Vec<&str> = sels.iter().map(String::as_str).collect();
    // The corpus's own root on both sides: the corpus document of an iframe realm; for a Web
    // Fragment, the shadow root its physical DOM lives in, the fragment realm's own root (the Host
    // document's qSA would not cross into it, and its patched `document` is not a returned scope).
    let (scope, native_root) = corpus_root(host, &realm).await?;
    let pairs = css_pairs(host, &realm, &scope, &native_root, &refs).await?;
    let bad = css_disagreements(&pairs);
    ensure!(bad.is_empty(), "{} of {} corpus selectors disagree:\n{}", bad.len(), pairs.len(), head(&bad, 25));
    Ok(format!("{} corpus selectors over {} {prefix}* tags equal native qSA", pairs.len(), tags.len()))
}

/// Page script: the root node `n` is in, by walking `parentNode` up. reframed (Web Fragments)
/// patches `getRootNode`, in the fragment realm and the Host's, to answer the fragment realm's
/// `document`, whose qSA it redirects; a fragment's physical root is the shadow root of its
/// `web-fragment-host`.
const PHYSICAL_ROOT: &str = "((n) => { while (n.parentNode) n = n.parentNode; return n; })";

/// The root node `#corpus` is in (page script), for native qSA.
fn corpus_root_js() -> String {
    format!("{PHYSICAL_ROOT}(document.getElementById('corpus'))")
}

/// The corpus root's NodeRef as the runtime returns it (the realm's `getTree()` root when it is
/// that root: an iframe realm's Document, a fragment realm's own shadow root; else the ShadowRoot
/// child of its shadow host), and the page script naming the same root for native qSA.
async fn corpus_root(host: &Host, realm: &Realm) -> anyhow::Result<(NodeRef, String)> {
    let expr = format!(
        "(() => {{ const r = {}; const idOf = {ID_OF}; return [idOf(r), r.nodeType === 11 ? idOf(r.host) : null]; }})()",
        corpus_root_js()
    );
    let ids = host.eval_in_frame(&frame_of(realm), &expr).await?;
    let realm_root = document_of(host, realm).await?;
    if ids[0].as_str() == Some(realm_root.node_id.as_str()) {
        return Ok((realm_root, corpus_root_js()));
    }
    let shadow_host =
        ids[1].as_str().ok_or_else(|| anyhow!("the corpus root is not the realm's root nor a shadow root: {ids}"))?;
    let scope = shadow_root_of(host, realm, shadow_host)
        .await
        .with_context(|| format!("the shadow root the corpus is in (host {shadow_host})"))?;
    Ok((scope, corpus_root_js()))
}

fn corpus_name(prefix: &str) -> &'static str {
    if prefix.starts_with("sl-") {
        "shoelace"
    } else {
        "material"
    }
}

pub(crate) fn head(lines: &[String], n: usize) -> String {
    let mut s = lines.iter().take(n).cloned().collect::<Vec<_>>().join("\n");
    if lines.len() > n {
        s.push_str(&format!("\n... and {} more", lines.len() - n));
    }
    s
}

// ---------------------------------------------------------------------------------------------
// Privacy rules: native qSA on a copy of the tree with the rules applied is what the runtime must
// match; the same copy with one rule left out must differ for that rule's selectors.

/// A privacy rule of CSS search (the spec's "CSS search" paragraph).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrivacyRule {
    /// Excluded and sensitive subtrees cannot affect `:has`, sibling positions or `:empty`.
    ExcludedSubtreeInvisible,
    /// Redacted nodes have no queryable attributes or text.
    RedactedHasNoAttributesOrText,
    /// Editable values are unavailable.
    EditableValueUnavailable,
    /// Safe non-editable value attributes stay queryable.
    SafeValueAttributeQueryable,
    /// Live checked / selected state stays queryable.
    LiveCheckedSelectedQueryable,
}

impl std::fmt::Display for PrivacyRule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the privacy rule \u{201c}{}\u{201d}", self.flag())
    }
}

impl PrivacyRule {
    fn flag(self) -> &'static str {
        match self {
            PrivacyRule::ExcludedSubtreeInvisible => "exclude",
            PrivacyRule::RedactedHasNoAttributesOrText => "redact",
            PrivacyRule::EditableValueUnavailable => "editable",
            PrivacyRule::SafeValueAttributeQueryable => "safeValue",
            PrivacyRule::LiveCheckedSelectedQueryable => "live",
        }
    }

    /// The selectors whose answer the rule decides.
    pub fn selectors(self) -> &'static [&'static str] {
        match self {
            PrivacyRule::ExcludedSubtreeInvisible => &[
                "li:first-child",
                "li:nth-child(1)",
                "li:nth-child(2)",
                ".k:nth-child(2)",
                "li:last-child",
                "li:only-of-type",
                "#xa",
                "[data-wippy-attention]",
                "ul:has(> li[data-wippy-attention])",
                "#xe:empty",
                "div:empty",
                ":has(> input[type=password])",
                "div:has(input)",
                "input[type=hidden]",
                "[value=CANARY-HIDDEN]",
                "#xh > *",
                "span + li, li + li",
            ],
            PrivacyRule::RedactedHasNoAttributesOrText => &[
                "#rd",
                ".red",
                "[title]",
                "[data-x]",
                "p[data-wippy-attention]",
                "[data-wippy-attention=redact]",
                "p:empty",
                "#rd2:empty",
                "p",
                "p:not([id])",
            ],
            PrivacyRule::EditableValueUnavailable => &[
                "[value]",
                "#ev[value]",
                "input[value*=typed]",
                "input[type=text][value]",
                "textarea:empty",
                "#et:empty",
                "input:not([value])",
            ],
            PrivacyRule::SafeValueAttributeQueryable => &[
                "[value=safe]",
                "[value^=safe]",
                "button[value=go]",
                "option[value=two]",
                "option[value]",
                "input[type=checkbox][value]",
            ],
            PrivacyRule::LiveCheckedSelectedQueryable => &[
                ":checked",
                "input:checked",
                "option:checked",
                "#cb:not(:checked)",
                "#cb2:checked",
                "select:has(option:checked)",
                "input:not(:checked)",
            ],
        }
    }
}

pub const PRIVACY_RULES: [PrivacyRule; 5] = [
    PrivacyRule::ExcludedSubtreeInvisible,
    PrivacyRule::RedactedHasNoAttributesOrText,
    PrivacyRule::EditableValueUnavailable,
    PrivacyRule::SafeValueAttributeQueryable,
    PrivacyRule::LiveCheckedSelectedQueryable,
];

/// Page script: `(root, rules) => (sel) => ids`: copies `root`'s children into a detached element,
/// applies each rule whose flag is true (a false flag is that rule's failure: kept, or over-removed),
/// and returns a matcher giving the ids of the original elements the copy's matches stand for.
pub(crate) const PRIVACY_COPY: &str = "((root, rules, idOf) => {
    const box = document.createElement('div');
    const pairs = [];
    const copy = (from, to) => {
        for (const c of from.childNodes) {
            const d = c.cloneNode(false);
            to.appendChild(d);
            if (c.nodeType === 1) { pairs.push([d, c]); copy(c, d); }
        }
    };
    copy(root, box);
    const orig = new Map(pairs);
    const sensitive = (e) => e.getAttribute('data-wippy-attention') === 'exclude' || e.hasAttribute('data-wippy-composer') ||
        (e.localName === 'input' && ['password', 'hidden'].includes((e.getAttribute('type') || '').toLowerCase()));
    const editable = (e) => e.localName === 'textarea' ||
        (e.localName === 'input' && ['', 'text', 'search', 'email', 'url', 'tel', 'number'].includes((e.getAttribute('type') || '').toLowerCase()));
    for (const [d, o] of pairs) {
        if (d.localName === 'input') d.checked = rules.live ? o.checked : o.hasAttribute('checked');
        if (d.localName === 'option') d.selected = rules.live ? o.selected : o.hasAttribute('selected');
    }
    if (rules.exclude) for (const [d] of pairs) if (sensitive(d) && d.isConnected !== undefined && box.contains(d)) d.remove();
    if (rules.redact) for (const [d] of pairs) {
        if (!box.contains(d) || !d.closest('[data-wippy-attention=redact]')) continue;
        for (const n of [...d.childNodes]) if (n.nodeType === 3) n.remove();
    }
    if (rules.redact) for (const [d] of pairs) {
        if (box.contains(d) && d.closest('[data-wippy-attention=redact]') && d.getAttribute('data-wippy-attention') !== 'redact')
            for (const a of [...d.attributes]) d.removeAttribute(a.name);
    }
    if (rules.redact) for (const [d] of pairs) {
        if (box.contains(d) && d.getAttribute('data-wippy-attention') === 'redact')
            for (const a of [...d.attributes]) d.removeAttribute(a.name);
    }
    for (const [d] of pairs) {
        if (!box.contains(d)) continue;
        if (editable(d)) {
            if (rules.editable) {
                d.removeAttribute('value');
                if (d.localName === 'textarea') for (const n of [...d.childNodes]) n.remove();
            }
        } else if (!rules.safeValue) d.removeAttribute('value');
    }
    return (sel) => Array.from(box.querySelectorAll(sel), (d) => idOf(orig.get(d)));
})";

// ---------------------------------------------------------------------------------------------
// A Web Fragment package's default scope: its own registered subtree (spec: "Public packages can
// inspect their own registered subtree"), though its reads are answered by the realm that owns its
// physical DOM; fromRoot: true is the Host tree.

/// Page script in a fragment realm: the node id of the root its physical DOM lives in
/// ([`PHYSICAL_ROOT`]), its node type, and the node id of its leaf button (landmark `LEAF`).
const FRAGMENT_TRUTH: &str = "((root) => {
    const n = root(document.documentElement);
    const M = window.parent.__wippyAttentionRuntime;
    return [M.nodeIdOf(n), n.nodeType, M.nodeIdOf(document.querySelector('[data-landmark=\"LEAF\"]'))];
})(PHYSICAL_ROOT)";

/// Engine fragment: from the right leaf's fragment realm, `getTree()` is rooted at the fragment's
/// own shadow root (native `parentNode` walk), semantic `find` and `hitTest` find the fragment's
/// own button (Chromium's role and name, Chromium's box) and not the left fragment's, unless
/// `fromRoot: true`; the Host realm's default scope stays its Document.
pub async fn fragment_reads_keep_to_their_subtree(host: &Host) -> anyhow::Result<String> {
    ensure!(host.engine == Engine::Fragment, "a fragment-engine check");
    let (right_frame, left_frame) = (Frame::Name("wf:leaf-right".into()), Frame::Name("wf:leaf-left".into()));
    let right = Realm::Frame(right_frame.clone());
    let truth_of = |leaf: &str| FRAGMENT_TRUTH.replace("PHYSICAL_ROOT", PHYSICAL_ROOT).replace("LEAF", leaf);
    let truth = host.eval_in_frame(&right_frame, &truth_of("right-leaf")).await?;
    let left_truth = host.eval_in_frame(&left_frame, &truth_of("left-leaf")).await?;
    let (root_id, own_id, left_id) = (truth[0].as_str(), truth[2].as_str(), left_truth[2].as_str());
    ensure!(
        truth[1] == json!(11) && root_id.is_some() && own_id.is_some() && left_id.is_some() && own_id != left_id,
        "native truth: the right fragment's root {truth}, the left's {left_truth}"
    );
    let ids = |nodes: &[crate::attention::inspect::NodeRecord]| -> Vec<String> {
        nodes.iter().map(|n| n.node_id().to_string()).collect()
    };
    let tree = host.tree(&right, None, &InspectOptions::default().depth(0)).await?;
    let root = tree.data.root.clone().ok_or_else(|| anyhow!("getTree() named no root: {}", tree.json()))?;
    ensure!(
        Some(root.node_id.as_str()) == root_id
            && tree.data.nodes.first().and_then(|n| n.kind) == Some(NodeKind::ShadowRoot),
        "a fragment realm's getTree() must be rooted at its own shadow root {}, it is rooted at {}: {}",
        text::opt(root_id),
        root.node_id,
        tree.json()
    );
    for (leaf, id, own) in [("right-leaf", own_id, true), ("left-leaf", left_id, false)] {
        let ax = host.landmark_ax(leaf).await?;
        let q = SemanticQuery::role_name(&ax.role, &ax.name);
        let scoped = host.find_semantic(&right, &q, &InspectOptions::default()).await?;
        let all = host.find_semantic(&right, &q, &InspectOptions::from_root()).await?;
        let (s, a) = (ids(&scoped.data.nodes), ids(&all.data.nodes));
        let id = id.unwrap_or_default().to_string();
        ensure!(
            s.contains(&id) == own && a.contains(&id),
            "find({q}) from the right fragment: {leaf} (node {id}) must be found {} by default and from the root: default found {}, fromRoot found {}",
            if own { "too" } else { "not" },
            text::list(&s),
            text::list(&a)
        );
        let (x, y) = host.landmark_rect(leaf).await?.center();
        let hs = host.hit_test(&right, &HitQuery::at(x, y), &InspectOptions::default()).await?;
        let ha = host.hit_test(&right, &HitQuery::at(x, y), &InspectOptions::from_root()).await?;
        let (s, a) = (ids(&hs.data.nodes), ids(&ha.data.nodes));
        ensure!(
            s.contains(&id) == own && a.contains(&id) && (own || hs.outcome == Outcome::Empty),
            "hitTest at {leaf}'s centre ({x}, {y}) from the right fragment must {} node {id} by default{} and hit it from the root: default {} {}, fromRoot {}",
            if own { "hit" } else { "not hit" },
            if own { "" } else { " (outcome empty)" },
            hs.outcome,
            text::list(&s),
            text::list(&a)
        );
    }
    // Only a real fragment realm framed by the Host window gets scoped reads (and its own caller):
    // a script in the Host cannot mint callers past the per-caller subscription limit.
    let minted = host
        .eval(
            "(() => { const M = window.__wippyAttentionRuntime; const f = [...document.querySelectorAll('iframe')].map((i) => i.contentWindow).find((w) => { try { return w.__wippyAttentionRuntime.role === 'fragment-realm'; } catch (_) { return false; } });
               return [M.attentionWithin(window), M.attentionWithin({ parent: window, __wippyAttentionRuntime: { role: 'fragment-realm', realmId: 'x' } }), !!f && M.attentionWithin(f) === M.attentionWithin(f)]; })()",
        )
        .await?;
    ensure!(
        minted == json!([null, null, true]),
        "attentionWithin for the Host window, a fake window, a fragment twice: {minted}"
    );
    let top = host.tree(&Realm::Top, None, &InspectOptions::default().depth(0)).await?;
    ensure!(
        top.data.nodes.first().and_then(|n| n.kind) == Some(NodeKind::Document),
        "the Host realm's getTree() must stay rooted at its Document: {}",
        top.json()
    );
    Ok("the right fragment reads its own subtree by default (root, find, hitTest) and the Host tree from the root"
        .into())
}

// ---------------------------------------------------------------------------------------------
// Focus pseudo-classes from real focus: the runtime's `:focus`, `:focus-within`, `:focus-visible`
// against native qSA after a trusted click and a trusted Tab, in the realm that holds the focus
// (inside a closed shadow root it owns), on that realm's document, and in the Host document, where
// Chromium matches neither the frame element nor its ancestors with `:focus` / `:focus-within` while
// the focus is inside the frame (measured: native qSA finds none), so neither may the runtime, whose
// safe-focus record does reach into the child realm.

/// Chromium's box of the element `data-pv="{key}-{part}"` of a mounted tree, in Host-viewport CSS px.
async fn mounted_rect(host: &Host, key: &str, part: &str) -> anyhow::Result<crate::oracle::BoxRect> {
    let at = host
        .frames()
        .locate_attr("data-pv", &format!("{key}-{part}"))
        .await?
        .ok_or_else(|| anyhow!("no element data-pv={key}-{part}"))?;
    Ok(host.frames().node_rect(&at).await?)
}

/// Buttons and a text field in a shadow root; `data-pv` names them for ground truth.
const FOCUS_CORPUS: &str = r#"<div id="w" data-pv="w"><button type="button" id="a" data-pv="a">First</button><span id="s">after</span><button type="button" id="b" data-pv="b">Second</button></div><p id="p"><input id="c" aria-label="Note field"></p>"#;

/// Selectors whose answers depend on where the focus is and how it got there.
/// (No bare `:not(:focus)`: on a document it also matches the excluded subtrees, which CSS search
/// leaves out by the privacy rules, a difference the privacy tests own.)
const FOCUS_SELECTORS: [&str; 17] = [
    ":focus",
    ":focus-within",
    ":focus-visible",
    "#w > :not(:focus)",
    "[data-insp-host]:not(:focus)",
    "button:focus",
    "button:focus-visible",
    ":focus + span",
    ":focus ~ *",
    "div:focus-within > :not(:focus)",
    ":has(:focus)",
    ":has(> :focus-visible)",
    ":focus-within:not(:focus)",
    "iframe:focus",
    "iframe:focus-within",
    "[data-insp-host]:focus",
    ":is(p, div):focus-within",
];

/// What [`focus_pseudo_classes_in`] compared.
#[derive(Debug)]
pub struct FocusReport {
    /// Selector x scope pairs equal to native qSA.
    pub compared: usize,
    /// Of them, pairs where native qSA matched something (the focus-dependent answers).
    pub matched: usize,
}

/// Focuses the first button of a tree mounted in `rk`'s realm (closed shadow root) with a trusted
/// click, then the second with a trusted Tab (keyboard focus, so `:focus-visible` too), and after
/// each compares [`FOCUS_SELECTORS`] on the shadow root, the realm's document (not a fragment
/// realm's, which is the Host's) and the Host document with native qSA on the same roots; the
/// native `:focus` / `:focus-visible` in the root are checked first (the input landed).
pub async fn focus_pseudo_classes_in(host: &Host, rk: &RealmKind) -> anyhow::Result<FocusReport> {
    let key = format!("fc-{}", rk.kind);
    let m = mount(host, &rk.realm, &key, FOCUS_CORPUS, "closed", Placement::Visible).await?;
    let root = format!("window.__inspRoots[{}]", json!(key));
    let rect = mounted_rect(host, &key, "a").await?;
    let realm_doc = if rk.kind == "fragment" { None } else { Some(document_of(host, &rk.realm).await?) };
    let top_doc = document_of(host, &Realm::Top).await?;
    let mut report = FocusReport { compared: 0, matched: 0 };
    let mut bad = Vec::new();
    for (step, focused) in [("click", "a"), ("Tab", "b")] {
        match step {
            "click" => host.click_at(rect.x + rect.width / 2.0, rect.y + rect.height / 2.0).await?,
            _ => host.press_key(crate::input::Key::TAB).await?,
        }
        // The input really focused what it should: native :focus in the root (and :focus-visible
        // only after the key).
        let native = host
            .eval_in_frame(
                &frame_of(&rk.realm),
                &format!(
                    "(() => {{ const r = {root}; const f = r.querySelector(':focus'); const v = r.querySelector(':focus-visible');
                       return [f && f.id, v && v.id]; }})()"
                ),
            )
            .await?;
        let visible = if step == "Tab" { json!(focused) } else { Value::Null };
        ensure!(
            native == json!([focused, visible]),
            "{} after the trusted {step}: native (:focus, :focus-visible) in the root is {native}, not [{focused}, {visible}]",
            rk.kind
        );
        let mut scopes = vec![(rk.realm.clone(), m.scope.clone(), root.clone(), "shadow root")];
        if let Some(d) = &realm_doc {
            scopes.push((rk.realm.clone(), d.clone(), "document".into(), "realm document"));
        }
        if rk.kind != "host" {
            scopes.push((Realm::Top, top_doc.clone(), "document".into(), "Host document"));
        }
        for (realm, scope, native_root, name) in scopes {
            let pairs = css_pairs(host, &realm, &scope, &native_root, &FOCUS_SELECTORS).await?;
            report.compared += pairs.len();
            report.matched += pairs.iter().filter(|p| p.native.as_ref().is_ok_and(|n| !n.is_empty())).count();
            bad.extend(css_disagreements(&pairs).into_iter().map(|b| format!("{} after {step}, {name}: {b}", rk.kind)));
        }
    }
    ensure!(bad.is_empty(), "{} focus selector answers disagree with native qSA:\n{}", bad.len(), head(&bad, 25));
    Ok(report)
}

/// What the privacy check found for one rule: selectors compared, and how many of them the rule
/// decides (their answer differs when the rule is left out).
#[derive(Debug)]
pub struct RuleReport {
    pub compared: usize,
    pub decided: usize,
}

/// Mounts the privacy tree visible in `rk`'s realm, toggles its live state with trusted clicks
/// (checkbox `cb` on to off, `cb2` off to on, list option `lb` selected), then checks `rule`: the
/// runtime's matches equal native qSA on the copy with every rule applied, and at least one of the
/// rule's selectors answers differently on the copy without the rule.
pub async fn privacy_rule_in(host: &Host, rk: &RealmKind, rule: PrivacyRule) -> anyhow::Result<RuleReport> {
    let key = format!("pv-{}", rk.kind);
    let m = mount(host, &rk.realm, &key, PRIVACY_CORPUS, "open", Placement::Visible).await?;
    for (part, fy) in [("cb", 0.5), ("cb2", 0.5), ("ls", 0.75)] {
        let rect = mounted_rect(host, &key, part).await?;
        // The list box's second row is its option `lb`.
        host.click_at(rect.x + rect.width.min(20.0) / 2.0, rect.y + rect.height * fy).await?;
    }
    let live = host
        .eval_in_frame(
            &frame_of(&rk.realm),
            &format!(
                "(() => {{ const r = window.__inspRoots[{k}]; const q = (s) => r.querySelector(s);
                   return [q('#cb').checked, q('#cb2').checked, q('#lb').selected]; }})()",
                k = json!(key)
            ),
        )
        .await?;
    ensure!(live == json!([false, true, true]), "the trusted clicks did not toggle cb, cb2, lb: {live}");
    let sels = rule.selectors();
    let mut all = serde_json::Map::new();
    for r in PRIVACY_RULES {
        all.insert(r.flag().into(), json!(true));
    }
    let mut without = all.clone();
    without.insert(rule.flag().into(), json!(false));
    let expr = format!(
        "(() => {{
            const idOf = {ID_OF};
            const root = window.__inspRoots[{k}];
            const full = ({PRIVACY_COPY})(root, {all}, idOf);
            const ablated = ({PRIVACY_COPY})(root, {without}, idOf);
            return {sels}.map((s) => [full(s), ablated(s)]);
        }})()",
        k = json!(key),
        all = Value::Object(all),
        without = Value::Object(without),
        sels = json!(sels),
    );
    let expected = host.eval_in_frame(&frame_of(&rk.realm), &expr).await?;
    let expected = expected.as_array().cloned().unwrap_or_default();
    let pairs = css_pairs(host, &rk.realm, &m.scope, &format!("window.__inspRoots[{}]", json!(key)), sels).await?;
    let mut bad = Vec::new();
    let mut decided = 0;
    for (p, e) in pairs.iter().zip(&expected) {
        let ids = |v: &Value| -> Vec<String> {
            v.as_array().cloned().unwrap_or_default().iter().map(|s| s.as_str().unwrap_or("?").to_string()).collect()
        };
        let (full, ablated) = (ids(&e[0]), ids(&e[1]));
        if full != ablated {
            decided += 1;
        }
        let runtime = p.runtime_ids();
        let last = p.pages.last().map(|r| r.outcome);
        if !matches!(last, Some(Outcome::Ok | Outcome::Empty)) {
            bad.push(format!(
                "{}: outcome {}, omitted {}",
                text::quote(&p.selector),
                text::list(&outcomes(p)),
                text::list(&reasons(p))
            ));
        } else if runtime != full {
            bad.push(format!(
                "{}: the rule gives {}, the runtime {}{}",
                text::quote(&p.selector),
                text::list(&full),
                text::list(&runtime),
                if runtime == ablated { " (as if the rule were not applied)" } else { "" }
            ));
        }
    }
    ensure!(decided > 0, "no selector of {rule} depends on the rule: the check could not fail");
    ensure!(bad.is_empty(), "{rule} in {}:\n{}", rk.kind, head(&bad, 20));
    Ok(RuleReport { compared: pairs.len(), decided })
}

/// Every privacy rule in every realm kind of the cell.
pub async fn privacy_rules(host: &Host) -> anyhow::Result<String> {
    let mut n = 0;
    for rk in realm_kinds(host.engine) {
        for rule in PRIVACY_RULES {
            n += privacy_rule_in(host, &rk, rule).await?.compared;
        }
    }
    Ok(format!("{n} privacy selectors match native qSA on the rule-applied copy"))
}

// ---------------------------------------------------------------------------------------------
// Semantic search against the accessibility tree; geometry and hitTest against the box model.

/// The landmarks read by the semantic and geometry checks: the four leaves (Host-document probes
/// need no realm of their own: the left leaf's realm is an app realm, the closed-shadow leaf is in
/// the srcdoc's closed root).
pub const LEAVES: [&str; 4] = ["left-leaf", "right-leaf", "oopif-leaf", "closed-shadow-leaf"];

/// For each leaf: Chromium's role and name for it (`Accessibility.getPartialAXTree`), `find` with
/// that role and name from the top realm over the whole Host tree; the runtime must find a node
/// whose rect is the leaf's border box (0.5 px), and every node it finds must be, by
/// `DOM.getNodeForLocation` at its centre, a node Chromium gives the same role and name. Nothing
/// Chromium names so (`Accessibility.queryAXTree` per frame session) may be missed.
pub async fn semantic_matches_ax(host: &Host) -> anyhow::Result<String> {
    let mut checked = 0;
    for leaf in LEAVES {
        let ax = host.landmark_ax(leaf).await?;
        ensure!(!ax.ignored && !ax.name.is_empty(), "{leaf}: Chromium gives it no name ({})", text::json(&ax));
        let truth = host.landmark_rect(leaf).await?;
        let q = SemanticQuery::role_name(&ax.role, &ax.name);
        let found = host.find_semantic(&Realm::Top, &q, &InspectOptions::from_root()).await?;
        ensure!(
            matches!(found.outcome, Outcome::Ok | Outcome::Partial),
            "{leaf}: find({q}) answered {}, expected ok or partial",
            text::answer(&found)
        );
        let mut hit_leaf = false;
        for n in &found.data.nodes {
            let (role, name) = (n.summary.role.clone().unwrap_or_default(), n.summary.name.clone().unwrap_or_default());
            // find matches a name that contains the query (case-insensitive).
            ensure!(
                role.eq_ignore_ascii_case(&ax.role) && name.to_lowercase().contains(&ax.name.to_lowercase()),
                "{leaf}: find({q}) returned a node summarised {}, expected role {} with a name containing {}",
                text::role_name(Some(&role), Some(&name)),
                text::quote(&ax.role),
                text::quote(&ax.name)
            );
            let layout = n.layout.as_ref().ok_or_else(|| anyhow!("{leaf}: a found node has no layout"))?;
            let r = super::box_of(&layout.rect);
            if r.max_edge_delta(&truth) <= super::RECT_TOLERANCE {
                hit_leaf = true;
            }
            let Some(hit) = host.frames().hit_at(r.center().0, r.center().1).await? else {
                bail!("{leaf}: nothing at the centre of a found node {r}")
            };
            let facts = crate::oracle::ax_facts(&hit.session, hit.backend_node_id).await?;
            ensure!(
                facts.role == role && facts.name == name,
                "{leaf}: Chromium's node at a found node's centre is {}, the runtime summarised it {}",
                text::role_name(Some(&facts.role), Some(&facts.name)),
                text::role_name(Some(&role), Some(&name))
            );
            checked += 1;
        }
        ensure!(hit_leaf, "{leaf}: no found node has the leaf's border box {truth}: {}", found.json());
        let chromium = ax_named_count(host, &ax.role, &ax.name).await?;
        ensure!(
            found.data.nodes.len() >= chromium.min(8),
            "{leaf}: Chromium names {chromium} nodes {}, the runtime found {}, expected at least {}",
            text::role_name(Some(&ax.role), Some(&ax.name)),
            found.data.nodes.len(),
            chromium.min(8)
        );
    }
    Ok(format!("{} leaves: {checked} found nodes agree with Chromium's AX tree, none missed", LEAVES.len()))
}

/// How many unignored nodes Chromium's accessibility tree has with `role` and `name`, over every
/// frame of every session (`Accessibility.getFullAXTree` per frame).
pub async fn ax_named_count(host: &Host, role: &str, name: &str) -> anyhow::Result<usize> {
    use chromiumoxide::cdp::browser_protocol::page::GetFrameTreeParams;
    let mut n = 0;
    for session in host.frames().sessions() {
        let tree = session.send(&GetFrameTreeParams::default()).await?;
        let mut ids = Vec::new();
        collect_frame_ids(&tree["frameTree"], &mut ids);
        for id in ids {
            let Ok(ax) = session.call("Accessibility.getFullAXTree", json!({"frameId": id})).await else { continue };
            n += ax["nodes"]
                .as_array()
                .map(|v| {
                    v.iter()
                        .filter(|x| {
                            !x["ignored"].as_bool().unwrap_or(false)
                                && x.pointer("/role/value").and_then(Value::as_str) == Some(role)
                                && x.pointer("/name/value").and_then(Value::as_str) == Some(name)
                        })
                        .count()
                })
                .unwrap_or(0);
        }
    }
    Ok(n)
}

/// The frame ids of a `Page.getFrameTree` answer's tree, depth first.
pub(crate) fn collect_frame_ids(node: &Value, out: &mut Vec<String>) {
    if let Some(id) = node.pointer("/frame/id").and_then(Value::as_str) {
        out.push(id.to_string());
    }
    for c in node["childFrames"].as_array().into_iter().flatten() {
        collect_frame_ids(c, out);
    }
}

/// The NodeRef of a leaf, found from the top realm by Chromium's role and name for it and the rect.
pub async fn leaf_ref(host: &Host, leaf: &str) -> anyhow::Result<NodeRef> {
    let ax = host.landmark_ax(leaf).await?;
    let truth = host.landmark_rect(leaf).await?;
    let found = host
        .find_semantic(&Realm::Top, &SemanticQuery::role_name(&ax.role, &ax.name), &InspectOptions::from_root())
        .await?;
    found
        .data
        .nodes
        .iter()
        .find(|n| n.layout.as_ref().is_some_and(|l| super::box_of(&l.rect).max_edge_delta(&truth) <= 1.0))
        .map(|n| n.node_ref.clone())
        .ok_or_else(|| anyhow!("{leaf}: no found node at {truth}: {}", found.json()))
}

/// For each leaf: `getGeometry` within 0.5 px of the box model; `hitTest` at the box's centre (Host
/// viewport) and at the same point given relative to the node (its border-box origin) answers the
/// point Chromium's `DOM.getNodeForLocation` hits, and includes the leaf.
pub async fn geometry_matches_box_model(host: &Host, leaves: &[&str]) -> anyhow::Result<String> {
    let mut worst: f64 = 0.0;
    for leaf in leaves {
        let node = leaf_ref(host, leaf).await?;
        let truth = host.landmark_rect(leaf).await?;
        let g = host.geometry(&Realm::Top, &node).await?;
        let read =
            g.data.geometry.as_ref().ok_or_else(|| anyhow!("{leaf}: getGeometry gave no geometry: {}", g.json()))?;
        let d = super::box_of(&read.rect).max_edge_delta(&truth);
        worst = worst.max(d);
        ensure!(
            d <= super::RECT_TOLERANCE,
            "{leaf}: getGeometry rect {} vs box model {truth} ({d:.3} px, at most {} allowed)",
            super::box_of(&read.rect),
            super::RECT_TOLERANCE
        );
        let (cx, cy) = truth.center();
        let hit = host
            .frames()
            .hit_at(cx, cy)
            .await?
            .ok_or_else(|| anyhow!("{leaf}: Chromium hits nothing at its centre"))?;
        let ax = crate::oracle::ax_facts(&hit.session, hit.backend_node_id).await?;
        // Node-relative coordinates are the element's own CSS px from its untransformed border-box
        // origin: its centre is half its offset size (Chromium's layout), which maps to the box's centre.
        let at = host.locate_landmark(leaf).await?;
        let obj = at.session.resolve_node(at.backend_node_id).await?.ok_or_else(|| anyhow!("{leaf}: no JS object"))?;
        let size = at
            .session
            .call_function_on(&obj, "function () { return [this.offsetWidth, this.offsetHeight]; }", true)
            .await?;
        let (w, h) = (
            size.pointer("/result/value/0").and_then(Value::as_f64).unwrap_or(0.0),
            size.pointer("/result/value/1").and_then(Value::as_f64).unwrap_or(0.0),
        );
        for (how, q) in
            [("host-viewport", HitQuery::at(cx, cy)), ("node-relative", HitQuery::relative_to(w / 2.0, h / 2.0, &node))]
        {
            let h = host.hit_test(&Realm::Top, &q, &InspectOptions::from_root()).await?;
            ensure!(h.outcome == Outcome::Ok, "{leaf}: hitTest {how} answered {}", text::answer(&h));
            let p = h.data.point.ok_or_else(|| anyhow!("{leaf}: hitTest {how} has no point"))?;
            let dp = (p.x - cx).abs().max((p.y - cy).abs());
            worst = worst.max(dp);
            ensure!(
                dp <= super::RECT_TOLERANCE,
                "{leaf}: hitTest {how} point ({}, {}), expected ({cx}, {cy})",
                p.x,
                p.y
            );
            ensure!(
                h.data.nodes.iter().any(|n| n.node_ref == node),
                "{leaf}: hitTest {how} at the centre does not include the leaf (Chromium hits {})",
                text::role_name(Some(&ax.role), Some(&ax.name))
            );
        }
    }
    Ok(format!("{} leaves: geometry and hitTest within {worst:.3} px of the box model", leaves.len()))
}

/// getGeometry asked from inside each child realm (in-process srcdoc, out-of-process iframe or Web
/// Fragment) about an element of that realm: the rect is in Host-viewport CSS px, as a read from the
/// Host gives it, so it matches Chromium's box model of the element (`DOM.getBoxModel` on the frame's
/// session, mapped through the iframe's offset in the Host) within 0.5 px, and the space is named
/// `host-viewport`. A frame-local rect (the iframe's offset left out) misses by the offset.
pub async fn child_realm_geometry_is_in_the_host_viewport(host: &Host, engine: Engine) -> anyhow::Result<String> {
    let mut worst: f64 = 0.0;
    let mut checked = Vec::new();
    for rk in realm_kinds(engine).into_iter().filter(|rk| rk.kind != "host") {
        let landmark = if rk.kind == "srcdoc" { "closed-shadow-app" } else { "right-leaf" };
        let truth = host.landmark_rect(landmark).await?;
        let tree = host.tree(&rk.realm, None, &InspectOptions::default().depth(0)).await?;
        let root = tree
            .data
            .root
            .clone()
            .or_else(|| tree.data.nodes.first().map(|n| n.node_ref.clone()))
            .ok_or_else(|| anyhow!("{}: the tree read named no root: {}", rk.kind, tree.json()))?;
        let css = format!("[data-landmark=\"{landmark}\"]");
        let found = host.find_css(&rk.realm, &css, &root, &InspectOptions::default().limit(1)).await?;
        let node = found
            .data
            .nodes
            .first()
            .map(|n| n.node_ref.clone())
            .ok_or_else(|| anyhow!("{}: {css} found nothing in its own realm: {}", rk.kind, found.json()))?;
        let g = host.geometry(&rk.realm, &node).await?;
        ensure!(g.outcome == Outcome::Ok, "{}: getGeometry answered {}, expected ok", rk.kind, text::answer(&g));
        let read = g.data.geometry.as_ref().ok_or_else(|| anyhow!("{}: no geometry: {}", rk.kind, g.json()))?;
        let space = g.json().pointer("/data/geometry/coordinate_space").cloned();
        ensure!(
            space == Some(json!("host-viewport")),
            "{}: coordinate_space {}, expected \"host-viewport\"",
            rk.kind,
            text::opt(space.as_ref())
        );
        let d = super::box_of(&read.rect).max_edge_delta(&truth);
        worst = worst.max(d);
        ensure!(
            d <= super::RECT_TOLERANCE,
            "{}: getGeometry of {landmark} from its own realm {} vs Chromium's box model in the Host {truth} ({d:.3} px, at most {} allowed)",
            rk.kind,
            super::box_of(&read.rect),
            super::RECT_TOLERANCE
        );
        checked.push(rk.kind);
    }
    Ok(format!("getGeometry from inside {} within {worst:.3} px of the box model", checked.join(", ")))
}

/// Under rotation or skew of the left leaf's frame: `getGeometry` and `hitTest` on the left leaf
/// say `unsupported-transform`, and its right sibling still answers within 0.5 px.
pub async fn unsupported_transform_keeps_sibling(host: &Host) -> anyhow::Result<String> {
    let truth = host.landmark_rect("left-leaf").await?;
    let (cx, cy) = truth.center();
    let h = host.hit_test(&Realm::Top, &HitQuery::at(cx, cy), &InspectOptions::from_root()).await?;
    ensure!(h.omits("unsupported-transform"), "hitTest at the rotated leaf: no unsupported-transform: {}", h.json());
    let tree = host
        .find_semantic(
            &Realm::Top,
            &SemanticQuery::role_name("button", "Attention target left"),
            &InspectOptions::from_root(),
        )
        .await?;
    if let Some(n) = tree.data.nodes.first() {
        let g = host.geometry(&Realm::Top, &n.node_ref).await?;
        ensure!(g.omits("unsupported-transform"), "getGeometry of the rotated leaf: {}", g.json());
    }
    geometry_matches_box_model(host, &["right-leaf"]).await?;
    Ok("unsupported-transform for the transformed leaf; its sibling within 0.5 px".into())
}

// ---------------------------------------------------------------------------------------------
// Limits at their boundaries.

/// `count` buttons named `name` under a new open shadow root in the Host document.
pub async fn mount_buttons(host: &Host, key: &str, name: &str, count: usize) -> anyhow::Result<Mounted> {
    let markup: String =
        (0..count).map(|i| format!("<button type=button aria-label=\"{name}\" data-i=\"{i}\">b</button>")).collect();
    mount(host, &Realm::Top, key, &markup, "open", Placement::Tiny).await
}

/// 8 matches fit; the 9th is left for a continuation.
pub async fn match_limit(host: &Host) -> anyhow::Result<String> {
    mount_buttons(host, "eight", "Eight probe", 8).await?;
    mount_buttons(host, "nine", "Nine probe", 9).await?;
    ensure!(ax_named_count(host, "button", "Nine probe").await? == 9, "Chromium does not see 9 Nine probes");
    let opts = InspectOptions::from_root();
    let eight = host.find_semantic(&Realm::Top, &SemanticQuery::role_name("button", "Eight probe"), &opts).await?;
    ensure!(
        eight.outcome == Outcome::Ok && eight.data.nodes.len() == 8 && eight.continuation.is_none(),
        "8 matches: {}, {} nodes, continuation {}; expected ok, 8 nodes, no continuation",
        text::answer(&eight),
        eight.data.nodes.len(),
        text::opt(eight.continuation.as_deref())
    );
    let nine = host.find_semantic(&Realm::Top, &SemanticQuery::role_name("button", "Nine probe"), &opts).await?;
    ensure!(nine.data.nodes.len() == 8, "9 matches: {} nodes in the first answer", nine.data.nodes.len());
    let token = nine.continuation.clone().ok_or_else(|| anyhow!("9 matches: no continuation: {}", nine.json()))?;
    ensure!((1..=160).contains(&token.len()), "continuation length {}", token.len());
    let rest = host
        .find_semantic(
            &Realm::Top,
            &SemanticQuery::role_name("button", "Nine probe"),
            &opts.clone().continuation(token),
        )
        .await?;
    ensure!(
        rest.data.nodes.len() == 1 && rest.continuation.is_none(),
        "the continuation gave {} nodes",
        rest.data.nodes.len()
    );
    let all: BTreeSet<_> = nine.data.nodes.iter().chain(&rest.data.nodes).map(|n| n.node_id().to_string()).collect();
    ensure!(all.len() == 9, "the two answers hold {} distinct nodes, not 9", all.len());
    Ok("8 matches in one answer; 9 as 8 + 1 through a continuation".into())
}

/// `count` empty `<hr>` elements (no text nodes; separators, so rows of a tree read, where a
/// nameless generic wrapper would be passed through) under a new open shadow root in the Host
/// document: a tree of `count + 1` nodes from its shadow root.
pub async fn mount_flat(host: &Host, key: &str, count: usize) -> anyhow::Result<Mounted> {
    let markup = "<hr>".repeat(count);
    mount(host, &Realm::Top, key, &markup, "open", Placement::Tiny).await
}

/// A tree of exactly 32 nodes (the shadow root and 31 children) fits one answer; 33 gives 32 and a
/// continuation with the last. Depth 32 is accepted, 33 is `invalid-request`.
pub async fn tree_limits(host: &Host) -> anyhow::Result<String> {
    let m32 = mount_flat(host, "t32", 31).await?;
    let m33 = mount_flat(host, "t33", 32).await?;
    let opts = InspectOptions::default().depth(2);
    let a = host.tree(&Realm::Top, Some(&m32.scope), &opts).await?;
    ensure!(
        a.outcome == Outcome::Ok && a.data.nodes.len() == 32 && a.continuation.is_none(),
        "a 32-node tree: {}, {} nodes, continuation {}; expected ok, 32 nodes, no continuation",
        text::answer(&a),
        a.data.nodes.len(),
        text::opt(a.continuation.as_deref())
    );
    let b = host.tree(&Realm::Top, Some(&m33.scope), &opts).await?;
    let token = b
        .continuation
        .clone()
        .ok_or_else(|| anyhow!("a 33-node tree: no continuation ({} nodes)", b.data.nodes.len()))?;
    ensure!(b.data.nodes.len() == 32, "a 33-node tree: {} nodes in the first answer", b.data.nodes.len());
    let rest = host.tree(&Realm::Top, Some(&m33.scope), &opts.clone().continuation(token)).await?;
    ensure!(rest.data.nodes.len() == 1 && rest.continuation.is_none(), "the rest: {} nodes", rest.data.nodes.len());
    let d32 = host.tree(&Realm::Top, Some(&m32.scope), &InspectOptions::default().depth(32)).await?;
    ensure!(d32.outcome == Outcome::Ok, "depth 32: {}", text::answer(&d32));
    let d33 = host.tree(&Realm::Top, Some(&m32.scope), &InspectOptions::default().depth(33)).await?;
    ensure!(d33.is_invalid_request(), "depth 33: {}", text::answer(&d33));
    // A chain 33 deep (groups: rows, where nameless generic wrappers are passed through): depth 32
    // reaches its 32nd level and no further.
    let chain = format!("{}{}", "<b role=\"group\">".repeat(33), "</b>".repeat(33));
    let deep = mount(host, &Realm::Top, "deep", &chain, "open", Placement::Tiny).await?;
    let d = host.tree(&Realm::Top, Some(&deep.scope), &InspectOptions::default().depth(32)).await?;
    ensure!(
        d.data.nodes.len() == 32 + 1 || d.continuation.is_some(),
        "depth 32 over a 33-deep chain: {} nodes",
        d.data.nodes.len()
    );
    Ok("32 nodes in one answer, 33 as 32 + 1; depth 32 ok, 33 invalid-request".into())
}

/// A 41-node tree: 32 nodes and a continuation, the continuation gives the rest once; a second
/// use is `continuation-used`; one used after 30 s of the runtime clock is `continuation-expired`
/// (29 s is still fine); one used after a tree change is `stale` with `revision-changed`.
pub async fn continuation_rules(host: &Host) -> anyhow::Result<String> {
    let m = mount_flat(host, "c40", 40).await?;
    let opts = InspectOptions::default().depth(2);
    let token =
        |r: Inspected<NodesData>| r.continuation.clone().ok_or_else(|| anyhow!("no continuation: {}", r.json()));
    let first = host.tree(&Realm::Top, Some(&m.scope), &opts).await?;
    ensure!(first.data.nodes.len() == 32, "a 41-node tree: the first answer has {} nodes", first.data.nodes.len());
    let again = opts.clone().continuation(token(first)?);
    let second = host.tree(&Realm::Top, Some(&m.scope), &again).await?;
    ensure!(
        second.outcome == Outcome::Ok && second.data.nodes.len() == 9,
        "the continuation: {}, {} nodes; expected ok, 9 nodes",
        text::answer(&second),
        second.data.nodes.len()
    );
    let before = revisions(host).await?;
    let twice = host.tree(&Realm::Top, Some(&m.scope), &again).await?;
    ensure!(twice.omits("continuation-used"), "used twice: {}", text::answer(&twice));
    ensure!(twice.data.nodes.is_empty(), "used twice: it still returned nodes");
    let t = token(host.tree(&Realm::Top, Some(&m.scope), &opts).await?)?;
    host.eval("window.__wippyAttentionRuntime.advanceClock(29000)").await?;
    let fresh = host.tree(&Realm::Top, Some(&m.scope), &opts.clone().continuation(t)).await?;
    ensure!(fresh.outcome == Outcome::Ok, "at 29 s: {}", text::answer(&fresh));
    let t = token(host.tree(&Realm::Top, Some(&m.scope), &opts).await?)?;
    host.eval("window.__wippyAttentionRuntime.advanceClock(30001)").await?;
    let expired = host.tree(&Realm::Top, Some(&m.scope), &opts.clone().continuation(t)).await?;
    ensure!(expired.omits("continuation-expired"), "after 30 s: {}", text::answer(&expired));
    ensure!(revisions(host).await?.tree == before.tree, "reads changed the tree revision");
    let t = token(host.tree(&Realm::Top, Some(&m.scope), &opts).await?)?;
    host.eval("(window.__inspRoots.c40.appendChild(document.createElement('i')), true)").await?;
    super::wait_for(host, "the tree revision to change", super::POINTER_TIMEOUT, || async {
        let r = revisions(host).await?;
        Ok(if r.tree != before.tree { super::Poll::Ready(()) } else { super::Poll::Pending(format!("revisions {r}")) })
    })
    .await?;
    let after = host.tree(&Realm::Top, Some(&m.scope), &opts.clone().continuation(t)).await?;
    ensure!(
        after.outcome == Outcome::Stale && after.omits("revision-changed"),
        "after a tree change: {}",
        text::answer(&after)
    );
    Ok("continuation: once, not twice, fine at 29 s, expired at 30 s, stale after a tree change".into())
}

/// The Host tree's revisions now (a `getTree` of depth 0 from the top realm).
pub async fn revisions(host: &Host) -> anyhow::Result<Revisions> {
    Ok(host.tree(&Realm::Top, None, &InspectOptions::default().depth(0)).await?.revisions)
}

/// Bad input: each is `invalid-request` (never an exception) and changes no revision.
pub async fn bad_input(host: &Host, other_host_ref: Option<&NodeRef>) -> anyhow::Result<String> {
    let doc = document_of(host, &Realm::Top).await?;
    let before = revisions(host).await?;
    let mut forged = doc.clone();
    forged.node_id.push('x');
    let mut regen = doc.clone();
    regen.generation += 1;
    let long = format!("#{}", "a".repeat(511));
    let too_long = format!("#{}", "a".repeat(512));
    let mut cases: Vec<(&str, &str, Vec<Value>)> = vec![
        ("unknown option key", "find", vec![json!({"role": "button"}), json!({"bogus": 1})]),
        ("unknown tree option", "getTree", vec![Value::Null, json!({"deep": 2})]),
        ("hand-built NodeRef", "getNode", vec![json!(forged)]),
        ("changed generation", "getGeometry", vec![json!(regen)]),
        ("empty semantic query", "find", vec![json!({}), json!({})]),
        ("selector of 513 characters", "find", vec![json!({"css": too_long, "scope": doc}), json!({})]),
        ("hover", "find", vec![json!({"css": "a:hover", "scope": doc}), json!({})]),
        ("non-finite x", "hitTest", vec![json!({"x": "NaN", "y": 1}), json!({})]),
        ("missing y", "hitTest", vec![json!({"x": 1}), json!({})]),
        ("depth -1", "getTree", vec![Value::Null, json!({"depth": -1})]),
    ];
    if let Some(r) = other_host_ref {
        cases.push(("a ref from another Host instance", "getNode", vec![json!(r)]));
    }
    let mut bad = Vec::new();
    for (what, method, args) in &cases {
        let r: Inspected<Value> = host.inspect_raw(&Realm::Top, method, args).await?;
        if !r.is_invalid_request() {
            bad.push(format!("{what}: {}", text::answer(&r)));
        }
    }
    // Non-finite numbers cannot be JSON: send them from page script.
    let nan = host
        .eval("(async () => JSON.parse(JSON.stringify(await window.$W.attention.hitTest({ x: NaN, y: Infinity }))))()")
        .await?;
    if nan["outcome"] != "unavailable" || !nan["omissions"].to_string().contains("invalid-request") {
        bad.push(format!("hitTest(NaN, Infinity): {nan}"));
    }
    let ok: Inspected<NodesData> =
        host.inspect_raw(&Realm::Top, "find", &[json!({"css": long, "scope": doc}), json!({})]).await?;
    if !matches!(ok.outcome, Outcome::Ok | Outcome::Empty) {
        bad.push(format!("a selector of 512 characters: {}", text::answer(&ok)));
    }
    let after = revisions(host).await?;
    ensure!(after == before, "bad input changed the revisions: {before} -> {after}");
    ensure!(bad.is_empty(), "not invalid-request:\n{}", bad.join("\n"));
    Ok(format!("{} bad inputs are invalid-request, nothing changed; 512 characters pass", cases.len() + 1))
}

/// A read made with attachments off (the default Host: no Session attached, automatic context
/// off): `find`, `getTree` and `hitTest` still answer fresh, and they agree with Chromium.
pub async fn fresh_reads_with_attachments_off(host: &Host) -> anyhow::Result<String> {
    ensure!(host.session.is_none() || !host.options().actions_enabled(), "this check wants a Host without attachments");
    let ax = host.landmark_ax("left-leaf").await?;
    let found = host
        .find_semantic(&Realm::Top, &SemanticQuery::role_name(&ax.role, &ax.name), &InspectOptions::from_root())
        .await?;
    ensure!(found.outcome == Outcome::Ok && !found.data.nodes.is_empty(), "find: {}", text::answer(&found));
    let tree = host.tree(&Realm::Top, None, &InspectOptions::default()).await?;
    ensure!(matches!(tree.outcome, Outcome::Ok | Outcome::Partial), "getTree: {}", tree.outcome);
    let s = geometry_matches_box_model(host, &["left-leaf"]).await?;
    Ok(format!("find, getTree, getGeometry and hitTest answer with attachments off ({s})"))
}

// ---------------------------------------------------------------------------------------------
// Subscriptions.

/// The child realms (`rl-<i>`, Child-origin peers) a Host with `Extra::Realms { count }` has, as
/// realms to call from.
pub fn child_realms(count: usize) -> Vec<Realm> {
    (0..count).map(|i| Realm::Frame(Frame::UrlContains(format!("peer.html?name=rl-{i}&")))).collect()
}

/// 16 subscriptions from one caller are live, the 17th is refused; 128 in all from real callers
/// are live, the 129th (from a caller with none) is refused; disposing one lets the next in.
pub async fn subscription_limits(host: &Host, callers: &[Realm]) -> anyhow::Result<String> {
    ensure!(callers.len() >= 9, "{} callers: the 129th needs a 9th", callers.len());
    let mut live = Vec::new();
    for (i, realm) in callers.iter().take(8).enumerate() {
        for k in 0..16 {
            let s = host.subscribe(realm, &["tree"], false).await?;
            ensure!(s.refused().is_none(), "caller {i}, subscription {}: refused: {}", k + 1, s.returned);
            live.push(s);
        }
        if i == 0 {
            let s17 = host.subscribe(realm, &["tree"], false).await?;
            ensure!(
                s17.refused() == Some("subscription-limit"),
                "the 17th from one caller: {}, expected refused with subscription-limit",
                s17.returned
            );
        }
    }
    // The top decides (a child realm's subscription waits for its slot); the caller's own view of
    // the total, which the top sends down, reaches 128 too.
    total_seen(host, &callers[8], |t| t >= 128, "128").await?;
    let s129 = host.subscribe(&callers[8], &["tree"], false).await?;
    ensure!(
        s129.refused() == Some("subscription-limit"),
        "the 129th in all: {}, expected refused with subscription-limit",
        s129.returned
    );
    host.dispose(&live[20]).await?;
    total_seen(host, &callers[8], |t| t < 128, "127 after a dispose").await?;
    let next = host.subscribe(&callers[8], &["tree"], false).await?;
    ensure!(next.refused().is_none(), "after a dispose, the next is refused: {}", next.returned);
    Ok("16 per caller (17th refused), 128 in all (129th refused), a dispose frees one".into())
}

/// Sixteen subscriptions from each of `callers` (child realms, at least 9: 144 in all), every call
/// in flight at once (all sent before the first answer): exactly 128 are granted and the rest
/// refused with `subscription-limit`, the top's exact total is 128, and a dispose gives a refused
/// caller its subscription.
pub async fn subscriptions_racing(host: &Host, callers: &[Realm]) -> anyhow::Result<String> {
    ensure!(callers.len() >= 9, "{} callers: 16 from each of 9 or more pass 128", callers.len());
    let per = crate::attention::inspect::SUBSCRIPTIONS_PER_CALLER;
    let t0 = std::time::Instant::now();
    let calls = callers.iter().map(|r| async move {
        let sent = t0.elapsed();
        let r = host.subscribe_many(r, &["tree"], false, per).await;
        (sent, t0.elapsed(), r)
    });
    let timed = futures::future::join_all(calls).await;
    // Every request was out before the first answer came back: they overlapped.
    let last_sent = timed.iter().map(|t| t.0).max().unwrap_or_default();
    let first_answer = timed.iter().map(|t| t.1).min().unwrap_or_default();
    ensure!(
        last_sent < first_answer,
        "the calls did not overlap (the last was sent at {}, the first answered at {})",
        text::duration(last_sent),
        text::duration(first_answer)
    );
    let mut results = Vec::new();
    for (_, _, r) in timed {
        results.push(r?);
    }
    let all: Vec<&Subscription> = results.iter().flatten().collect();
    let granted: Vec<&Subscription> = all.iter().copied().filter(|s| s.refused().is_none()).collect();
    let refused: Vec<Option<&str>> = all.iter().filter_map(|s| s.refused().map(Some)).collect();
    let total = crate::attention::inspect::SUBSCRIPTIONS_TOTAL as usize;
    ensure!(
        granted.len() == total && refused.iter().all(|r| *r == Some("subscription-limit")),
        "{} subscriptions racing from {} realms: {} granted (want exactly {total}), refused with {} (want subscription-limit)",
        all.len(),
        callers.len(),
        granted.len(),
        text::list(&refused.iter().map(|r| r.unwrap_or("no reason")).collect::<Vec<_>>())
    );
    let top = host.subscription_total(&Realm::Top).await?;
    ensure!(top == total as u64, "the top's own total is {top}, with {total} granted");
    // A refused caller gets its subscription once one is disposed (and it has heard of the 127).
    let waiting = results
        .iter()
        .find(|s| s.iter().any(|x| x.refused().is_some()))
        .map(|s| s[0].realm.clone())
        .ok_or_else(|| anyhow::anyhow!("no caller was refused"))?;
    host.dispose(granted[0]).await?;
    total_seen(host, &waiting, |t| t < total as u64, "127 after a dispose").await?;
    let next = host.subscribe(&waiting, &["tree"], false).await?;
    ensure!(next.refused().is_none(), "after a dispose, the refused caller is refused again: {}", next.returned);
    Ok(format!(
        "{} racing from {} realms (all in flight together): {total} granted, {} refused (subscription-limit)",
        all.len(),
        callers.len(),
        refused.len()
    ))
}

/// Waits until `realm`'s runtime knows a Host subscription total that `ok` accepts.
async fn total_seen(host: &Host, realm: &Realm, ok: impl Fn(u64) -> bool, what: &str) -> anyhow::Result<u64> {
    let what = format!("the Host subscription total {what} reaching {realm}");
    super::wait_for(host, &what, super::POINTER_TIMEOUT, || async {
        let t = host.subscription_total(realm).await?;
        Ok(if ok(t) { super::Poll::Ready(t) } else { super::Poll::Pending(format!("host_total {t}")) })
    })
    .await
}

/// Trusted pointer moves for about 2.2 s at 60 Hz with a `cursor` subscription: no 1 s window
/// holds more than 10 notices, some are delivered, and the coalescing reports what it dropped.
pub async fn coalescing(host: &Host) -> anyhow::Result<String> {
    let sub = host.subscribe(&Realm::Top, &["cursor"], true).await?;
    ensure!(sub.refused().is_none(), "subscribe refused: {}", sub.returned);
    let truth = host.landmark_rect("left-leaf").await?;
    let started = std::time::Instant::now();
    let mut i = 0u32;
    while started.elapsed() < std::time::Duration::from_millis(2200) {
        let dx = f64::from(i % 40);
        host.move_to(truth.x + 4.0 + dx, truth.y + truth.height / 2.0).await?;
        i += 1;
    }
    let notices = super::wait_for(host, "cursor notices", super::POINTER_TIMEOUT, || async {
        let n = host.notices(&sub).await?;
        Ok(if n.len() >= 10 { super::Poll::Ready(n) } else { super::Poll::Pending(format!("{} notices", n.len())) })
    })
    .await?;
    let times: Vec<f64> = notices.iter().map(|(t, _)| *t).collect();
    let mut worst = 0;
    for (k, t) in times.iter().enumerate() {
        let in_window = times[k..].iter().take_while(|u| **u < t + 1000.0).count();
        worst = worst.max(in_window);
    }
    ensure!(worst <= 10, "{worst} notices within one second ({} moves sent)", i);
    let dropped = notices.iter().any(|(_, n)| n["dropped"].as_u64().is_some_and(|d| d > 0));
    ensure!(
        dropped,
        "{i} moves in 2.2 s and no notice reports dropped updates (the first: {})",
        text::opt(notices.first().map(|(_, n)| n))
    );
    host.dispose(&sub).await?;
    Ok(format!("{i} trusted moves, {} notices, at most {worst} per second, drops reported", notices.len()))
}

// ---------------------------------------------------------------------------------------------
// The verify rows.

/// A Host with 16 Child-origin child realms besides its own: real callers for the subscription limits.
pub fn sixteen_realms(options: HostOptions) -> HostOptions {
    options.extra(crate::host::Extra::Realms { count: 16, grandchildren: false })
}

/// The callers of [`subscription_limits`] on a [`sixteen_realms`] Host: the Host document first,
/// then its child realms.
pub fn callers() -> Vec<Realm> {
    std::iter::once(Realm::Top).chain(child_realms(16)).collect()
}

async fn continuation_row(host: &Host) -> anyhow::Result<String> {
    let a = match_limit(host).await?;
    let b = tree_limits(host).await?;
    let c = continuation_rules(host).await?;
    Ok(format!("{a}; {b}; {c}"))
}

/// The inspection rows of `verify`, each in the four cells.
pub fn checks() -> Vec<super::Check> {
    use super::{default_host, Check};
    vec![
        Check {
            host: default_host,
            name: "checklist-1-fresh-reads-work-with-attachments-off",
            run: |h| Box::pin(fresh_reads_with_attachments_off(h)),
        },
        Check { host: default_host, name: "inspection-css-differential", run: |h| Box::pin(css_differential(h)) },
        Check {
            host: default_host,
            name: "inspection-semantic-matches-ax-tree",
            run: |h| Box::pin(semantic_matches_ax(h)),
        },
        Check {
            host: default_host,
            name: "inspection-geometry-matches-box-model",
            run: |h| Box::pin(geometry_matches_box_model(h, &LEAVES)),
        },
        Check { host: default_host, name: "inspection-continuation-rules", run: |h| Box::pin(continuation_row(h)) },
        Check {
            host: sixteen_realms,
            name: "inspection-subscription-limits",
            run: |h| Box::pin(async move { subscription_limits(h, &callers()).await }),
        },
        Check {
            host: sixteen_realms,
            name: "inspection-subscriptions-racing-give-exactly-128",
            run: |h| {
                Box::pin(async move {
                    let children: Vec<Realm> = callers().into_iter().skip(1).take(9).collect();
                    subscriptions_racing(h, &children).await
                })
            },
        },
    ]
}
