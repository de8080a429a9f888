//! A managed layout declaration from a file (`--layout-file`), checked before anything is mounted
//! by the reference Host's own checker: `pages/host/declaration.js` (`checkDeclarationText`, what
//! host.js runs on the file it fetches), run under Node (already the harness's build tool for the
//! runtime bundle) at the viewport the Host will have. A file the Host would refuse is refused here
//! with the Host's problems, each `FILE:LINE:COL: kind: message` (strict JSON, unknown keys with the
//! nearest known one, fixed sizes that do not fit the viewport), so the CLI prints them and exits 2
//! without starting a browser.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::Deserialize;
use serde_json::Value;

/// One problem the Host's checker found (`{kind, message, panelId?, line, column}`), and the
/// line it is printed as (declaration.js `formatProblem`: `FILE:LINE:COL: kind: message`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostProblem {
    pub kind: String,
    pub message: String,
    #[serde(rename = "panelId", default)]
    pub panel_id: Option<String>,
    pub line: u32,
    pub column: u32,
    /// The problem as the Host shows it, with the file named as the command line named it.
    pub shown: String,
}

impl fmt::Display for HostProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.shown)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum DeclarationError {
    #[error("{}:1:1: unreadable: cannot read the layout file: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("layout file {} does not validate ({} problem{}):{}", path.display(), problems.len(), if problems.len() == 1 { "" } else { "s" }, problems.iter().map(|p| format!("\n{p}")).collect::<String>())]
    Rejected { path: PathBuf, problems: Vec<HostProblem> },
    #[error("cannot run the Host's declaration validator (`node`, {module}): {detail}")]
    Validator { module: PathBuf, detail: String },
}

/// A layout file the Host's validator accepted.
#[derive(Debug, Clone, PartialEq)]
pub struct LayoutFile {
    pub path: PathBuf,
    /// The file's text, served to the Host as it is.
    pub json: String,
    /// The folder the file is in (symbolic links resolved): what its `src` pages are served from,
    /// and nothing outside it.
    pub folder: PathBuf,
    /// Every landmark the declaration adds: `panel-<panel id>` and `page-<page id>` (host.js
    /// `renderPanel`).
    pub landmarks: Vec<String>,
    /// The panels that mount an application served elsewhere (`{"kind": "page", "url": ...}`).
    pub url_pages: Vec<String>,
    /// The application panels (`src` and `url` pages, components) the `default` layout places, in
    /// its document order: what compat mounts in its page area, each its landmark `panel-<id>`.
    pub app_panels: Vec<String>,
}

/// How long a layout file's `url` page may take to answer the check before it is refused.
pub const URL_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(3);

/// The Node script that runs the Host's checker on one file's text (stdin): argv is the module,
/// the file's name as shown, the viewport's width and height in CSS px (`none none`: no fit check).
/// A page's `url` must answer (HTTP, any status below 400, within [`URL_TIMEOUT`]).
/// A page's `src` is checked on disk here too: it must exist, be an HTML file or a folder with an
/// `index.html`, and lead (symbolic links followed) to a place inside the layout file's folder; a
/// component's `module` path must be a file there; a component's URL module must answer as a `url`.
const VALIDATE: &str = r#"
const fs = await import('node:fs');
const url = await import('node:url');
const path = await import('node:path');
const [mod, file, width, height, urlTimeout] = process.argv.slice(1);
const URL_TIMEOUT_MS = Number(urlTimeout);
const { checkDeclarationText, formatProblem } = await import(url.pathToFileURL(mod).href);
// `none`: no fit check (compat does not apply the arrangement), as host.js's fitViewport in compat.
const viewport = width === 'none' ? undefined : { width: Number(width), height: Number(height) };
const folder = fs.realpathSync(path.dirname(path.resolve(file)));
const inside = (p) => p === folder || p.startsWith(folder + path.sep);
const real = (p) => { try { return fs.realpathSync(p); } catch { return null; } };
const checkSrc = (rel, raw) => {
  const target = path.join(folder, rel || '.');
  const found = real(target);
  if (found === null) return { kind: 'missing-src', message: `src \`${raw}\` does not exist (${target})` };
  if (!inside(found)) return { kind: 'src-outside', message: `src \`${raw}\` leads to ${found}, outside the layout file's folder ${folder}` };
  if (fs.statSync(found).isDirectory()) {
    const index = real(path.join(found, 'index.html'));
    if (index === null) return { kind: 'missing-src', message: `src \`${raw}\` is a folder without an index.html` };
    if (!inside(index)) return { kind: 'src-outside', message: `src \`${raw}\`: its index.html leads to ${index}, outside the layout file's folder ${folder}` };
  } else if (!/\.html?$/i.test(found)) {
    return { kind: 'missing-src', message: `src \`${raw}\` is not an HTML file or a folder` };
  }
  return null;
};
// A component's `module` path must be a file, found (symbolic links followed) inside the folder.
const checkModule = (rel, raw) => {
  const target = path.join(folder, rel);
  const found = real(target);
  if (found === null) return { kind: 'missing-src', message: `module \`${raw}\` does not exist (${target})` };
  if (!inside(found)) return { kind: 'src-outside', message: `module \`${raw}\` leads to ${found}, outside the layout file's folder ${folder}` };
  if (!fs.statSync(found).isFile()) return { kind: 'missing-src', message: `module \`${raw}\` is not a file` };
  return null;
};
// A `url` page (and a component's URL module) must answer over HTTP (any status below 400) within URL_TIMEOUT_MS, asked here once.
const text = fs.readFileSync(0, 'utf8');
const answers = new Map();
const first = checkDeclarationText(text, { viewport });
if (first.problems.length === 0) {
  for (const panel of Object.values(first.declaration.layout.panels)) {
    const asked = panel.kind === 'page' ? panel.url : panel.kind === 'component' && /^https?:/i.test(panel.module) ? panel.module : undefined;
    if (typeof asked !== 'string' || answers.has(asked)) continue;
    try {
      const r = await fetch(asked, { signal: AbortSignal.timeout(URL_TIMEOUT_MS), redirect: 'follow' });
      await r.body?.cancel();
      answers.set(asked, r.status < 400 ? null : { kind: 'unreachable-url', message: `url ${asked} answers HTTP ${r.status}` });
    } catch (e) {
      const why = e.name === 'TimeoutError' ? `no answer within ${URL_TIMEOUT_MS} ms` : (e.cause?.message ?? e.message);
      answers.set(asked, { kind: 'unreachable-url', message: `url ${asked} does not answer (${why})` });
    }
  }
}
const checkUrl = (u) => answers.get(u) ?? null;
const { problems } = checkDeclarationText(text, { viewport, checkSrc, checkUrl, checkModule });
// Exit when written: a kept-alive connection of fetch would otherwise hold the process open.
process.stdout.write(JSON.stringify(problems.map((p) => ({ ...p, shown: formatProblem(file, p) }))), () => process.exit(0));
"#;

/// The page panels of a declaration's text whose `url` the gateway does not proxy (any scheme but
/// `http:`, i.e. `https:`), in the file's order; none for text that is not a declaration.
pub fn unproxied_url_pages(json: &str) -> Vec<String> {
    let Ok(value) = serde_json::from_str::<Value>(json) else { return Vec::new() };
    let panels = value.pointer("/layout/panels").and_then(Value::as_object);
    panels
        .into_iter()
        .flatten()
        .filter(|(_, p)| p["kind"] == "page")
        .filter(|(_, p)| {
            p["url"].as_str().is_some_and(|u| !u.get(..5).is_some_and(|s| s.eq_ignore_ascii_case("http:")))
        })
        .map(|(id, _)| id.clone())
        .collect()
}

impl LayoutFile {
    /// Reads `path` and checks it with `pages/host/declaration.js` under `pages`, for a managed
    /// Host whose viewport is `css_viewport` (CSS px, what the shell lays out in).
    pub fn load(pages: &Path, path: &Path, css_viewport: (u32, u32)) -> Result<LayoutFile, DeclarationError> {
        LayoutFile::load_fitting(pages, path, Some(css_viewport))
    }

    /// [`LayoutFile::load`] with the fit check (`does-not-fit`) at `fit`, or without one (`None`:
    /// the file is opened in compat only, which does not apply its arrangement, as host.js does).
    pub fn load_fitting(pages: &Path, path: &Path, fit: Option<(u32, u32)>) -> Result<LayoutFile, DeclarationError> {
        let (width, height) =
            fit.map_or(("none".to_string(), "none".to_string()), |(w, h)| (w.to_string(), h.to_string()));
        let json = std::fs::read_to_string(path)
            .map_err(|source| DeclarationError::Read { path: path.to_path_buf(), source })?;
        let module = pages.join("host/declaration.js");
        let fail = |detail: String| DeclarationError::Validator { module: module.clone(), detail };
        let mut child = Command::new("node")
            .args(["--no-warnings", "--input-type=module", "-e", VALIDATE])
            .arg(&module)
            .arg(path)
            .arg(width)
            .arg(height)
            .arg(URL_TIMEOUT.as_millis().to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| fail(e.to_string()))?;
        if let Some(mut stdin) = child.stdin.take() {
            stdin.write_all(json.as_bytes()).map_err(|e| fail(e.to_string()))?;
        }
        let out = child.wait_with_output().map_err(|e| fail(e.to_string()))?;
        if !out.status.success() {
            return Err(fail(format!("{}: {}", out.status, String::from_utf8_lossy(&out.stderr).trim())));
        }
        let problems: Vec<HostProblem> = serde_json::from_slice(&out.stdout)
            .map_err(|e| fail(format!("unreadable answer ({e}): {}", String::from_utf8_lossy(&out.stdout))))?;
        if !problems.is_empty() {
            return Err(DeclarationError::Rejected { path: path.to_path_buf(), problems });
        }
        // Valid by the Host's rules, so it is JSON with `layout.panels` of `{kind, id}` objects.
        let value: Value = serde_json::from_str(&json).map_err(|e| fail(e.to_string()))?;
        let mut landmarks = Vec::new();
        let mut url_pages = Vec::new();
        if let Some(panels) = value.pointer("/layout/panels").and_then(Value::as_object) {
            for (panel_id, panel) in panels {
                landmarks.push(format!("panel-{panel_id}"));
                if panel["kind"] == "page" {
                    if let Some(page) = panel["id"].as_str() {
                        landmarks.push(format!("page-{page}"));
                    }
                    if panel.get("url").is_some() {
                        url_pages.push(panel_id.clone());
                    }
                }
            }
        }
        let app_panels = placed_app_panels(&value);
        let folder = std::fs::canonicalize(path)
            .map_err(|source| DeclarationError::Read { path: path.to_path_buf(), source })?
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        Ok(LayoutFile { path: path.to_path_buf(), json, folder, landmarks, url_pages, app_panels })
    }

    /// The landmarks the file adds to a Host of `layout`: managed's panels and pages, or in compat
    /// (fixed chrome, application panels straight in the page area) `panel-<id>` of each application
    /// panel it mounts.
    pub fn landmarks_in(&self, layout: crate::host::Layout) -> Vec<String> {
        match layout {
            crate::host::Layout::Managed => self.landmarks.clone(),
            crate::host::Layout::Compat => self.app_panels.iter().map(|p| format!("panel-{p}")).collect(),
        }
    }
}

/// The application panels (host.js `isAppPanel`) a valid declaration's `default` layout places, in
/// its document order (host.js `placedPanels`).
fn placed_app_panels(decl: &Value) -> Vec<String> {
    fn walk(node: &Value, out: &mut Vec<String>) {
        for child in node["children"].as_array().into_iter().flatten() {
            match child["panel"].as_str() {
                Some(p) => out.push(p.to_string()),
                None => walk(child, out),
            }
        }
    }
    let mut placed = Vec::new();
    walk(&decl["layout"]["layouts"]["default"], &mut placed);
    let panels = &decl["layout"]["panels"];
    let is_app =
        |p: &Value| p["kind"] == "component" || (p["kind"] == "page" && (!p["src"].is_null() || !p["url"].is_null()));
    placed.into_iter().filter(|id| is_app(&panels[id.as_str()])).collect()
}
