//! A managed layout declaration from a file (`--layout-file`), validated before anything is
//! mounted by the reference Host's own rules: `pages/host/declaration.js`, the module host.js
//! validates with, run under Node (already the harness's build tool for the runtime bundle). A
//! file the Host would reject is rejected here with the Host's `{kind, message, panelId?}` errors,
//! so the CLI can print them and exit 2 without starting a browser.

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Deserialize;
use serde_json::Value;

/// One problem the Host's validator found (`{kind, message, panelId?}`, host.js `reportError`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostProblem {
    pub kind: String,
    pub message: String,
    #[serde(rename = "panelId", default)]
    pub panel_id: Option<String>,
}

impl fmt::Display for HostProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind, self.message)?;
        if let Some(p) = &self.panel_id {
            write!(f, " [panel {p}]")?;
        }
        Ok(())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum DeclarationError {
    #[error("cannot read the layout file {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("layout file {} does not validate:{}", path.display(), problems.iter().map(|p| format!("\n  {p}")).collect::<String>())]
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
    /// Every landmark the declaration adds: `panel-<panel id>` and `page-<page id>` (host.js
    /// `renderPanel`).
    pub landmarks: Vec<String>,
}

/// The Node script that runs the Host's validator on one file: argv is the module, then the file.
/// A file that is not JSON gets the Host's own kind for that, `invalid-json`.
const VALIDATE: &str = r#"
const fs = await import('node:fs');
const url = await import('node:url');
const [mod, file] = process.argv.slice(1);
const { validateDeclaration } = await import(url.pathToFileURL(mod).href);
let problems;
try {
  problems = validateDeclaration(JSON.parse(fs.readFileSync(file, 'utf8')));
} catch (e) {
  problems = [{ kind: 'invalid-json', message: `${file}: ${e.message}` }];
}
process.stdout.write(JSON.stringify(problems));
"#;

impl LayoutFile {
    /// Reads `path` and validates it with `pages/host/declaration.js` under `pages`.
    pub fn load(pages: &Path, path: &Path) -> Result<LayoutFile, DeclarationError> {
        let json = std::fs::read_to_string(path)
            .map_err(|source| DeclarationError::Read { path: path.to_path_buf(), source })?;
        let module = pages.join("host/declaration.js");
        let fail = |detail: String| DeclarationError::Validator { module: module.clone(), detail };
        let out = Command::new("node")
            .args(["--input-type=module", "-e", VALIDATE])
            .arg(&module)
            .arg(path)
            .output()
            .map_err(|e| fail(e.to_string()))?;
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
        if let Some(panels) = value.pointer("/layout/panels").and_then(Value::as_object) {
            for (panel_id, panel) in panels {
                landmarks.push(format!("panel-{panel_id}"));
                if panel["kind"] == "page" {
                    if let Some(page) = panel["id"].as_str() {
                        landmarks.push(format!("page-{page}"));
                    }
                }
            }
        }
        Ok(LayoutFile { path: path.to_path_buf(), json, landmarks })
    }
}
