//! The Host sends `wippy.attention` version 4 (issue 21), end to end over Layout x Engine: the
//! runtime's v4 content expanded by `contract::codec` is the snapshot; a real drag, then Send,
//! stores a v4 attachment with the page's own selection; excluded and sensitive selections never
//! leave the realm; the composer's version follows the Session's reported handlers.

use anyhow::{ensure, Context};
use attention_harness::checks::envelope_v4::{
    self, require_admitted, require_sent_selection, require_v4_expands_to, send_after_drag, send_after_drag_with,
};
use attention_harness::checks::expand::expanded_snapshot;
use attention_harness::checks::session::{compose, composer_ready, session_id};
use attention_harness::checks::{selection, Leaf};
use attention_harness::contract::canonical::canonical_json;
use attention_harness::golden;

use attention_harness::server::session::SessionOptions;
use attention_harness::{run_host, run_host_opts, Engine, Extra, Harness, Host, HostOptions, Layout};
use rstest::rstest;
use serde_json::{json, Value};

#[rstest]
fn the_v4_envelope_of_the_boundary_snapshot_expands_to_it_and_the_session_admits_it(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| envelope_v4::envelope_v4_expands_to_the_snapshot(h).await.map(drop));
}

#[rstest]
fn a_drag_over_the_left_leaf_then_send_stores_a_v4_attachment_with_the_pages_selection(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| envelope_v4::checklist_4_v4_with_selection(h).await.map(drop));
}

#[rstest]
fn a_drag_in_the_oopif_leaf_then_send_stores_its_selection_with_the_oopif_path(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| {
        let sent = send_after_drag(h, "oopif-safe-text", "and this?", |s, t| {
            t.is_some_and(|t| {
                s.selection.as_ref().is_some_and(|x| x.text == envelope_v4::expected_selection_text(&t.text))
            })
        })
        .await?;
        require_sent_selection(&sent, &selection::leaf_kinds(h, Leaf::Oopif))
    });
}

/// A span in the Host document (setup by script; the selection itself is a real drag): text that is
/// selected whole by any drag over it (`user-select: all`).
async fn host_text(h: &Host, landmark: &str, text: &str) -> anyhow::Result<()> {
    let js = format!(
        "(() => {{ const d = document.createElement('div');
            d.style.cssText = 'position:fixed;left:8px;bottom:8px;width:420px;z-index:5;background:#fff;font:12px monospace;word-break:break-all';
            const s = document.createElement('span'); s.dataset.landmark = {landmark}; s.style.userSelect = 'all';
            s.textContent = {text}; d.append(s); document.body.append(d); return true; }})()",
        landmark = json!(landmark),
        text = json!(text)
    );
    h.eval(&js).await?;
    Ok(())
}

#[rstest]
fn a_drag_over_host_realm_text_then_send_stores_its_selection_with_the_host_path(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| {
        host_text(h, "v4-host-text", "Host realm words to select").await?;
        let sent = send_after_drag(h, "v4-host-text", "host text?", |s, t| {
            t.is_some_and(|t| {
                s.selection.as_ref().is_some_and(|x| x.text == envelope_v4::expected_selection_text(&t.text))
            })
        })
        .await?;
        require_sent_selection(&sent, &["host", "element"])
    });
}

#[test]
fn selection_text_of_1024_bytes_is_sent_whole_and_1025_is_cut_at_a_character_boundary() {
    run_host(Layout::Compat, Engine::Iframe, async |h| {
        // 1,022 ASCII + one 2-byte character = 1,024 bytes; one more ASCII byte in front = 1,025,
        // where byte 1,024 falls inside the last character.
        for (n, want_len) in [(1022usize, 1024usize), (1023, 1023)] {
            let text = format!("{}é", "a".repeat(n));
            let name = format!("v4-long-{n}");
            host_text(h, &name, &text).await?;
            let sent = send_after_drag(h, &name, "long", |s, t| {
                t.is_some_and(|t| {
                    s.selection.as_ref().is_some_and(|x| x.text == envelope_v4::expected_selection_text(&t.text))
                })
            })
            .await?;
            let truth = sent.truth.as_ref().context("no page selection")?;
            ensure!(truth.text == text, "the page selected {} bytes, not the span's {}", truth.text.len(), text.len());
            let got = &sent.snapshot.selection.as_ref().context("no selection")?.text;
            ensure!(got.len() == want_len, "{}-byte page selection sent as {} bytes", text.len(), got.len());
            ensure!(text.starts_with(got.as_str()), "the sent text is not a prefix of the page's");
            require_sent_selection(&sent, &["host", "element"])?;
            h.eval(&format!("(document.querySelector('[data-landmark={name}]').parentElement.remove(), true)")).await?;
        }
        Ok(())
    });
}

/// The password field's own selection, read in its frame (the Host document) through CDP
/// `Runtime.evaluate`: `(selectionStart, selectionEnd, value length, focused)`.
async fn password_selection(h: &Host) -> anyhow::Result<(u64, u64, u64, bool)> {
    let v = h
        .eval(
            "(() => { const f = document.querySelector('[data-landmark=host-privacy-probes] input[type=password]');
              return [f.selectionStart, f.selectionEnd, f.value.length, document.activeElement === f]; })()",
        )
        .await?;
    let n = |i: usize| v[i].as_u64().with_context(|| format!("the field's selection reads {v}"));
    Ok((n(0)?, n(1)?, n(2)?, v[3] == json!(true)))
}

/// Whether a snapshot says anything about a selection (the selection or a `selection-*` omission).
fn selection_news(s: &attention_harness::attention::Snapshot) -> Vec<String> {
    let mut news: Vec<String> =
        s.omissions.iter().map(|o| o.reason.as_str().to_string()).filter(|r| r.starts_with("selection-")).collect();
    if let Some(sel) = &s.selection {
        news.push(format!("selection {:?}", sel.text));
    }
    news
}

/// The password field first, on a Host with no selection yet (so its `selection-excluded` cannot
/// be left over from the probe): the drag really selects inside the field (its own
/// selectionStart/selectionEnd, before Send), a snapshot taken while it is selected carries
/// `selection-excluded` (selection.js: a selection inside a sensitive control is excluded) and no
/// selection, and nothing of it is stored. Then the excluded probe, which stays selected through
/// Send.
#[rstest]
fn a_selection_in_an_excluded_probe_or_a_password_field_never_leaves_the_realm(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| {
        for landmark in ["host-probe-password", "probe-exclude"] {
            let excluded = |s: &attention_harness::attention::Snapshot, _: Option<&_>| {
                s.omissions.iter().any(|o| o.reason.as_str() == "selection-excluded")
            };
            let sent = if landmark == "host-probe-password" {
                let news = selection_news(&*h.snapshot().await?);
                ensure!(news.is_empty(), "before the drag the snapshot already says {news:?}");
                send_after_drag_with(h, landmark, "private?", excluded, async || {
                    let (start, end, len, focused) = password_selection(h).await?;
                    ensure!(focused, "the password field does not have focus after the drag");
                    ensure!(
                        start < end && end <= len,
                        "the drag selected {start}..{end} of the field's {len} characters"
                    );
                    let snap = h.snapshot().await?;
                    let still = password_selection(h).await?;
                    ensure!(
                        still == (start, end, len, true),
                        "the field's selection changed during the snapshot: {still:?}"
                    );
                    ensure!(snap.selection.is_none(), "a snapshot carries the field's selection: {:?}", snap.selection);
                    let news = selection_news(&snap);
                    ensure!(news == ["selection-excluded"], "the snapshot says {news:?}, not selection-excluded alone");
                    Ok(())
                })
                .await?
            } else {
                let sent = send_after_drag(h, landmark, "private?", excluded).await?;
                // A selection in another document (or a range in this one) stays selected while
                // Send is clicked; a password field's selection ends when it loses focus.
                ensure!(
                    sent.snapshot.omissions.iter().any(|o| o.reason.as_str() == "selection-excluded"),
                    "{landmark}: no selection-excluded omission: {:?}",
                    sent.snapshot.omissions
                );
                sent
            };
            ensure!(sent.envelope.version == 4, "version {}", sent.envelope.version);
            ensure!(
                sent.snapshot.selection.is_none(),
                "{landmark}: a selection was stored: {:?}",
                sent.snapshot.selection
            );
            ensure!(!sent.stored_bytes.contains("CANARY"), "{landmark}: a canary reached the Session's stored bytes");
        }
        Ok(())
    });
}

/// The 30 KiB envelope target the runtime budgets v1 snapshots for
/// (pages/runtime/src/core/constants.js `ENVELOPE_TARGET_BYTES`).
const TARGET: usize = 30_720;
/// The v2-v4 envelope limit (16,384 canonical bytes; `contract::validate`
/// `ATTENTION_V2_MAX_ENVELOPE_BYTES` says where it comes from).
const COMPACT_LIMIT: usize = attention_harness::contract::validate::ATTENTION_V2_MAX_ENVELOPE_BYTES;

/// The deep page: the `grid` extra, 3x3 px buttons under eight nested panels with 256-byte labels
/// (every candidate's path repeats about 5 KiB of ancestry).
#[test]
fn within_16384_bytes_v4_keeps_more_candidates_than_v1_within_30_kib_on_a_deep_page() {
    run_host_opts(HostOptions::new(Layout::Compat, Engine::Iframe).extra(Extra::Grid), async |h| {
        let (x, y) = h.landmark_rect("grid-frame").await?.center();
        h.move_to_in_steps(x, y, 4).await?;
        let opts =
            |v: u64| json!({"point": {"x": x, "y": y}, "radius_css_px": 20, "step_css_px": 2, "attachment_version": v});
        let v1 = h.snapshot_with(opts(1)).await?;
        let v4 = h.snapshot_with(opts(4)).await?;
        let cut = |s: &attention_harness::attention::Snapshot| {
            s.omissions.iter().any(|o| o.reason.as_str() == "response-budget")
        };
        ensure!(cut(&v1), "v1 was not cut by response-budget: the page is not deep enough to prove anything");
        ensure!(
            v4.candidates.len() > v1.candidates.len(),
            "v4 keeps {} candidates, v1 {}",
            v4.candidates.len(),
            v1.candidates.len()
        );
        let of = require_v4_expands_to(h, &v4).await?;
        require_admitted(of.v4.json())?;
        let env1 = h.envelope(&v1).await?;
        require_admitted(env1.json())?;
        // Each envelope within its own limit: v1 the 30 KiB target, v4 the 16,384-byte v2-v4 limit.
        let (b1, b4) = (canonical_json(env1.json())?.len(), canonical_json(of.v4.json())?.len());
        ensure!(b1 <= TARGET, "v1 {b1} bytes: over the {TARGET}-byte target");
        ensure!(b4 <= COMPACT_LIMIT, "v4 {b4} bytes: over the {COMPACT_LIMIT}-byte v2-v4 limit");
        Ok(())
    });
}

/// Opens the reference Host (compat, iframe) against a Session started with `options`.
async fn with_session<F>(options: SessionOptions, body: F) -> anyhow::Result<()>
where
    F: AsyncFnOnce(&Host, &attention_harness::server::Server) -> anyhow::Result<()>,
{
    let harness = Harness::global();
    let server =
        attention_harness::server::Server::start_with(attention_harness::server::default_pages_dir(), options).await?;
    let cdp = harness.cdp().await?;
    let mut host =
        Host::open(&cdp, server.host_origin(), server.child_origin(), HostOptions::new(Layout::Compat, Engine::Iframe))
            .await?;
    host.session = Some(server.session().clone());
    let result = body(&host, &server).await;
    host.close().await;
    result
}

/// Automatic context stored as on (as a Session that listed version 4 when the user turned it on
/// would have it), then the composer rejoins and reads it. Setup: the toggle itself is refused by a
/// Session without version 4 (`ATTENTION_CONTEXT_CAPABILITY_UNAVAILABLE`).
async fn stored_automatic_on(host: &Host, server: &attention_harness::server::Server) -> anyhow::Result<String> {
    let sid = session_id(&composer_ready(host).await?)?;
    let patch = host.eval("window.__host.session.setAutomatic(true).then(r => r.status)").await?;
    ensure!(patch == json!(409), "enabling on a Session without version 4 answered {patch}");
    let store = attention_harness::server::session::store::Store::open(server.session().db_path())?;
    store.update_attention(&sid, None, true, golden::TIMESTAMP, "system")?;
    host.eval("window.__host.session.reconnect()").await?;
    let on = host.eval("window.__host.session.state.automatic").await?;
    ensure!(on == json!(true), "the composer does not see automatic context on: {on}");
    Ok(sid)
}

/// The composer writes the highest version the Session lists: v1 for a Session listing only 1, v2
/// or v3 when those are the newest; none of them carries the selection (`selection-unavailable`).
#[rstest]
#[case::only_version_1(vec![1], 1)]
#[case::up_to_version_2(vec![1, 2], 2)]
#[case::up_to_version_3(vec![1, 2, 3], 3)]
fn a_session_without_version_4_gets_its_highest_version_without_the_selection(
    #[case] versions: Vec<u64>,
    #[case] want: u64,
) {
    Harness::global()
        .block_on(with_session(
            SessionOptions { attention_versions: versions.clone(), ..Default::default() },
            async |h, server| {
                stored_automatic_on(h, server).await?;
                let support = h.eval("window.__host.session.state.support").await?;
                ensure!(support["attention_version"] == json!(want), "{versions:?}: the composer chose {support}");
                let sent =
                    send_after_drag(h, "left-leaf-text", "older Session", |s, t| t.is_some() && s.selection.is_some())
                        .await?;
                ensure!(
                    sent.envelope.version == want,
                    "{versions:?}: the Session got version {}",
                    sent.envelope.version
                );
                let content: Value = serde_json::from_str(&sent.envelope.content)?;
                ensure!(
                    content["schema"] == json!(format!("wippy.attention.v{want}"))
                        && content.get("selection").is_none(),
                    "{content}"
                );
                ensure!(sent.snapshot.selection.is_none(), "a v{want} attachment expanded to a selection");
                ensure!(
                    sent.snapshot.omissions.iter().any(|o| o.reason.as_str() == "selection-unavailable"),
                    "the v{want} content does not say selection-unavailable"
                );
                Ok(())
            },
        ))
        .unwrap();
}

#[test]
fn a_session_listing_no_known_version_refuses_pointing_context_and_sends_plain_messages() {
    for versions in [vec![], vec![5, 7]] {
        Harness::global()
            .block_on(with_session(
                SessionOptions { attention_versions: versions.clone(), ..Default::default() },
                async |h, server| {
                    let sid = stored_automatic_on(h, server).await?;
                    let support = h.eval("window.__host.session.state.support").await?;
                    ensure!(support["attention_version"].is_null(), "{versions:?}: the composer guessed {support}");
                    compose(h, "with context").await?;
                    let row = attention_harness::checks::session::enter_and_settle(h).await?;
                    ensure!(
                        row["delivery"] == "undelivered" && row["code"] == "attention_version_unsupported",
                        "{versions:?}: {row}"
                    );
                    ensure!(server.session().messages(&sid)?.is_empty(), "something was stored");
                    attention_harness::checks::session::set_automatic_context(h, &sid, false).await?;
                    compose(h, "plain").await?;
                    let row = attention_harness::checks::session::enter_and_settle(h).await?;
                    ensure!(row["delivery"] == "received" && row["transport"] == "none", "{row}");
                    let stored = server.session().messages(&sid)?;
                    ensure!(stored.len() == 1 && stored[0].attachments.is_empty(), "{stored:?}");
                    Ok(())
                },
            ))
            .unwrap();
    }
}

#[rstest]
fn boundary_snapshot_v4_form_matches_its_golden_and_expands_to_the_v1_golden(
    #[values(Layout::Managed, Layout::Compat)] layout: Layout,
    #[values(Engine::Iframe, Engine::Fragment)] engine: Engine,
) {
    run_host(layout, engine, async |h| {
        let (name, stable) = attention_harness::checks::sampling::boundary_for_golden(h).await?;
        let env = h.envelope_version(&stable, 4).await?;
        let (_, _) = expanded_snapshot(env.json())?;
        let v4: Value = serde_json::from_str(&env.content)?;
        let normalized = golden::normalize_compact(&v4).map_err(|e| anyhow::anyhow!(e))?;
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(golden::golden_dir().join("v4"));
        settings.set_prepend_module_to_snapshot(false);
        settings.set_omit_expression(true);
        settings.set_description(format!(
            "the v4 form of ../{name}.snap, normalized by harness/src/golden.rs; accept a change with {}",
            golden::ACCEPT
        ));
        settings.bind(|| insta::assert_snapshot!(name.clone(), serde_json::to_string_pretty(&normalized).unwrap()));
        // Expanded back, the v4 golden is the v1 golden.
        golden::v4_expands_to_v1_golden(&name).map_err(|e| anyhow::anyhow!("{e}"))
    });
}
