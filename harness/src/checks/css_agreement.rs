//! CSS search against Chromium's own selector engine on selectors written from the grammar (issue
//! 43): every selector of [`super::css_grammar`] is given to `find({css, scope})` and to native
//! `querySelectorAll` on the same root, in every scope kind (open and closed ShadowRoot, Document)
//! and realm kind, called from the realm itself and from the top realm through the relay; a
//! selector native qSA throws on must be `invalid-request`, one naming a pseudo-class the spec
//! refuses (`:hover`) or a pseudo-element must be `invalid-request`, any other must give exactly
//! native's elements in document order over all its pages. Also: continuations through a child
//! realm to the end (no cap, always ending), a child realm's refusal keeping its code, and the time
//! per find beside native qSA's.

use anyhow::{anyhow, ensure, Context};
use serde_json::json;

use super::css_grammar::grammar_selectors;
use super::inspection::{document_of, frame_of, head, mount, realm_kinds, shadow_root_of, CssPair, Placement, ID_OF};
use crate::attention::inspect::NodesData;
use crate::attention::{NodeRef, Outcome, Reported};
use crate::host::{Frame, InspectOptions, Inspected, Realm};
use crate::report::text;
use crate::Host;

/// The grammar differential's tree.
pub const GRAMMAR_CORPUS: &str = include_str!("../../../fixtures/inspection/css-grammar.html");

/// Whether the spec refuses `selector` although Chromium parses it: it names `:hover` (a state
/// pseudo-class outside the spec's list) or a pseudo-element. (The grammar selectors use no other
/// pseudo-class the browser knows outside the list.)
pub fn spec_refuses(selector: &str) -> bool {
    let s = selector.to_ascii_lowercase();
    s.contains(":hover") || s.contains("::")
}

/// What one run compared, and how long each find took.
#[derive(Debug, Default)]
pub struct Agreement {
    /// Selector x scope pairs compared.
    pub pairs: usize,
    /// Pairs where the runtime answered exactly as expected (native's elements, or invalid-request).
    pub equal: usize,
    /// Pairs whose selector native qSA throws on (all must be invalid-request).
    pub native_invalid: usize,
    /// Disagreements, one line each.
    pub bad: Vec<String>,
    /// Milliseconds per find page, the runtime's and native qSA's (one call per selector).
    pub find_ms: Vec<f64>,
    pub native_ms: Vec<f64>,
    /// Distinct selectors compared, and those that disagree in at least one scope.
    pub selectors: std::collections::BTreeSet<String>,
    pub failing: std::collections::BTreeSet<String>,
}

impl Agreement {
    fn add(&mut self, other: Agreement) {
        self.pairs += other.pairs;
        self.equal += other.equal;
        self.native_invalid += other.native_invalid;
        self.bad.extend(other.bad);
        self.find_ms.extend(other.find_ms);
        self.native_ms.extend(other.native_ms);
        self.selectors.extend(other.selectors);
        self.failing.extend(other.failing);
    }

    /// `equal/pairs`, the invalid count and p50/p95 of both timings, for the test's output.
    pub fn summary(&self) -> String {
        format!(
            "{}/{} distinct selectors agree in every scope; {}/{} pairs equal ({} native-invalid); find p50 {:.2} ms p95 {:.2} ms, native qSA p50 {:.3} ms p95 {:.3} ms",
            self.selectors.len() - self.failing.len(),
            self.selectors.len(),
            self.equal,
            self.pairs,
            self.native_invalid,
            pct(&self.find_ms, 50.0),
            pct(&self.find_ms, 95.0),
            pct(&self.native_ms, 50.0),
            pct(&self.native_ms, 95.0)
        )
    }

    /// Fails with every disagreement when there is one.
    pub fn ensure_all_equal(&self, what: &str) -> anyhow::Result<()> {
        // Every selector that disagrees somewhere, each once, before the first lines in full.
        let mut distinct: Vec<&str> = Vec::new();
        for b in &self.bad {
            let sel = b.split_once(": ").map_or(b.as_str(), |(_, rest)| rest);
            let sel = sel.split_once("\": ").map_or(sel, |(s, _)| s);
            if !distinct.contains(&sel) {
                distinct.push(sel);
            }
        }
        ensure!(
            self.bad.is_empty(),
            "{what}: {} of {} pairs disagree with native querySelectorAll, {} selectors: {}\n{}",
            self.bad.len(),
            self.pairs,
            distinct.len(),
            distinct.join("\", ") + "\"",
            head(&self.bad, 40)
        );
        Ok(())
    }
}

fn pct(v: &[f64], p: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    let i = ((p / 100.0) * (s.len() - 1) as f64).round() as usize;
    s[i.min(s.len() - 1)]
}

/// Native qSA's node ids (or the exception's name) for every selector on the root `native_root`
/// (page script) in `realm`, and its time per call.
async fn native_side(
    host: &Host,
    realm: &Realm,
    native_root: &str,
    selectors: &[&str],
) -> anyhow::Result<Vec<(Result<Vec<String>, String>, f64)>> {
    let expr = format!(
        "(() => {{
            const idOf = {ID_OF};
            const root = {native_root};
            // Native time: ten calls per selector (one is below the timer's resolution).
            return {sels}.map((sel) => {{
                const t0 = performance.now();
                try {{
                    let found = null;
                    for (let i = 0; i < 10; i++) found = root.querySelectorAll(sel);
                    const ms = (performance.now() - t0) / 10;
                    return {{ ids: Array.from(found, idOf), ms }};
                }} catch (e) {{ return {{ error: String(e && e.name), ms: performance.now() - t0 }}; }}
            }});
        }})()",
        sels = json!(selectors),
    );
    let got = host.eval_in_frame(&frame_of(realm), &expr).await?;
    let arr = got.as_array().ok_or_else(|| anyhow!("native batch returned {got}"))?;
    Ok(arr
        .iter()
        .map(|item| {
            let ms = item["ms"].as_f64().unwrap_or(0.0);
            match item["ids"].as_array() {
                Some(ids) => (Ok(ids.iter().map(|v| v.as_str().unwrap_or("<no id>").to_string()).collect()), ms),
                None => (Err(item["error"].as_str().unwrap_or("?").to_string()), ms),
            }
        })
        .collect())
}

/// The runtime's pages for every selector (continuations followed to the end, at most `max_pages`;
/// a selector whose continuations do not end by then is reported as such), called in `realm`, and
/// the time of each selector's first page.
async fn runtime_side(
    host: &Host,
    realm: &Realm,
    scope: &NodeRef,
    selectors: &[&str],
    max_pages: usize,
) -> anyhow::Result<Vec<(Vec<Inspected<NodesData>>, bool, f64)>> {
    let expr = format!(
        "(async () => {{
            const a = window.$W.attention;
            const out = [];
            for (const sel of {sels}) {{
                const pages = [];
                let cont = null, ms = 0;
                do {{
                    const t0 = performance.now();
                    const r = await a.find({{ css: sel, scope: {scope} }}, cont ? {{ continuation: cont }} : {{}});
                    if (!pages.length) ms = performance.now() - t0;
                    pages.push(r);
                    cont = r && r.continuation;
                }} while (cont && pages.length < {max_pages});
                out.push({{ pages, ended: !cont, ms }});
            }}
            return out;
        }})()",
        sels = json!(selectors),
        scope = json!(scope),
    );
    let got = host.eval_in_frame(&frame_of(realm), &expr).await?;
    let arr = got.as_array().ok_or_else(|| anyhow!("find batch returned {got}"))?;
    let mut out = Vec::new();
    for (item, sel) in arr.iter().zip(selectors) {
        let mut pages = Vec::new();
        for p in item["pages"].as_array().cloned().unwrap_or_default() {
            let r: Inspected<NodesData> = Reported::parse_inspection(p)
                .map_err(|e| anyhow!("find({{css: {}}}) is not a strict InspectionResult: {e}", text::quote(sel)))?;
            pages.push(r);
        }
        out.push((pages, item["ended"].as_bool() == Some(true), item["ms"].as_f64().unwrap_or(0.0)));
    }
    Ok(out)
}

/// Selectors per page evaluation.
const CHUNK: usize = 100;

/// The selectors on one scope: the runtime called in `call`, native qSA in `native` on
/// `native_root`. `where_` names the pair in messages.
pub async fn compare(
    host: &Host,
    call: &Realm,
    scope: &NodeRef,
    native: &Realm,
    native_root: &str,
    selectors: &[&str],
    where_: &str,
) -> anyhow::Result<Agreement> {
    // In chunks: one page evaluation per chunk stays well within CDP's 30 s reply deadline on a
    // loaded machine (a single batch of 1,200 selectors through the relay did not).
    let mut nat = Vec::new();
    let mut run = Vec::new();
    for chunk in selectors.chunks(CHUNK) {
        nat.extend(native_side(host, native, native_root, chunk).await?);
        run.extend(runtime_side(host, call, scope, chunk, 4096).await?);
    }
    let mut a = Agreement::default();
    for ((sel, (native, nms)), (pages, ended, ms)) in selectors.iter().zip(nat).zip(run) {
        a.pairs += 1;
        a.native_ms.push(nms);
        a.find_ms.push(ms);
        if native.is_err() {
            a.native_invalid += 1;
        }
        let pair = CssPair { selector: sel.to_string(), native, pages };
        a.selectors.insert(sel.to_string());
        match verdict(&pair, ended) {
            None => a.equal += 1,
            Some(b) => {
                a.failing.insert(sel.to_string());
                a.bad.push(format!("{where_}: {b}"))
            }
        }
    }
    Ok(a)
}

/// None when the runtime answered `pair` as it must, else why not.
fn verdict(pair: &CssPair, ended: bool) -> Option<String> {
    let outcomes: Vec<&str> = pair.pages.iter().map(|r| r.outcome.as_str()).collect();
    let reasons: Vec<String> = pair.pages.iter().flat_map(|r| r.reasons().into_iter().map(str::to_string)).collect();
    let sel = &pair.selector;
    if !ended {
        return Some(format!("{}: continuations did not end after {} pages", text::quote(sel), pair.pages.len()));
    }
    let must_refuse = pair.native.is_err() || spec_refuses(sel);
    if must_refuse {
        let refused = pair.pages.len() == 1 && pair.pages[0].is_invalid_request();
        return (!refused).then(|| {
            format!(
                "{}: native {}, the runtime answered {}, omitted {} (expected invalid-request)",
                text::quote(sel),
                match &pair.native {
                    Err(e) => format!("throws {e}"),
                    Ok(_) => "accepts it but the spec refuses it".to_string(),
                },
                text::list(&outcomes),
                text::list(&reasons)
            )
        });
    }
    let native = pair.native.as_ref().ok()?;
    let last = pair.pages.last().map(|r| r.outcome);
    if !matches!(last, Some(Outcome::Ok | Outcome::Empty)) || !reasons.is_empty() {
        return Some(format!(
            "{}: outcome {}, omitted {} (native {} nodes; expected ok or empty, nothing omitted)",
            text::quote(sel),
            text::list(&outcomes),
            text::list(&reasons),
            native.len()
        ));
    }
    let runtime = pair.runtime_ids();
    if &runtime == native {
        return None;
    }
    let missed: Vec<_> = native.iter().filter(|n| !runtime.contains(n)).take(6).collect();
    let extra: Vec<_> = runtime.iter().filter(|n| !native.contains(n)).take(6).collect();
    Some(format!(
        "{}: native {} nodes, runtime {} (missed {}, extra {}{})",
        text::quote(sel),
        native.len(),
        runtime.len(),
        text::list_of(&missed),
        text::list_of(&extra),
        if missed.is_empty() && extra.is_empty() { ", order differs" } else { "" }
    ))
}

/// Every grammar selector (owned, for the batch calls).
fn grammar() -> Vec<String> {
    grammar_selectors().into_iter().map(|(_, s)| s).collect()
}

/// One selector in this many of each grammar class goes through the full Host
/// ([`grammar_sample`]); every selector runs on the one-document pages ([`grammar_on_one_document`]).
pub const SAMPLE_STRIDE: usize = 8;

/// The grammar selectors the full Host runs through every realm kind and the relay: of each class
/// (An+B, attribute, forgiving, `:has`, nesting, escape, namespace, structure) the first, every
/// [`SAMPLE_STRIDE`]th and the last, in the grammar's order. Matching is the realm's own (the
/// same module in every realm): every selector is proven on one-document pages; the full Host
/// proves that each class reaches every realm kind, from the realm and through the relay, alike.
pub fn grammar_sample() -> Vec<String> {
    let all = grammar_selectors();
    let mut out = Vec::new();
    let mut i = 0;
    while i < all.len() {
        let class = all[i].0;
        let end = all[i..].iter().position(|(c, _)| *c != class).map_or(all.len(), |n| i + n);
        for (k, (_, s)) in all[i..end].iter().enumerate() {
            if k % SAMPLE_STRIDE == 0 || i + k + 1 == end {
                out.push(s.clone());
            }
        }
        i = end;
    }
    out
}

/// The grammar selectors on the grammar tree under an open and a closed shadow root in `realm`,
/// called from the realm itself and, for a child realm, from the top realm through the relay.
pub async fn grammar_in_shadow_roots(
    host: &Host,
    kind: &str,
    realm: &Realm,
    sels: &[&str],
) -> anyhow::Result<Agreement> {
    let mut all = Agreement::default();
    for mode in ["open", "closed"] {
        let key = format!("grammar-{kind}-{mode}");
        let m = mount(host, realm, &key, GRAMMAR_CORPUS, mode, Placement::Tiny).await?;
        let root = format!("window.__inspRoots[{}]", json!(key));
        all.add(compare(host, realm, &m.scope, realm, &root, sels, &format!("{kind} {mode} root")).await?);
        if !matches!(realm, Realm::Top) {
            let top_scope = shadow_root_of(host, &Realm::Top, &m.host_node_id)
                .await
                .with_context(|| format!("the {mode} root in {kind} as the top realm sees it"))?;
            all.add(
                compare(host, &Realm::Top, &top_scope, realm, &root, sels, &format!("top -> {kind} {mode} root"))
                    .await?,
            );
        }
    }
    Ok(all)
}

/// A clean document (`page`: `css-doc.html`, `css-doc-quirks.html` or `css-doc.xhtml` of
/// pages/apps/) in a new iframe named `name` of `parent`'s document, its body the grammar tree;
/// ready when its runtime answers `getTree()`. -> the frame's realm.
pub async fn clean_document(host: &Host, parent: &Realm, name: &str, page: &str) -> anyhow::Result<Realm> {
    let expr = format!(
        "(async () => {{
            const f = document.createElement('iframe');
            f.name = {name};
            f.style.cssText = 'position:absolute;left:0;top:0;width:4px;height:4px;border:0;';
            const loaded = new Promise((res, rej) => {{ f.onload = res; setTimeout(() => rej(new Error('no load event of ' + {page})), 10000); }});
            f.src = location.origin + '/apps/' + {page};
            (document.getElementById('leaf-app') || document.body || document.documentElement).appendChild(f);
            await loaded;
            return f.contentDocument ? 'same-origin' : 'cross-origin';
        }})()",
        name = json!(name),
        page = json!(page),
    );
    host.eval_in_frame(&frame_of(parent), &expr).await.with_context(|| format!("loading {page} in {name}"))?;
    let realm = Realm::Frame(Frame::Name(name.to_string()));
    let mode = fill_with_grammar(host, &realm, page).await?;
    eprintln!("{name}: {page} is {mode}");
    Ok(realm)
}

/// Puts the grammar tree into the body of `realm`'s document (`page` names it in messages) and
/// waits until its runtime answers `getTree()`. -> the document's compat mode and content type.
async fn fill_with_grammar(host: &Host, realm: &Realm, page: &str) -> anyhow::Result<String> {
    let fill = format!(
        "(async () => {{
            document.body.innerHTML = {markup};
            const deadline = Date.now() + 10000;
            for (;;) {{
                const a = window.$W && window.$W.attention;
                const r = a ? await a.getTree(null, {{ depth: 0 }}) : null;
                if (r && r.outcome === 'ok') return document.compatMode + ' ' + document.contentType;
                if (Date.now() > deadline) throw new Error('the runtime of ' + {page} + ' never answered getTree: ' + JSON.stringify(r));
                await new Promise((res) => setTimeout(res, 50));
            }}
        }})()",
        markup = json!(GRAMMAR_CORPUS),
        page = json!(page),
    );
    let mode = host.eval_in_frame(&frame_of(realm), &fill).await.with_context(|| format!("filling {page}"))?;
    Ok(mode.as_str().unwrap_or("?").to_string())
}

/// The NodeRef of a child realm's node (`node_id`) as the top realm returns it (`find({node_id})`
/// through the relay), so the top realm can be asked about it.
async fn as_top_sees(host: &Host, node_id: &str, what: &str) -> anyhow::Result<NodeRef> {
    let found = host.find_node_id(&Realm::Top, node_id, &InspectOptions::default()).await?;
    found
        .data
        .nodes
        .first()
        .map(|n| n.node_ref.clone())
        .ok_or_else(|| anyhow!("the top realm does not find {what}: {}", found.json()))
}

/// The grammar selectors on a clean document's Document scope (and its open / closed shadow
/// roots), from the document's realm and from the top realm.
pub async fn grammar_in_document(host: &Host, label: &str, realm: &Realm, sels: &[&str]) -> anyhow::Result<Agreement> {
    let mut all = Agreement::default();
    let doc = document_of(host, realm).await?;
    all.add(compare(host, realm, &doc, realm, "document", sels, &format!("{label} document")).await?);
    if !matches!(realm, Realm::Top) {
        let top_doc = as_top_sees(host, &doc.node_id, &format!("the {label} document")).await?;
        all.add(
            compare(host, &Realm::Top, &top_doc, realm, "document", sels, &format!("top -> {label} document")).await?,
        );
    }
    all.add(grammar_in_shadow_roots(host, label, realm, sels).await?);
    Ok(all)
}

/// Every grammar selector on a one-document page ([`crate::HostOptions::document`]: `css-doc.html`,
/// `css-doc-quirks.html` or `css-doc.xhtml` alone, its realm the top realm): the document's body
/// filled with the grammar tree, then its Document scope and an open and a closed shadow root
/// holding the tree, each equal to native querySelectorAll or refused as it must be.
pub async fn grammar_on_one_document(host: &Host, page: &str) -> anyhow::Result<Agreement> {
    let mode = fill_with_grammar(host, &Realm::Top, page).await?;
    eprintln!("{page}: {mode}");
    let owned = grammar();
    let sels: Vec<&str> = owned.iter().map(String::as_str).collect();
    grammar_in_document(host, page, &Realm::Top, &sels).await
}

/// The grammar differential in every realm kind of the Host's cell (shadow roots, from itself and
/// from the top) and on clean documents (standards, quirks and XHTML in the Host document; a
/// standards document inside the third realm kind), all pairs reported together, with
/// [`grammar_sample`]'s selectors (every one runs on one-document pages, [`grammar_on_one_document`]).
pub async fn grammar_differential(host: &Host) -> anyhow::Result<Agreement> {
    let owned = grammar_sample();
    let sels: Vec<&str> = owned.iter().map(String::as_str).collect();
    let mut all = Agreement::default();
    let kinds = realm_kinds(host.engine);
    for rk in &kinds {
        all.add(grammar_in_shadow_roots(host, rk.kind, &rk.realm, &sels).await?);
    }
    for (name, page) in
        [("css-doc-std", "css-doc.html"), ("css-doc-quirks", "css-doc-quirks.html"), ("css-doc-xhtml", "css-doc.xhtml")]
    {
        let realm = clean_document(host, &Realm::Top, name, page).await?;
        all.add(grammar_in_document(host, name, &realm, &sels).await?);
    }
    if let Some(rk) = kinds.iter().find(|k| k.kind == "oopif") {
        let realm = clean_document(host, &rk.realm, "css-doc-in-oopif", "css-doc.html").await?;
        all.add(grammar_in_document(host, "css-doc-in-oopif", &realm, &sels).await?);
    }
    Ok(all)
}

/// `count` elements `<i class="m">` in a shadow root of `realm`, then for each selector of
/// [`CONTINUATION_SELECTORS`] (exactly 8, 9, 128, 129, 321 and all `count` matches) the full
/// list over every page, from the realm and from the top realm, equal to native qSA; every
/// continuation ends.
pub const CONTINUATION_SELECTORS: [&str; 6] = [
    ".m:nth-child(-n+8)",
    ".m:nth-child(-n+9)",
    ".m:nth-child(-n+128)",
    ".m:nth-child(-n+129)",
    ".m:nth-child(-n+321)",
    ".m",
];

pub async fn continuations_to_the_end(
    host: &Host,
    kind: &str,
    realm: &Realm,
    count: usize,
) -> anyhow::Result<Agreement> {
    let markup = "<i class=\"m\"></i>".repeat(count);
    let key = format!("many-{kind}");
    let m = mount(host, realm, &key, &markup, "closed", Placement::Tiny).await?;
    let root = format!("window.__inspRoots[{}]", json!(key));
    let mut all =
        compare(host, realm, &m.scope, realm, &root, &CONTINUATION_SELECTORS, &format!("{kind} itself")).await?;
    if !matches!(realm, Realm::Top) {
        let top_scope = shadow_root_of(host, &Realm::Top, &m.host_node_id).await?;
        all.add(
            compare(host, &Realm::Top, &top_scope, realm, &root, &CONTINUATION_SELECTORS, &format!("top -> {kind}"))
                .await?,
        );
    }
    Ok(all)
}

/// A child realm's refusal keeps its code through the top realm: CSS scoped to an element of the
/// child (not a Document or ShadowRoot) is `invalid-request` (`css-root-required`), as it is for an
/// element of the top realm itself, and an invalid selector on a child's root is `invalid-request`.
pub async fn child_refusal_keeps_its_code(host: &Host, kind: &str, realm: &Realm) -> anyhow::Result<String> {
    let m = mount(host, realm, &format!("refuse-{kind}"), "<p id=\"x\"></p>", "open", Placement::Tiny).await?;
    let el = as_top_sees(host, &m.host_node_id, &format!("the shadow host in {kind}")).await?;
    let on_element = host.find_css(&Realm::Top, "p", &el, &InspectOptions::default()).await?;
    ensure!(
        on_element.is_invalid_request()
            && on_element.omissions.iter().any(|o| o.detail.as_deref() == Some("css-root-required")),
        "CSS on an element of {kind} through the top realm: {}",
        on_element.json()
    );
    let top_scope = shadow_root_of(host, &Realm::Top, &m.host_node_id).await?;
    for bad in [":nth-child(n- 1 2)", "[foo='bar']i", ".5cm", "a:hover", "p::before"] {
        let r = host.find_css(&Realm::Top, bad, &top_scope, &InspectOptions::default()).await?;
        ensure!(
            r.is_invalid_request(),
            "{} on a root in {kind} through the top realm: {}, expected invalid-request",
            text::quote(bad),
            r.json()
        );
    }
    Ok(format!("{kind}: element scope css-root-required and 5 invalid selectors stay invalid-request through the top"))
}
