//! QA's own application pages in the Host (issue 40): a layout file's page panel with `src` (a folder
//! beside the layout file) is mounted as Wippy mounts a page (engine iframe: a cross-origin,
//! out-of-process iframe, or a same-origin one; engine fragment: a Web Fragment through the gateway),
//! with the runtime in every realm of it. What the runtime reports at a point inside the application
//! (the candidate's rect, role and name, its path) is compared with Chromium's box model, hit test and
//! accessibility tree; nothing outside the layout file's folder is served or accepted.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::cli_qa::{cli, layout_with_component};
use attention_harness::attention::SegmentKind;
use attention_harness::checks::snapshot_at;
use attention_harness::oracle::ax_facts;
use attention_harness::{run_host_opts, Engine, HostOptions, Layout};

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// The worked example's layout file with its panel mounted `origin` (None: the default).
fn signup_options(engine: Engine, origin: Option<&str>) -> HostOptions {
    signup_options_in(Layout::Managed, engine, origin)
}

/// [`signup_options`] in `layout`.
fn signup_options_in(layout: Layout, engine: Engine, origin: Option<&str>) -> HostOptions {
    let file = repo("fixtures/apps/signup.layout.json");
    let mut decl: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    if let Some(o) = origin {
        decl["layout"]["panels"]["signup"]["origin"] = o.into();
    }
    let folder = std::fs::canonicalize(file.parent().unwrap()).unwrap();
    HostOptions::new(layout, engine).declaration_in(decl.to_string(), folder)
}

/// The element `attr=value` of the application in panel `signup`: Chromium's box model, AX role and name, and its own
/// hit test at the box's centre must name it; the runtime's candidate there must agree, and its path
/// must run Host > panel > page > artifact > (iframe | web-fragment) ... as `realms` says; in compat
/// Host > panel `page-area` > artifact > ..., the artifact inside the page area's Chromium box.
async fn agrees_with_chromium(
    host: &attention_harness::Host,
    attr: &str,
    value: &str,
    realms: &[SegmentKind],
) -> anyhow::Result<()> {
    agrees_with_chromium_in(host, "signup", attr, value, realms).await
}

/// [`agrees_with_chromium`] for the application mounted in panel `panel`.
async fn agrees_with_chromium_in(
    host: &attention_harness::Host,
    panel: &str,
    attr: &str,
    value: &str,
    realms: &[SegmentKind],
) -> anyhow::Result<()> {
    let frames = host.frames();
    // An application renders when its own scripts run, and announces nothing: its element is
    // looked for until it is there (one animation frame apart, 5 s at most).
    let what = format!("the application's [{attr}={value}] in the page");
    let at = attention_harness::checks::wait_for(host, &what, Duration::from_secs(5), || async {
        Ok(match frames.locate_attr(attr, value).await? {
            Some(at) => attention_harness::checks::Poll::Ready(at),
            None => attention_harness::checks::Poll::Pending("not in any frame's document".into()),
        })
    })
    .await?;
    let rect = frames.node_rect(&at).await?;
    let ax = ax_facts(&at.session, at.backend_node_id).await?;
    let (x, y) = (rect.x + rect.width / 2.0, rect.y + rect.height / 2.0);
    let hit = frames.hit_at(x, y).await?.ok_or_else(|| anyhow::anyhow!("Chromium hits nothing at ({x}, {y})"))?;
    anyhow::ensure!(
        hit.session.id == at.session.id && hit.backend_node_id == at.backend_node_id,
        "Chromium's hit test at the centre of [{attr}={value}] is another node"
    );
    let snap = snapshot_at(host, x, y).await?;
    let top = snap.pointer.as_ref().and_then(|p| p.candidate_ids.first()).cloned().unwrap_or_default();
    let c = snap
        .candidates
        .iter()
        .find(|c| c.target_id == top)
        .ok_or_else(|| anyhow::anyhow!("no candidate under the pointer at ({x}, {y}): {}", snap.json()))?;
    anyhow::ensure!(
        c.summary.role.as_deref() == Some(ax.role.as_str()) && c.summary.name.as_deref() == Some(ax.name.as_str()),
        "[{attr}={value}]: the runtime says {:?} {:?}, Chromium's AX tree {:?} {:?}",
        c.summary.role,
        c.summary.name,
        ax.role,
        ax.name
    );
    let near = |a: f64, b: f64| (a - b).abs() <= 0.5;
    anyhow::ensure!(
        near(c.rect.x, rect.x)
            && near(c.rect.y, rect.y)
            && near(c.rect.width, rect.width)
            && near(c.rect.height, rect.height),
        "[{attr}={value}]: the runtime's rect {:?} is not Chromium's box {rect:?}",
        c.rect
    );
    let kinds: Vec<SegmentKind> = c.path.iter().map(|s| s.kind).collect();
    let compat = host.options().layout() == Layout::Compat;
    // Compat has no page boundary: the application is an artifact straight in the page area.
    let mut want = if compat {
        vec![SegmentKind::Host, SegmentKind::Panel, SegmentKind::Artifact]
    } else {
        vec![SegmentKind::Host, SegmentKind::Panel, SegmentKind::Page, SegmentKind::Artifact]
    };
    let artifact = want.len() - 1;
    want.extend_from_slice(realms);
    anyhow::ensure!(
        kinds.starts_with(&want) && kinds.last() == Some(&SegmentKind::Element),
        "[{attr}={value}]: path {kinds:?} does not run through {want:?} to the element"
    );
    let panel_mount = if compat { "panel-page-area".to_string() } else { format!("panel-{panel}") };
    anyhow::ensure!(
        c.path[1].mount_id == panel_mount
            && c.path[artifact].artifact_id.as_deref() == Some(format!("app-{panel}").as_str()),
        "[{attr}={value}]: path {:?}",
        c.path
    );
    if compat {
        // The mount lies inside the page area's Chromium box, and the element inside the mount's;
        // the runtime's panel and artifact segments are those boxes.
        let boxed = |a: &str, v: &str| {
            let (a, v) = (a.to_string(), v.to_string());
            async move {
                let at =
                    frames.locate_attr(&a, &v).await?.ok_or_else(|| anyhow::anyhow!("no [{a}={v}] in the Host"))?;
                anyhow::Ok(frames.node_rect(&at).await?)
            }
        };
        let area = boxed("data-landmark", "page-area").await?;
        let mount = boxed("data-wippy-mount-id", &format!("artifact-app-{panel}")).await?;
        let inside = |i: &attention_harness::oracle::BoxRect, o: &attention_harness::oracle::BoxRect| {
            i.x >= o.x - 0.5
                && i.y >= o.y - 0.5
                && i.x + i.width <= o.x + o.width + 0.5
                && i.y + i.height <= o.y + o.height + 0.5
        };
        anyhow::ensure!(
            mount.width > 0.0 && mount.height > 0.0 && inside(&mount, &area) && inside(&rect, &mount),
            "[{attr}={value}]: the element {rect:?} in the mount {mount:?} in the page area {area:?}"
        );
        for (segment, chromium) in [(&c.path[1], &area), (&c.path[artifact], &mount)] {
            let r = segment.rect.as_ref().ok_or_else(|| anyhow::anyhow!("segment {segment:?} has no rect"))?;
            anyhow::ensure!(
                near(r.x, chromium.x)
                    && near(r.y, chromium.y)
                    && near(r.width, chromium.width)
                    && near(r.height, chromium.height),
                "[{attr}={value}]: the runtime's {} segment {r:?} is not Chromium's box {chromium:?}",
                segment.mount_id
            );
        }
    }
    Ok(())
}

/// The worked example mounted through `realm` (an iframe or a web-fragment segment): at the form's
/// button, the link in the app's own iframe and the plan button in the closed shadow root its module
/// attaches (seen only when the runtime ran first), the runtime agrees with Chromium
/// ([`agrees_with_chromium`]), and `css:signup:button` names the form's button.
async fn signup_agrees_with_chromium(host: &attention_harness::Host, realm: SegmentKind) -> anyhow::Result<()> {
    use SegmentKind::{Iframe, ShadowRoot, WebComponent};
    agrees_with_chromium(host, "id", "create", &[realm]).await?;
    agrees_with_chromium(host, "id", "support", &[realm, Iframe]).await?;
    agrees_with_chromium(host, "class", "plan", &[realm, WebComponent, ShadowRoot]).await?;
    let create = host.frames().locate_attr("id", "create").await?.ok_or_else(|| anyhow::anyhow!("no #create"))?;
    let got = host.locate_landmark("css:signup:button").await?;
    anyhow::ensure!(
        got.session.id == create.session.id && got.backend_node_id == create.backend_node_id,
        "css:signup:button is not the application's #create"
    );
    Ok(())
}

#[test]
fn an_application_page_from_a_folder_agrees_with_chromium_in_every_mount() {
    use SegmentKind::{Iframe, WebFragment};
    let cells: [(Engine, Option<&str>, SegmentKind); 3] =
        [(Engine::Iframe, None, Iframe), (Engine::Iframe, Some("same"), Iframe), (Engine::Fragment, None, WebFragment)];
    for (engine, origin, realm) in cells {
        run_host_opts(signup_options(engine, origin), async |host| {
            // The runtime ran first in the application's document and in its own iframe.
            signup_agrees_with_chromium(host, realm).await
        });
    }
}

/// The cross-origin mount really is out of process, the same-origin one is not, and the runtime ran
/// before the application's own scripts in both.
#[test]
fn an_application_page_is_mounted_cross_origin_out_of_process_by_default_and_same_origin_on_request() {
    for (origin, oopif) in [(None, true), (Some("same"), false)] {
        run_host_opts(signup_options(Engine::Iframe, origin), async |host| {
            let children = host.frames().child_targets();
            let app = children.iter().any(|c| c.url.contains("/qa/file-") && c.url.ends_with("/signup/"));
            anyhow::ensure!(app == oopif, "origin {origin:?}: out-of-process frames {children:?}");
            Ok(())
        });
    }
}

/// A scratch folder under target/ holding a layout file whose `signup` panel names `src`.
fn layout_with_src(name: &str, src: &str) -> PathBuf {
    let dir = repo(&format!("target/qa-apps-tests/{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("app")).unwrap();
    std::fs::write(dir.join("app/index.html"), "<!doctype html><title>app</title><p>app</p>").unwrap();
    let text = std::fs::read_to_string(repo("fixtures/apps/signup.layout.json")).unwrap().replace("signup/", src);
    std::fs::write(dir.join("layout.json"), text).unwrap();
    dir
}

#[test]
fn a_src_outside_the_layout_files_folder_is_refused_up_front_through_dotdot_or_a_symbolic_link() {
    let refused = |dir: &Path, names: &[&str]| {
        let file = dir.join("layout.json");
        super::cli_qa::refused(
            &["snapshot", "--point", "panel-signup", "--layout-file", file.to_str().unwrap()],
            names,
        );
    };
    // `..` above the folder: the Host's own rule, no file system needed.
    let dir = layout_with_src("dotdot", "../outside/");
    refused(&dir, &["src-outside", "src `../outside/` must be a path inside the layout file's folder"]);
    // `..` that stays inside is fine, up to the file system check.
    let dir = layout_with_src("dotdot-inside", "app/../app/");
    let file = dir.join("layout.json");
    attention_harness::qa::LayoutFile::load(&repo("pages"), &file, (1280, 720)).expect("app/../app/ is inside");
    // A symbolic link inside the folder that leads outside it.
    let dir = layout_with_src("symlink", "escape/");
    let outside = repo("target/qa-apps-tests/outside-of-symlink");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("index.html"), "<p>secret</p>").unwrap();
    std::os::unix::fs::symlink(&outside, dir.join("escape")).unwrap();
    refused(&dir, &["src-outside", "src `escape/` leads to", "outside the layout file's folder"]);
    // A folder without index.html, and a path that does not exist.
    let dir = layout_with_src("missing", "nothing-here/");
    refused(&dir, &["missing-src", "src `nothing-here/` does not exist"]);
    let dir = layout_with_src("absolute", "/etc/");
    refused(&dir, &["src-outside"]);
}

/// The server serves a layout file's folder and nothing beside it: not through `..`, not through a
/// symbolic link inside it that leads outside.
#[test]
fn nothing_outside_the_layout_files_folder_is_served() {
    let dir = layout_with_src("served", "app/");
    let outside = repo("target/qa-apps-tests/outside-of-served");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "SECRET").unwrap();
    std::os::unix::fs::symlink(outside.join("secret.txt"), dir.join("app/link.txt")).unwrap();
    std::fs::write(dir.join("app/own.txt"), "OWN").unwrap();
    let h = attention_harness::Harness::global();
    h.block_on(async {
        let server = attention_harness::server::Server::start(repo("pages")).await.unwrap();
        server.serve_folder("t", &dir);
        for origin in [server.host_origin().to_string(), server.child_origin().to_string()] {
            let get = |path: &str| {
                let url = format!("{origin}{path}");
                async move {
                    let (status, body) = http_get(&url).await;
                    (status, body)
                }
            };
            let (s, body) = get("/qa/t/app/own.txt").await;
            assert_eq!((s, body.as_str()), (200, "OWN"));
            let (s, body) = get("/qa/t/app/").await;
            assert!(s == 200 && body.contains("/runtime/attention.js") && body.contains("<p>app</p>"), "{s} {body}");
            for bad in [
                "/qa/t/app/link.txt",
                "/qa/t/../outside-of-served/secret.txt",
                "/qa/t/%2e%2e/outside-of-served/secret.txt",
                "/qa/other/app/own.txt",
            ] {
                let (s, body) = get(bad).await;
                assert!(s >= 400 && !body.contains("SECRET"), "{bad}: {s} {body}");
            }
            let (s, body) = get("/fragments/qa/t/app/link.txt").await;
            assert!(s >= 400 && !body.contains("SECRET"), "fragment route: {s} {body}");
        }
    });
}

/// A bare HTTP/1.1 GET (the path sent as it is, not normalized by a client library).
async fn http_get(url: &str) -> (u16, String) {
    http_get_with(url, "").await
}

/// [`http_get`] with extra header lines (each ending in `\r\n`).
async fn http_get_with(url: &str, headers: &str) -> (u16, String) {
    let (status, _, body) = http_request("GET", url, headers, "").await;
    (status, body)
}

/// One HTTP/1.1 request over a fresh connection: the status, the head and the body of the answer.
async fn http_request(method: &str, url: &str, headers: &str, body: &str) -> (u16, String, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let rest = url.strip_prefix("http://").unwrap();
    let (authority, path) = rest.split_at(rest.find('/').unwrap());
    let addr = authority.replace("localhost", "127.0.0.1");
    let mut s = tokio::net::TcpStream::connect(&addr).await.unwrap();
    let length = if method == "GET" { String::new() } else { format!("Content-Length: {}\r\n", body.len()) };
    s.write_all(
        format!("{method} {path} HTTP/1.1\r\nHost: {authority}\r\n{headers}{length}Connection: close\r\n\r\n{body}")
            .as_bytes(),
    )
    .await
    .unwrap();
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).await.unwrap();
    let text = String::from_utf8_lossy(&buf).to_string();
    let status = text.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    let (head, body) = text.split_once("\r\n\r\n").map(|(h, b)| (h.to_string(), b.to_string())).unwrap_or_default();
    (status, head, body)
}

/// A request that is not a GET or HEAD to a proxied path is refused 405 naming what is allowed, and
/// never reaches the upstream (`requests` counts what it was asked).
async fn post_is_refused_before_the_upstream(url: &str, requests: impl Fn() -> usize) {
    let asked = requests();
    for method in ["POST", "PUT", "DELETE", "PATCH"] {
        let (s, head, body) =
            http_request(method, url, "Content-Type: application/x-www-form-urlencoded\r\n", "a=1").await;
        assert!(
            s == 405 && head.to_ascii_lowercase().contains("allow: get, head") && body.contains("GET and HEAD only"),
            "{method} {url}: {s} {head} {body}"
        );
    }
    assert_eq!(requests(), asked, "a refused request to {url} reached the upstream");
}

/// The backend node id of `expr`'s element in the Host document (the page's main world).
async fn host_element(host: &attention_harness::Host, expr: &str) -> anyhow::Result<i64> {
    let page = host.frames().page();
    let reply = page.evaluate_handle(expr, None).await?;
    let object = reply.pointer("/result/objectId").and_then(serde_json::Value::as_str);
    let object = object.ok_or_else(|| anyhow::anyhow!("{expr} is no element in the Host: {reply}"))?;
    let desc = page.call("DOM.describeNode", serde_json::json!({"objectId": object})).await?;
    desc.pointer("/node/backendNodeId").and_then(serde_json::Value::as_i64).ok_or_else(|| anyhow::anyhow!("{desc}"))
}

/// `css:` landmarks on the worked example, mounted cross-origin out of process and as a Web
/// Fragment: each resolves to the element Chromium's own lookups name (the pierced DOM's `id`, the
/// Host document's native `querySelector`), in the Host first, then in the application's realm, then
/// in the application's own iframe nested in it; the point a command samples there is that element
/// in Chromium's hit test and the runtime's candidate is its AX role and name; what resolves to
/// nothing is a typed error naming why.
#[test]
fn css_landmarks_name_chromiums_first_match_across_the_host_and_every_realm() {
    use attention_harness::frames::CssProblem;
    use attention_harness::scenario::run::visible_centre;
    for engine in [Engine::Iframe, Engine::Fragment] {
        run_host_opts(signup_options(engine, None), async |host| {
            let frames = host.frames();
            // The application renders from its own scripts: wait for its nested iframe's link.
            let support = attention_harness::checks::wait_for(
                host,
                "the application's help link (#support)",
                Duration::from_secs(5),
                || async {
                    Ok(match frames.locate_attr("id", "support").await? {
                        Some(at) => attention_harness::checks::Poll::Ready(at),
                        None => attention_harness::checks::Poll::Pending("not in any frame's document".into()),
                    })
                },
            )
            .await?;
            let by_id = |id: &'static str| async move {
                frames.locate_attr("id", id).await?.ok_or_else(|| anyhow::anyhow!("no #{id} in any frame"))
            };
            let create = by_id("create").await?;
            let plans = by_id("plans").await?;
            let same = |a: &attention_harness::oracle::Located, b: &attention_harness::oracle::Located| {
                a.session.id == b.session.id && a.backend_node_id == b.backend_node_id
            };
            for (name, want, hit) in [
                ("css:#create", &create, true),
                // Panel scope: the app's first button (the plan buttons are in a closed shadow root).
                ("css:signup:button", &create, true),
                // Nothing in the Host or the app's document: the app's own iframe, nested in its realm.
                ("css:signup:a", &support, true),
                ("css:#support", &support, true),
                ("css:plan-picker", &plans, false),
            ] {
                let got = host.locate_landmark(name).await?;
                anyhow::ensure!(same(&got, want), "{engine:?} {name}: another element than Chromium's");
                let rect = frames.node_rect(want).await?;
                anyhow::ensure!(host.landmark_rect(name).await? == rect, "{engine:?} {name}: rect");
                if hit {
                    let (x, y) = visible_centre(host, name).await?;
                    let h = frames.hit_at(x, y).await?.ok_or_else(|| anyhow::anyhow!("{name}: no hit"))?;
                    anyhow::ensure!(
                        h.session.id == want.session.id && h.backend_node_id == want.backend_node_id,
                        "{engine:?} {name}: Chromium hits another node at ({x}, {y})"
                    );
                }
            }
            // The runtime's candidate at a css: landmark is Chromium's AX node there.
            let (x, y) = visible_centre(host, "css:signup:button").await?;
            let snap = snapshot_at(host, x, y).await?;
            let top = snap.pointer.as_ref().and_then(|p| p.candidate_ids.first()).cloned().unwrap_or_default();
            let c =
                snap.candidates.iter().find(|c| c.target_id == top).ok_or_else(|| anyhow::anyhow!("no candidate"))?;
            let ax = host.landmark_ax("css:signup:button").await?;
            anyhow::ensure!(
                c.summary.role.as_deref() == Some(ax.role.as_str())
                    && c.summary.name.as_deref() == Some("Create account")
                    && ax.name == "Create account",
                "{engine:?}: the runtime says {:?} {:?}, Chromium's AX tree {ax:?}",
                c.summary.role,
                c.summary.name
            );
            // The Host first: `button` matches in the Host (its composer) before the application.
            let host_button = host_element(host, "document.querySelector('button')").await?;
            let got = host.locate_landmark("css:button").await?;
            anyhow::ensure!(
                got.session.id == frames.page().id && got.backend_node_id == host_button,
                "{engine:?}: css:button is not the Host document's first button"
            );
            // What names nothing is a typed error.
            let problem = |r: Result<_, attention_harness::HostError>| match r {
                Err(attention_harness::HostError::CssLandmark { problem, .. }) => Ok(problem),
                Err(e) => Err(anyhow::anyhow!("another error: {e}")),
                Ok(_) => Err(anyhow::anyhow!("resolved")),
            };
            let e = problem(host.locate_landmark("css:#no-such-element").await)?;
            anyhow::ensure!(matches!(e, CssProblem::NoMatch { realms: 3.., .. }), "{engine:?}: {e}");
            let e = problem(host.locate_landmark("css:signup:button[").await)?;
            anyhow::ensure!(matches!(e, CssProblem::InvalidSelector { .. }), "{engine:?}: {e}");
            let e = problem(host.locate_landmark("css:sidebar:button").await)?;
            anyhow::ensure!(
                matches!(&e, CssProblem::NoPanel { panel, panels, .. } if panel == "sidebar" && panels.contains(&"signup".to_string())),
                "{engine:?}: {e}"
            );
            // A wait-for step: a selector Chromium refuses fails at once with that typed message; a
            // valid one that matches nothing waits its whole timeout (the boundary between the two).
            if matches!(engine, Engine::Iframe) {
                // How long the step took and the message it failed with.
                let wait_for = async |landmark: &str, timeout: Duration| {
                    let started = std::time::Instant::now();
                    let r = attention_harness::scenario::run::wait_for_landmark(host, landmark, timeout).await;
                    (started.elapsed(), r.err().map(|e| e.to_string()).unwrap_or_default())
                };
                let (took, err) = wait_for("css:signup:button[", Duration::from_secs(10)).await;
                anyhow::ensure!(
                    took < Duration::from_secs(2) && err.contains("is not a selector Chromium accepts"),
                    "wait-for an invalid selector: after {took:?}: {err:?}"
                );
                let wait = Duration::from_millis(600);
                let (took, err) = wait_for("css:#no-such-element", wait).await;
                anyhow::ensure!(
                    took >= wait && err.contains("did not happen within") && err.contains("nothing matches"),
                    "wait-for a selector matching nothing: after {took:?}: {err:?}"
                );
            }
            Ok(())
        });
    }
}

/// `snapshot --point css:...`: checked before a browser starts (a panel prefix naming no panel of
/// the layout file, exit 2), resolved live on the open Host, and a selector that
/// matches nothing ends with the typed error, exit 2.
#[test]
fn the_cli_samples_at_a_css_landmark_and_refuses_one_that_names_nothing() {
    let file = "fixtures/apps/signup.layout.json";
    let (out, _, launched) = crate::cli_support::run_expecting_no_launch(&[
        "snapshot",
        "--layout-file",
        file,
        "--point",
        "css:sidebar:#create",
    ]);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(!launched, "a browser was started before the refusal: {err}");
    assert!(err.contains("no panel \u{201c}sidebar\u{201d} (panels: chat, nav, signup)"), "{err}");

    let (out, _) = cli(&["snapshot", "--layout-file", file, "--engine", "fragment", "--point", "css:signup:#create"]);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(0), "{err}");
    let snap: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let top = snap.pointer("/pointer/candidate_ids/0").cloned().unwrap_or_default();
    let c = snap["candidates"].as_array().unwrap().iter().find(|c| c["target_id"] == top).cloned();
    assert_eq!(c.as_ref().and_then(|c| c.pointer("/summary/name")), Some(&"Create account".into()), "{snap}");

    // A scenario points at it too, in both engines.
    let dir = repo("target/qa-apps-tests/css-scenario");
    std::fs::create_dir_all(&dir).unwrap();
    let scenario = dir.join("css.json");
    let steps = serde_json::json!({"layout_file": repo(file), "engines": ["iframe", "fragment"], "steps": [
        {"do": "open"},
        {"do": "move", "at": "css:signup:#create"},
        {"do": "expect", "top": {"role": "button", "name": "Create account"}},
        {"do": "move", "at": {"landmark": "css:#support", "fx": 0.25}},
        {"do": "expect", "top": {"role": "link", "name": "Contact support"}}
    ]});
    std::fs::write(&scenario, steps.to_string()).unwrap();
    let (out, _) = cli(&["replay", scenario.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));

    // An open step with its own view: the app's breakpoint edge (x 430 at 1000x600) only exists in
    // that view; at the scenario's 1280x720 the form and the picker are stacked.
    let scenario = dir.join("open-view.json");
    let steps = serde_json::json!({"layout_file": repo(file), "engines": ["iframe"], "steps": [
        {"do": "open"},
        {"do": "move", "at": [432, 230]},
        {"do": "expect", "top": {"role": "form", "name": "Sign up"}},
        {"do": "open", "viewport": "1000x600"},
        {"do": "move", "at": [432, 230]},
        {"do": "expect", "top": {"role": "group", "name": "Plans"}},
        {"do": "move", "at": [428, 230]},
        {"do": "expect", "top": {"role": "form", "name": "Sign up"}}
    ]});
    std::fs::write(&scenario, steps.to_string()).unwrap();
    let (out, _) = cli(&["replay", scenario.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));

    let (out, _) = cli(&["snapshot", "--layout-file", file, "--point", "css:.no-such-class"]);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("nothing matches \u{201c}.no-such-class\u{201d} in the Host or any realm"), "{err}");
}

/// A scratch folder under target/ holding a layout file whose `signup` panel is `{"kind": "page",
/// "url": url}`; the file's path.
fn layout_with_url(name: &str, url: &str) -> PathBuf {
    let dir = repo(&format!("target/qa-apps-tests/{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut decl: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(repo("fixtures/apps/signup.layout.json")).unwrap()).unwrap();
    decl["layout"]["panels"]["signup"] = serde_json::json!({"kind": "page", "url": url});
    let file = dir.join("layout.json");
    std::fs::write(&file, serde_json::to_string_pretty(&decl).unwrap()).unwrap();
    file
}

/// The worked example served by a separate server (tests/app_server.rs, not the harness's), mounted
/// by url: a cross-origin, out-of-process iframe of that server's origin, with the runtime injected
/// through CDP before the application's scripts (the closed shadow root its module script attaches is
/// seen) in its document and in its own iframe; the candidate at the form's button, the link in the
/// app's iframe and the closed-shadow plan button agrees with Chromium's box model, hit test and AX
/// tree, and a css: landmark reaches into it.
#[test]
fn an_application_served_elsewhere_by_url_agrees_with_chromium_with_the_runtime_injected() {
    let server = super::app_server::AppServer::start(&repo("fixtures/apps/signup"));
    let file = layout_with_url("url", &server.url());
    let checked = attention_harness::qa::LayoutFile::load(&repo("pages"), &file, (1280, 720)).expect("it answers");
    assert_eq!(checked.url_pages, ["signup"]);
    let options = HostOptions::new(Layout::Managed, Engine::Iframe).declaration_in(checked.json, checked.folder);
    run_host_opts(options, async |host| {
        let children = host.frames().child_targets();
        anyhow::ensure!(
            children.iter().any(|c| c.url == server.url()),
            "no out-of-process frame at {}: {children:?}",
            server.url()
        );
        signup_agrees_with_chromium(host, SegmentKind::Iframe).await
    });
}

/// The worked example served by a separate server (tests/app_server.rs), mounted by url with engine
/// fragment: the gateway proxies it (the Web Fragment's content fetch, its script, style and own
/// iframe all come through `/fragments/qa-url/` and `/qa-url/` under the Host's origin, none is an
/// out-of-process frame of the server), and the candidate at the form's button, the link in the
/// app's own iframe and the closed-shadow plan button (seen only when the runtime ran before the
/// module) agrees with Chromium's box model, hit test and AX tree, with the path Host > panel >
/// page > artifact > web-fragment ... > element.
#[test]
fn an_application_served_elsewhere_by_url_is_proxied_as_a_web_fragment_and_agrees_with_chromium() {
    use SegmentKind::WebFragment;
    let server = super::app_server::AppServer::start(&repo("fixtures/apps/signup"));
    let file = layout_with_url("url-as-fragment", &server.url());
    let options = checked_options(&file, Engine::Fragment);
    let name = options.served_declaration().map(|(n, _)| n.to_string()).unwrap();
    run_host_opts(options, async |host| {
        let children = host.frames().child_targets();
        anyhow::ensure!(
            !children.iter().any(|c| c.url.starts_with(&server.url())),
            "an out-of-process frame of the upstream server: {children:?}"
        );
        signup_agrees_with_chromium(host, WebFragment).await?;
        let seen = attention_harness::Harness::global().server().requests();
        let route = format!("/fragments/qa-url/{name}/signup/");
        let through = |path: &str, fragment: bool| {
            seen.iter().any(|r| r.path == path && r.status == 200 && r.fragment_id.is_some() == fragment)
        };
        anyhow::ensure!(
            through(&route, true) && through(&route, false),
            "the content fetch and the realm stub of {route} did not come through the gateway: {seen:?}"
        );
        for file in ["signup.js", "plan-picker.js", "app.css", "help.html"] {
            let path = format!("/qa-url/{name}/signup/{file}");
            anyhow::ensure!(through(&path, false), "{path} was not proxied: {seen:?}");
        }
        Ok(())
    });
}

/// A layout file mounting `url` as the page panel `signup`, with `routes` when given.
fn layout_with_url_routes(name: &str, url: &str, routes: Option<&[&str]>) -> PathBuf {
    let file = layout_with_url(name, url);
    if let Some(routes) = routes {
        let mut decl: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        decl["layout"]["panels"]["signup"]["routes"] = serde_json::json!(routes);
        std::fs::write(&file, serde_json::to_string_pretty(&decl).unwrap()).unwrap();
    }
    file
}

/// An application that names its stylesheet, its script and its data from its server's root
/// (fixtures/apps/rooted: `/assets/app.css`, `/assets/app.js`, `fetch('/data/label.txt')`, as a
/// Vite build with base "/" does), mounted by url (`/app/`) with engine fragment. Without `routes`
/// the file is accepted, its document comes through the gateway, and those root-relative requests
/// reach the Host, which answers 404: the button is never rendered. With `"routes": ["/assets/",
/// "/data/"]` the Host proxies them to the application's server at the same path (its log shows the
/// gateway asked for each), the stylesheet sizes the button (Chromium's box is its 240 x 48 px), and
/// the candidate at the button agrees with Chromium's box model, hit test and AX tree (its name the
/// fetched label), in the managed and the compat layout. The run without routes goes first: routes belong to the server from the moment
/// a layout declaring them is served.
#[test]
fn an_application_naming_its_files_from_its_servers_root_loads_through_its_routes_as_a_web_fragment() {
    use SegmentKind::WebFragment;
    let server = super::app_server::AppServer::start(&repo("fixtures/apps/rooted"));
    let url = format!("{}app/", server.url());
    let rooted = ["/assets/app.css", "/assets/app.js", "/data/label.txt"];
    let harness = || attention_harness::Harness::global().server().requests();
    let plain = checked_options(&layout_with_url_routes("rooted-plain", &url, None), Engine::Fragment);
    run_host_opts(plain, async |host| {
        let frames = host.frames();
        attention_harness::checks::wait_for(
            host,
            "the Host's 404 for /assets/app.js",
            Duration::from_secs(5),
            || async {
                Ok(match harness().iter().find(|r| r.path == "/assets/app.js") {
                    Some(r) => attention_harness::checks::Poll::Ready(r.status),
                    None => attention_harness::checks::Poll::Pending("not asked".into()),
                })
            },
        )
        .await
        .and_then(|s| if s == 404 { Ok(()) } else { Err(anyhow::anyhow!("/assets/app.js answered {s}")) })?;
        anyhow::ensure!(frames.locate_attr("id", "rooted").await?.is_some(), "the application's document is not there");
        anyhow::ensure!(frames.locate_attr("id", "order").await?.is_none(), "the button rendered without routes");
        anyhow::ensure!(server.requests().iter().all(|(p, _)| !p.starts_with("/assets/")), "{:?}", server.requests());
        Ok(())
    });
    let routed = layout_with_url_routes("rooted", &url, Some(&["/assets/", "/data/"]));
    for layout in [Layout::Managed, Layout::Compat] {
        run_host_opts(checked_options_in(layout, &routed, Engine::Fragment), async |host| {
            agrees_with_chromium(host, "id", "order", &[WebFragment]).await?;
            let frames = host.frames();
            let at = frames.locate_attr("id", "order").await?.ok_or_else(|| anyhow::anyhow!("no #order"))?;
            let rect = frames.node_rect(&at).await?;
            anyhow::ensure!(
                (rect.width - 240.0).abs() <= 0.5 && (rect.height - 48.0).abs() <= 0.5,
                "the stylesheet did not size the button: Chromium's box {rect:?}"
            );
            let ax = ax_facts(&at.session, at.backend_node_id).await?;
            anyhow::ensure!(ax.name == "Place order", "the fetched label is not the button's name: {:?}", ax.name);
            let upstream = server.requests();
            for path in rooted {
                anyhow::ensure!(
                    upstream.iter().any(|(p, agent)| p == path && agent == "attention-harness gateway"),
                    "{path} did not reach the application's server through the gateway: {upstream:?}"
                );
                anyhow::ensure!(
                    harness().iter().any(|r| r.path == path && r.status == 200),
                    "{path} was not answered 200 at the Host"
                );
            }
            Ok(())
        });
    }
}

/// A layout file whose url page routes a path the harness serves itself, or a prefix without its
/// closing `/`, is refused before a browser starts: exit 2, `FILE:LINE:COL: invalid-routes: ...`
/// at the route, and the url is not asked (nothing listens there).
#[test]
fn a_url_page_routing_a_path_the_harness_serves_or_a_malformed_prefix_is_refused_up_front() {
    let port_held = super::refusing_port::RefusingPort::new();
    let port = port_held.port;
    let url = format!("http://localhost:{port}/app/");
    for (name, routes, message) in [
        ("routes-host", ["/assets/", "/host/"], "route `/host/` overlaps `/host/`, which the harness serves itself"),
        ("routes-open", ["/assets/", "/src"], "route `/src` must be a path prefix starting and ending with `/`"),
    ] {
        let file = layout_with_url_routes(name, &url, Some(&routes));
        let (out, _) = cli(&["snapshot", "--point", "panel-signup", "--layout-file", file.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert_eq!(out.status.code(), Some(2), "{err}");
        let at = format!("{}:", file.display());
        assert!(err.contains(&at) && err.contains(&format!("invalid-routes: panel `signup`: {message}")), "{err}");
        assert!(!err.contains("unreachable-url"), "the url was asked: {err}");
    }
}

/// The Host's proxy of a url page's `routes`: a path under a route is the upstream's at the same
/// path (query kept, HTML with the runtime, its 404 passed on), only on the Host site and for GET, the
/// route's path rule answered 400 and an upstream that refuses the connection 502; a layout served
/// again without routes routes nothing.
#[test]
fn the_host_proxies_a_url_pages_routes_at_the_same_path_only_on_the_host_site() {
    let upstream = super::app_server::AppServer::start(&repo("fixtures/apps/rooted"));
    let closed_held = super::refusing_port::RefusingPort::new();
    let closed = closed_held.port;
    let decl = serde_json::json!({"layout": {"panels": {
        "app": {"kind": "page", "url": format!("{}app/", upstream.url()), "routes": ["/assets/", "/app/"]},
        "closed": {"kind": "page", "url": format!("http://localhost:{closed}/"), "routes": ["/gone/"]},
    }}});
    let h = attention_harness::Harness::global();
    h.block_on(async {
        let server = attention_harness::server::Server::start(repo("pages")).await.unwrap();
        server.serve_layout("t", &decl.to_string());
        let (host, child) = (server.host_origin().to_string(), server.child_origin().to_string());
        let get = |origin: &str, path: &str| {
            let url = format!("{origin}{path}");
            async move { http_get_with(&url, "").await }
        };
        let css = std::fs::read_to_string(repo("fixtures/apps/rooted/assets/app.css")).unwrap();
        assert_eq!(get(&host, "/assets/app.css").await, (200, css));
        let (s, body) = get(&host, "/app/?x=1").await;
        assert!(s == 200 && body.contains("/runtime/attention.js") && body.contains("/assets/app.js"), "{s} {body}");
        assert!(upstream.requests().iter().any(|(p, _)| p == "/app/?x=1"), "{:?}", upstream.requests());
        assert_eq!(get(&host, "/assets/missing.js").await.0, 404);
        assert_eq!(get(&child, "/assets/app.css").await.0, 404);
        for bad in ["/assets/../data/label.txt", "/assets/%2e%2e/data/label.txt", "/assets//x", "/assets/a%2fb"] {
            let (s, body) = get(&host, bad).await;
            assert!(s == 400 && !body.contains("Place order"), "{bad}: {s} {body}");
        }
        let (s, body) = get(&host, "/gone/x").await;
        assert!(s == 502 && body.contains("does not answer"), "{s} {body}");
        // Not a route: the harness's own answer (no such file).
        assert_eq!(get(&host, "/data/label.txt").await.0, 404);
        // The proxy asks with GET only: another method is refused, not turned into a GET.
        post_is_refused_before_the_upstream(&format!("{host}/assets/app.css"), || upstream.requests().len()).await;
        server.serve_layout("t", &serde_json::json!({"layout": {"panels": {}}}).to_string());
        assert_eq!(get(&host, "/assets/app.css").await.0, 404);
    });
}

/// The gateway's proxy of a `url` page (`/qa-url/...`, `/fragments/qa-url/...`): the upstream's
/// files with their status, HTML with the runtime (or renamed for a fragment's content fetch, its
/// relative URLs under the route), nothing outside the url's directory (400), and an upstream that
/// refuses the connection, never answers or is https: as an HTTP status, not a hang.
#[test]
fn the_gateway_proxies_a_url_page_only_inside_its_directory_and_answers_upstream_failures_as_statuses() {
    let upstream = super::app_server::AppServer::start(&repo("fixtures"));
    let closed_held = super::refusing_port::RefusingPort::new();
    let closed = closed_held.port;
    // A server that accepts and never answers.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let silent_port = silent.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let held: Vec<_> = silent.incoming().take(4).flatten().collect();
        std::thread::sleep(Duration::from_secs(30));
        drop(held);
    });
    let decl = serde_json::json!({"layout": {"panels": {
        "app": {"kind": "page", "url": format!("{}apps/signup/", upstream.url())},
        "closed": {"kind": "page", "url": format!("http://localhost:{closed}/")},
        "silent": {"kind": "page", "url": format!("http://127.0.0.1:{silent_port}/")},
        "tls": {"kind": "page", "url": format!("https://localhost:{}/apps/signup/", upstream.port)},
    }}});
    let h = attention_harness::Harness::global();
    h.block_on(async {
        let server = attention_harness::server::Server::start(repo("pages")).await.unwrap();
        server.serve_layout("t", &decl.to_string());
        let origin = server.host_origin().to_string();
        let get = |path: &str, headers: &'static str| {
            let url = format!("{origin}{path}");
            async move { http_get_with(&url, headers).await }
        };
        let css = std::fs::read_to_string(repo("fixtures/apps/signup/app.css")).unwrap();
        assert_eq!(get("/qa-url/t/app/app.css", "").await, (200, css));
        let (s, body) = get("/qa-url/t/app/", "").await;
        assert!(
            s == 200 && body.contains("/runtime/attention.js") && body.contains("Create your account"),
            "{s} {body}"
        );
        let (s, body) = get("/fragments/qa-url/t/app/", "X-Web-Fragment-Id: app-app\r\n").await;
        assert!(
            s == 200
                && body.contains("<wf-body>")
                && body.contains(r#"src="/qa-url/t/app/signup.js""#)
                && body.contains(r#"href="/qa-url/t/app/app.css""#)
                && !body.contains("/runtime/attention.js"),
            "content fetch: {s} {body}"
        );
        let (s, body) = get("/fragments/qa-url/t/app/", "Sec-Fetch-Dest: iframe\r\n").await;
        assert!(
            s == 200 && body.contains("Web Fragments: reframed") && body.contains("/runtime/attention.js"),
            "{body}"
        );
        assert_eq!(get("/qa-url/t/app/missing.html", "").await.0, 404);
        // The proxy asks with GET only: another method is refused on both routes, not turned into a
        // GET without its body.
        for path in ["/qa-url/t/app/", "/fragments/qa-url/t/app/"] {
            post_is_refused_before_the_upstream(&format!("{origin}{path}"), || upstream.requests().len()).await;
        }
        for bad in [
            "/qa-url/t/app/../plan-picker.layout.json",
            "/qa-url/t/app/%2e%2e/plan-picker.layout.json",
            "/qa-url/t/app//etc/passwd",
            "/fragments/qa-url/t/app/http://evil.example/",
        ] {
            let (s, body) = get(bad, "").await;
            assert!(s == 400 && !body.contains("\"layout\""), "{bad}: {s} {body}");
        }
        assert_eq!(get("/qa-url/t/nope/", "").await.0, 404);
        assert_eq!(get("/qa-url/other/app/", "").await.0, 404);
        let (s, body) = get("/qa-url/t/closed/", "").await;
        assert!(s == 502 && body.contains("does not answer"), "{s} {body}");
        let (s, body) = get("/qa-url/t/tls/", "").await;
        assert!(s == 400 && body.contains("no TLS client"), "{s} {body}");
        let asked = std::time::Instant::now();
        let (s, _) = get("/qa-url/t/silent/", "").await;
        let took = asked.elapsed();
        assert_eq!(s, 504, "after {took:?}");
        let timeout = attention_harness::server::UPSTREAM_TIMEOUT;
        assert!(took >= timeout && took < timeout + Duration::from_secs(3), "{took:?}");
    });
}

/// An application by url whose own frames start blank (fixtures/apps/frames): one its script writes
/// into before navigating it to a page of its own (Chromium then starts the realm in the initial
/// about:blank and keeps that Window across the same-origin navigation, running no init script
/// again), and one srcdoc frame; both have the application's origin while `location.origin` says
/// "null" there. And a widget it embeds from another origin (a second server, on 127.0.0.1: another
/// site than the application's localhost). The runtime reaches all three, and the button in each
/// agrees with Chromium.
#[test]
fn an_applications_own_frames_blank_srcdoc_or_of_another_origin_get_the_runtime() {
    use SegmentKind::Iframe;
    let server = super::app_server::AppServer::start(&repo("fixtures/apps/frames"));
    let widgets = super::app_server::AppServer::start(&repo("fixtures/apps/frames"));
    let url = format!("{}?widget=http://127.0.0.1:{}/widget.html", server.url(), widgets.port);
    let file = layout_with_url("url-blank-frames", &url);
    let checked = attention_harness::qa::LayoutFile::load(&repo("pages"), &file, (1280, 720)).expect("it answers");
    let options = HostOptions::new(Layout::Managed, Engine::Iframe).declaration_in(checked.json, checked.folder);
    run_host_opts(options, async |host| {
        agrees_with_chromium(host, "id", "inner-button", &[Iframe, Iframe]).await?;
        agrees_with_chromium(host, "id", "inline-button", &[Iframe, Iframe]).await?;
        agrees_with_chromium(host, "id", "widget-button", &[Iframe, Iframe]).await?;
        Ok(())
    });
}

/// A url page is refused before a browser starts when it does not answer (nothing listening, or an
/// HTTP error status), naming the url and why, and when it is https: and asked for with engine
/// fragment (the gateway's proxy has no TLS client); an http: one opens as a fragment.
#[test]
fn a_url_page_that_does_not_answer_or_is_asked_for_as_a_fragment_is_refused_up_front() {
    let refused = |file: &Path, extra: &[&str], names: &[&str]| {
        let mut args = vec!["snapshot", "--point", "panel-signup", "--layout-file", file.to_str().unwrap()];
        args.extend_from_slice(extra);
        let (out, took, launched) = crate::cli_support::run_expecting_no_launch(&args);
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(!launched, "a browser was started before the refusal: {err}");
        // The url is asked once, for at most URL_TIMEOUT, on top of the 2 s every refusal gets.
        let limit = attention_harness::qa::declaration::URL_TIMEOUT + Duration::from_secs(2);
        assert!(took < limit, "took {took:?}: {err}");
        for n in names {
            assert!(err.contains(n), "the error does not name {n:?}: {err}");
        }
    };
    // A port that refuses connections, held for the test (refusing_port.rs).
    let port_held = super::refusing_port::RefusingPort::new();
    let port = port_held.port;
    let url = format!("http://localhost:{port}/");
    let file = layout_with_url("url-closed", &url);
    refused(&file, &[], &["unreachable-url", &format!("url {url} does not answer ("), "ECONNREFUSED"]);
    let server = super::app_server::AppServer::start(&repo("fixtures/apps/signup"));
    let missing = format!("{}missing.html", server.url());
    let file = layout_with_url("url-404", &missing);
    refused(&file, &[], &["unreachable-url", &format!("url {missing} answers HTTP 404")]);
    // An http: url opens with engine fragment (the gateway proxies it) ...
    let file = layout_with_url("url-fragment", &server.url());
    let (out, _) = cli(&[
        "snapshot",
        "--layout-file",
        file.to_str().unwrap(),
        "--engine",
        "fragment",
        "--point",
        "css:signup:#create",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let snap: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let top = snap.pointer("/pointer/candidate_ids/0").cloned().unwrap_or_default();
    let c = snap["candidates"].as_array().unwrap().iter().find(|c| c["target_id"] == top).cloned();
    assert_eq!(c.as_ref().and_then(|c| c.pointer("/summary/name")), Some(&"Create account".into()), "{snap}");
    // ... an https: one is refused with engine fragment, naming the panel and why, before it is
    // asked (so even when nothing answers it), in every command that opens a Host.
    let https = format!("https://localhost:{port}/");
    let file = layout_with_url("url-https-fragment", &https);
    let why = ["panel signup mounts an application by an https: url", "no TLS client", "--engine iframe"];
    refused(&file, &["--engine", "fragment"], &why);
    let (out, _) = cli(&["inspect", "--layout-file", file.to_str().unwrap(), "--engine", "fragment", "tree"]);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(why.iter().all(|w| err.contains(w)), "inspect: {err}");
    refused(&file, &[], &["unreachable-url", &format!("url {https} does not answer (")]);
    // A scenario on a url page replays in both engines; on an https: one it is refused naming why.
    let scenario = |name: &str, layout: &Path| {
        let path = layout.with_file_name(format!("{name}.json"));
        let steps = serde_json::json!({"layout_file": layout, "engines": ["iframe", "fragment"], "steps": [
            {"do": "open"},
            {"do": "move", "at": "css:signup:#create"},
            {"do": "expect", "top": {"role": "button", "name": "Create account"}}
        ]});
        std::fs::write(&path, steps.to_string()).unwrap();
        cli(&["replay", path.to_str().unwrap()]).0
    };
    let out = scenario("by-url", &layout_with_url("url-scenario", &server.url()));
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("in iframe: 3 steps") && stdout.contains("in fragment: 3 steps"), "{stdout}");
    let out = scenario("by-https-url", &file);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(why.iter().all(|w| err.contains(w)), "replay: {err}");
    let file = layout_with_url("url-bad", "localhost:5173/");
    refused(&file, &[], &["invalid-url", "must be an absolute http: or https: URL"]);
}

/// The Host options for a layout file the CLI's checker accepts.
fn checked_options(file: &Path, engine: Engine) -> HostOptions {
    checked_options_in(Layout::Managed, file, engine)
}

/// [`checked_options`] in `layout`.
fn checked_options_in(layout: Layout, file: &Path, engine: Engine) -> HostOptions {
    let checked = attention_harness::qa::LayoutFile::load(&repo("pages"), file, (1280, 720))
        .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    HostOptions::new(layout, engine).declaration_in(checked.json, checked.folder)
}

/// The worked example's `<plan-picker>` (a closed shadow root) mounted alone as a component panel
/// (fixtures/apps/plan-picker.layout.json): from the module beside the layout file in the three
/// mounts (cross-origin out-of-process iframe, same-origin iframe, Web Fragment) and from a module
/// URL of a separate server (tests/app_server.rs). In each the runtime ran before the module (it
/// sees into the closed shadow root), the `label` attribute reached the element (Chromium's AX name
/// of the group), and the candidate at a plan button and at the group agrees with Chromium's box
/// model, hit test and AX tree, with the path Host > panel > page > artifact > realm > web component
/// > shadow root > element.
#[test]
fn a_component_from_an_es_module_agrees_with_chromium_inside_its_closed_shadow_root_in_every_mount() {
    use SegmentKind::{Iframe, ShadowRoot, WebComponent, WebFragment};
    let file = repo("fixtures/apps/plan-picker.layout.json");
    let server = super::app_server::AppServer::start(&repo("fixtures/apps/signup"));
    let by_url = layout_with_component(
        "component-url",
        serde_json::json!({"module": format!("{}plan-picker.js", server.url()), "tag": "plan-picker",
            "attributes": {"label": "Choose a plan"}}),
        &[],
    );
    let same = layout_with_component(
        "component-same",
        serde_json::json!({"module": "plan-picker.js", "tag": "plan-picker", "origin": "same",
            "attributes": {"label": "Choose a plan"}}),
        &[],
    );
    let cells: [(&Path, Engine, SegmentKind, bool); 5] = [
        (&file, Engine::Iframe, Iframe, true),
        (&same, Engine::Iframe, Iframe, false),
        (&file, Engine::Fragment, WebFragment, false),
        (&by_url, Engine::Iframe, Iframe, true),
        (&by_url, Engine::Fragment, WebFragment, false),
    ];
    for (layout, engine, realm, oopif) in cells {
        run_host_opts(checked_options(layout, engine), async |host| {
            let cell = format!("{} {engine:?}", layout.display());
            let children = host.frames().child_targets();
            let out_of_process = children.iter().any(|c| c.url.contains("/qa-component/"));
            anyhow::ensure!(out_of_process == oopif, "{cell}: out-of-process frames {children:?}");
            let inside = [realm, WebComponent, ShadowRoot];
            agrees_with_chromium_in(host, "plans", "class", "plan", &inside).await?;
            // The attribute the layout file gave: Chromium's AX node of the group is named by it.
            agrees_with_chromium_in(host, "plans", "aria-label", "Choose a plan", &inside).await?;
            let group = host.frames().locate_attr("aria-label", "Choose a plan").await?;
            let group = group.ok_or_else(|| anyhow::anyhow!("{cell}: no group named by the attribute"))?;
            let ax = ax_facts(&group.session, group.backend_node_id).await?;
            anyhow::ensure!(ax.role == "group" && ax.name == "Choose a plan", "{cell}: Chromium's AX node {ax:?}");
            Ok(())
        });
    }
}

/// A scenario whose layout file mounts a component replays in both engines: the candidate under a
/// point of the plan picker's closed shadow root and at its `css:` landmark is what the scenario
/// expects (the group named by the layout file's attribute, the plan button).
#[test]
fn a_scenario_with_a_component_panel_replays_in_both_engines() {
    let scenario = serde_json::json!({"layout_file": repo("fixtures/apps/plan-picker.layout.json"),
        "engines": ["iframe", "fragment"], "steps": [
        {"do": "open"},
        {"do": "move", "at": "css:plan-picker"},
        {"do": "expect", "top": {"role": "group", "name": "Choose a plan"}},
        {"do": "move", "at": [248, 56]},
        {"do": "expect", "top": {"role": "button", "name": "Basic plan"}}
    ]});
    replays_its_5_steps_in_both_engines("component", &scenario);
}

/// Writes `scenario` (5 steps, engines iframe and fragment) under target/ as `<name>.json` and
/// replays it with the CLI: exit 0, every step of it in both engines.
fn replays_its_5_steps_in_both_engines(name: &str, scenario: &serde_json::Value) {
    let dir = repo(&format!("target/qa-apps-tests/{name}-scenario"));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{name}.json"));
    std::fs::write(&file, scenario.to_string()).unwrap();
    let (out, _) = cli(&["replay", file.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("in iframe: 5 steps") && stdout.contains("in fragment: 5 steps"), "{stdout}");
}

/// The checker's custom element name rule is Chromium's (the HTML standard's since whatwg/html#7991,
/// wider than the older PCENChar production: `x-$` and `x-×` are valid): for names at each rule's
/// boundary, `customElementNameProblem` (pages/host/declaration.js, run in the Host page) accepts
/// exactly the names Chromium's `customElements.define` accepts.
#[test]
fn the_checkers_custom_element_name_rule_is_chromiums() {
    run_host_opts(HostOptions::new(Layout::Managed, Engine::Iframe), async |host| {
        let names = [
            "plan-picker",
            "Plan-picker",
            "plan-Picker",
            "planpicker",
            "-plan",
            "1-plan",
            "\u{e9}-plan",
            "a-",
            "x-1",
            "x-._",
            "my-\u{e9}l\u{e9}ment",
            "x-\u{d7}",
            "x-$",
            "x-\u{2000}",
            "x-\u{10000}",
            "x y-z",
            "x-\t",
            "x-\u{c}",
            "x-a/b",
            "x-a>b",
            "x-\u{0}",
            "font-face",
            "font-faces",
            "annotation-xml",
            "color-profile",
            "missing-glyph",
        ];
        let expr = format!(
            "(async () => {{
                const {{ customElementNameProblem }} = await import('/host/declaration.js');
                return {names}.map((n) => {{
                    let chromium = true;
                    try {{ customElements.define(n, class extends HTMLElement {{}}); }}
                    catch (e) {{ if (e.name !== 'SyntaxError') throw e; chromium = false; }}
                    return [n, chromium, customElementNameProblem(n) === null];
                }});
            }})()",
            names = serde_json::to_string(&names)?
        );
        let verdicts = host.eval(&expr).await?;
        let disagree: Vec<&serde_json::Value> =
            verdicts.as_array().ok_or_else(|| anyhow::anyhow!("{verdicts}"))?.iter().filter(|v| v[1] != v[2]).collect();
        anyhow::ensure!(disagree.is_empty(), "[name, Chromium accepts, the checker accepts]: {disagree:?}");
        let accepted = verdicts.as_array().unwrap().iter().filter(|v| v[1] == true).count();
        anyhow::ensure!(accepted > 3 && accepted < names.len() - 3, "both verdicts are exercised: {verdicts}");
        Ok(())
    });
}

/// A component whose module does not define its tag, or does not load (it throws while evaluated),
/// fails the open in both engines with the typed error naming the panel, the module and the tag,
/// within seconds, not the ready deadline; the CLI prints it and exits 2. The same layout with the
/// tag the module defines opens (the boundary).
#[test]
fn a_component_module_that_does_not_define_its_tag_or_does_not_load_fails_the_open_naming_them() {
    use attention_harness::{ComponentFailure, HostError};
    let undefined = layout_with_component(
        "component-undefined",
        serde_json::json!({"module": "plan-picker.js", "tag": "plan-pickr"}),
        &[],
    );
    let broken = layout_with_component(
        "component-broken",
        serde_json::json!({"module": "broken.js", "tag": "plan-picker"}),
        &[("broken.js", "import './plan-picker.js';\nthrow new Error('the module refuses');\n")],
    );
    let h = attention_harness::Harness::global();
    for engine in [Engine::Iframe, Engine::Fragment] {
        for (file, module, tag, want, says) in [
            (
                &undefined,
                "plan-picker.js",
                "plan-pickr",
                ComponentFailure::Undefined,
                "defines no custom element <plan-pickr>",
            ),
            (
                &broken,
                "broken.js",
                "plan-picker",
                ComponentFailure::LoadFailed,
                "did not load: Error: the module refuses",
            ),
        ] {
            let started = std::time::Instant::now();
            let opened = h.block_on(h.open_with(checked_options(file, engine)));
            let took = started.elapsed();
            let err = match opened {
                Ok(host) => {
                    h.block_on(host.close());
                    panic!("{engine:?} {module}: the Host opened")
                }
                Err(e) => e,
            };
            let shown = err.to_string();
            match err {
                attention_harness::HarnessError::Host(HostError::Component {
                    panel,
                    module: m,
                    tag: t,
                    reason,
                    ..
                }) => {
                    assert_eq!(
                        (panel.as_str(), m.as_str(), t.as_str(), reason),
                        ("plans", module, tag, want),
                        "{shown}"
                    );
                }
                other => panic!("{engine:?} {module}: another error: {other}"),
            }
            assert!(
                shown.starts_with(&format!("panel `plans`: component <{tag}> from module `{module}`: the module http"))
                    && shown.contains(says),
                "{engine:?}: {shown}"
            );
            assert!(took < Duration::from_secs(10), "{engine:?} {module}: took {took:?}: {shown}");
        }
    }
    let (out, _) = cli(&["snapshot", "--layout-file", undefined.to_str().unwrap(), "--point", "panel-plans"]);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("error: panel `plans`: component <plan-pickr> from module `plan-picker.js`: the module http")
            && err.contains("loaded but defines no custom element <plan-pickr>"),
        "{err}"
    );
    // The boundary: the tag the module defines opens.
    let fine = layout_with_component(
        "component-defined",
        serde_json::json!({"module": "plan-picker.js", "tag": "plan-picker"}),
        &[],
    );
    let (out, _) = cli(&["snapshot", "--layout-file", fine.to_str().unwrap(), "--point", "panel-plans"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
}

// ---------------------------------------------------------------------------------------------------
// Compat (the issue's "both layouts"): compat's chrome is fixed, so a layout file's application
// panels are artifacts straight in the page area (the panel `page-area`, no page boundary), mounted
// as managed mounts them per engine and origin.

/// The worked example's page from its folder, in compat: an artifact in the page area, a
/// cross-origin out-of-process iframe by default, a same-origin one on request, a Web Fragment
/// through the gateway; at the form's button, the link in the app's own iframe and the plan button
/// in the closed shadow root, the candidate agrees with Chromium's box model, hit test and AX tree,
/// with the path Host > panel page-area > artifact > iframe or web-fragment > ... > element, the
/// mount inside the page area's Chromium box.
#[test]
fn in_compat_an_application_page_from_a_folder_is_an_artifact_of_the_page_area_agreeing_with_chromium_in_every_mount() {
    use SegmentKind::{Iframe, WebFragment};
    let cells: [(Engine, Option<&str>, SegmentKind, bool); 3] = [
        (Engine::Iframe, None, Iframe, true),
        (Engine::Iframe, Some("same"), Iframe, false),
        (Engine::Fragment, None, WebFragment, false),
    ];
    for (engine, origin, realm, oopif) in cells {
        run_host_opts(signup_options_in(Layout::Compat, engine, origin), async |host| {
            let children = host.frames().child_targets();
            let app = children.iter().any(|c| c.url.contains("/qa/file-") && c.url.ends_with("/signup/"));
            anyhow::ensure!(app == oopif, "{engine:?} {origin:?}: out-of-process frames {children:?}");
            signup_agrees_with_chromium(host, realm).await
        });
    }
}

/// The worked example served by a separate server (tests/app_server.rs, not the harness's) and
/// mounted by url, in compat: engine iframe an out-of-process frame of that server with the runtime
/// injected through CDP, engine fragment proxied by the gateway (no frame of the server); in both the
/// candidate at the form's button, the link in its own iframe and the closed-shadow plan button
/// agrees with Chromium, and `css:signup:button` names the form's button.
#[test]
fn in_compat_an_application_served_elsewhere_by_url_agrees_with_chromium_in_both_engines() {
    use SegmentKind::{Iframe, WebFragment};
    let server = super::app_server::AppServer::start(&repo("fixtures/apps/signup"));
    let file = layout_with_url("compat-url", &server.url());
    for (engine, realm) in [(Engine::Iframe, Iframe), (Engine::Fragment, WebFragment)] {
        run_host_opts(checked_options_in(Layout::Compat, &file, engine), async |host| {
            let children = host.frames().child_targets();
            let of_server = children.iter().any(|c| c.url.starts_with(&server.url()));
            anyhow::ensure!(of_server == (engine == Engine::Iframe), "{engine:?}: out-of-process frames {children:?}");
            signup_agrees_with_chromium(host, realm).await
        });
    }
}

/// The worked example's `<plan-picker>` mounted alone as a component panel, in compat, in both
/// engines: the candidate at a plan button and at the group its `label` attribute names agrees with
/// Chromium, with the path Host > panel page-area > artifact > realm > web component > shadow root.
#[test]
fn in_compat_a_component_panel_agrees_with_chromium_inside_its_closed_shadow_root_in_both_engines() {
    use SegmentKind::{Iframe, ShadowRoot, WebComponent, WebFragment};
    let file = repo("fixtures/apps/plan-picker.layout.json");
    for (engine, realm) in [(Engine::Iframe, Iframe), (Engine::Fragment, WebFragment)] {
        run_host_opts(checked_options_in(Layout::Compat, &file, engine), async |host| {
            let inside = [realm, WebComponent, ShadowRoot];
            agrees_with_chromium_in(host, "plans", "class", "plan", &inside).await?;
            agrees_with_chromium_in(host, "plans", "aria-label", "Choose a plan", &inside).await?;
            Ok(())
        });
    }
}

/// Several application panels in compat (fixtures/apps/signup-plans.layout.json: a page and a
/// component): stacked in the page area in the order the layout places them, each as wide as the
/// page area's body (24 px in from each side) and sharing its height equally below the 32 px title
/// (16 px padding above, a 20 px label above each, 16 px below each), at two viewports: Chromium's
/// box model of each mount is that arithmetic, and the runtime agrees at an element of each.
#[test]
fn in_compat_several_application_panels_are_stacked_in_the_page_area_in_the_layouts_order_sharing_its_height() {
    let file = repo("fixtures/apps/signup-plans.layout.json");
    for (w, h) in [(1280, 720), (1000, 600)] {
        run_host_opts(checked_options_in(Layout::Compat, &file, Engine::Iframe).viewport(w, h), async |host| {
            let frames = host.frames();
            let rect_of = |attr: &'static str, value: String| async move {
                let at = frames.locate_attr(attr, &value).await?;
                let at = at.ok_or_else(|| anyhow::anyhow!("no [{attr}={value}]"))?;
                anyhow::Ok(frames.node_rect(&at).await?)
            };
            let area = rect_of("data-landmark", "page-area".into()).await?;
            let (aw, ah) = (f64::from(w) - 200.0 - 360.0, f64::from(h));
            anyhow::ensure!(area.x == 200.0 && area.width == aw && area.height == ah, "{w}x{h}: page area {area:?}");
            // Two slots of a label (20 px) and the mount, each with 16 px below, in 688 - 16 px.
            let slot = (ah - 32.0 - 16.0 - 2.0 * 16.0) / 2.0;
            let mut top = 32.0 + 16.0;
            for panel in ["signup", "plans"] {
                let mount = rect_of("data-landmark", format!("panel-{panel}")).await?;
                let want = (area.x + 24.0, top + 20.0, aw - 48.0, slot - 20.0);
                let near = |a: f64, b: f64| (a - b).abs() <= 0.5;
                anyhow::ensure!(
                    near(mount.x, want.0)
                        && near(mount.y, want.1)
                        && near(mount.width, want.2)
                        && near(mount.height, want.3),
                    "{w}x{h}: panel-{panel}'s mount {mount:?} is not at (x, y, width, height) {want:?}"
                );
                top += slot + 16.0;
            }
            agrees_with_chromium_in(host, "signup", "id", "create", &[SegmentKind::Iframe]).await?;
            let inside = [SegmentKind::Iframe, SegmentKind::WebComponent, SegmentKind::ShadowRoot];
            agrees_with_chromium_in(host, "plans", "aria-label", "Choose a plan", &inside).await?;
            Ok(())
        });
    }
}

/// A scenario with `"layout": "compat"` and a layout file mounting the worked example replays in
/// both engines: the candidates at its `css:` landmarks are what it expects.
#[test]
fn a_compat_scenario_with_a_layout_file_replays_in_both_engines() {
    let scenario = serde_json::json!({"layout": "compat", "layout_file": repo("fixtures/apps/signup.layout.json"),
        "engines": ["iframe", "fragment"], "steps": [
        {"do": "open"},
        {"do": "move", "at": "css:signup:#create"},
        {"do": "expect", "top": {"role": "button", "name": "Create account"}},
        {"do": "move", "at": "css:signup:#email"},
        {"do": "expect", "top": {"role": "textbox", "name": "Email"}}
    ]});
    replays_its_5_steps_in_both_engines("compat", &scenario);
}

/// A layout file's reference pages in compat (pages/host/layouts/default.json places `home` and
/// `tools`) render as compat renders them without a file: Chromium's box of every artifact and of
/// the Host's privacy probes is the same in both.
#[test]
fn in_compat_a_layout_files_reference_pages_render_as_compat_renders_them_without_one() {
    let boxes = |options: HostOptions| {
        let out = std::sync::Mutex::new(Vec::new());
        run_host_opts(options, async |host| {
            let frames = host.frames();
            let named = [
                ("data-wippy-artifact-id", "leaf-left"),
                ("data-wippy-artifact-id", "leaf-right"),
                ("data-wippy-artifact-id", "bridge"),
                ("data-wippy-artifact-id", "closed-shadow"),
                ("data-landmark", "host-privacy-probes"),
            ];
            for (attr, value) in named {
                let at = frames.locate_attr(attr, value).await?;
                let at = at.ok_or_else(|| anyhow::anyhow!("no [{attr}={value}]"))?;
                let r = frames.node_rect(&at).await?;
                out.lock().unwrap().push((value, r.x, r.y, r.width, r.height));
            }
            Ok(())
        });
        out.into_inner().unwrap()
    };
    let with_file = checked_options_in(Layout::Compat, &repo("pages/host/layouts/default.json"), Engine::Iframe);
    assert!(with_file.served_declaration().is_some());
    let without = boxes(HostOptions::new(Layout::Compat, Engine::Iframe));
    assert_eq!(without.len(), 5);
    assert_eq!(boxes(with_file), without);
}
