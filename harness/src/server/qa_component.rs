//! QA's component panels (`{"kind": "component", "module", "tag", "attributes"}` in a layout file):
//! the small document the harness generates for one, served at `/qa-component/<layout name>/?panel=<id>`
//! on both sites and through the Web Fragments gateway. It imports the panel's ES module (a file of
//! the layout file's folder, through `/qa/<layout name>/`, or a URL), creates `<tag>` with the
//! attributes and reports to the Host (host.js) how that went: `defined`, or why not (the module did
//! not load, defines no such element, or creating it threw). Nothing the layout file says is
//! written into the HTML as markup: the panel's values reach the page as one JSON literal inside
//! the script, with `<`, `>` and `&` escaped, and become an element through the DOM
//! (`createElement`, `setAttribute`), which needs no HTML escaping.

use axum::http::{StatusCode, Uri};
use serde_json::{json, Value};

use super::Shared;

/// The message the document posts to its parent (the Host) once it knows how the mount went:
/// `{[MESSAGE]: {panel, state, detail}}`, `state` one of `defined`, `load-failed`, `undefined`,
/// `create-failed` (host.js reads it).
const MESSAGE: &str = "wippy-qa-component";

/// The document for `rest` (`<layout name>/`) and `query` (`panel=<panel id>`), from the layout
/// file the server serves under that name. `Err` is the status to answer instead.
pub fn document(shared: &Shared, rest: &str, query: Option<&str>) -> Result<String, (StatusCode, &'static str)> {
    let name = rest.trim_end_matches('/');
    let uri: Uri = format!("/?{}", query.unwrap_or_default()).parse().map_err(|_| bad("unreadable query"))?;
    let axum::extract::Query(params) =
        axum::extract::Query::<std::collections::HashMap<String, String>>::try_from_uri(&uri)
            .map_err(|_| bad("unreadable query"))?;
    let panel_id = params.get("panel").ok_or_else(|| bad("no panel named"))?;
    let json = shared.layouts.lock().ok().and_then(|l| l.get(name).cloned());
    let json = json.ok_or((StatusCode::NOT_FOUND, "no such layout"))?;
    let decl: Value = serde_json::from_str(&json).map_err(|_| (StatusCode::NOT_FOUND, "no such layout"))?;
    let panel = decl.pointer("/layout/panels").and_then(|p| p.get(panel_id.as_str()));
    let panel = panel.filter(|p| p["kind"] == "component").ok_or((StatusCode::NOT_FOUND, "no such component panel"))?;
    let spec = json!({
        "message": MESSAGE,
        "panel": panel_id,
        "base": format!("/qa/{name}/"),
        "module": panel["module"],
        "tag": panel["tag"],
        "attributes": panel.get("attributes").cloned().unwrap_or_else(|| json!({})),
    });
    Ok(render(&spec))
}

fn bad(why: &'static str) -> (StatusCode, &'static str) {
    (StatusCode::BAD_REQUEST, why)
}

/// `spec` as a JavaScript literal that cannot end the script element or open markup inside it:
/// JSON with `<`, `>` and `&` written as `\u003c`, `\u003e`, `\u0026` (they occur only in strings).
fn script_literal(spec: &Value) -> String {
    spec.to_string().replace('<', "\\u003c").replace('>', "\\u003e").replace('&', "\\u0026")
}

fn render(spec: &Value) -> String {
    format!(
        r#"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Component</title>
<style>body {{ margin: 0; }}</style>
</head>
<body>
<div id="wippy-qa-component"></div>
<script type="module">
const spec = {spec};
// Tells the Host how the mount went; it ends the open with an error naming the panel, the module
// and the tag unless the state is `defined`.
const report = (state, detail) => parent.postMessage({{ [spec.message]: {{ panel: spec.panel, state, detail }} }}, '*');
const shown = (e) => (e instanceof Error ? `${{e.name}}: ${{e.message}}` : String(e));
(async () => {{
  const url = new URL(spec.module, new URL(spec.base, location.origin)).href;
  try {{
    await import(url);
  }} catch (e) {{
    report('load-failed', `the module ${{url}} did not load: ${{shown(e)}}`);
    return;
  }}
  if (customElements.get(spec.tag) === undefined) {{
    report('undefined', `the module ${{url}} loaded but defines no custom element <${{spec.tag}}> (customElements.get is undefined after it ran)`);
    return;
  }}
  try {{
    const el = document.createElement(spec.tag);
    for (const [name, value] of Object.entries(spec.attributes)) el.setAttribute(name, value);
    document.getElementById('wippy-qa-component').append(el);
  }} catch (e) {{
    report('create-failed', `creating <${{spec.tag}}> failed: ${{shown(e)}}`);
    return;
  }}
  report('defined', '');
}})();
</script>
</body>
</html>
"#,
        spec = script_literal(spec)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_panels_values_reach_the_script_as_one_literal_that_cannot_close_it_or_open_markup() {
        let spec = json!({"tag": "x-a", "attributes": {"label": "</script><script>alert(1)</script>&amp;"}});
        let html = render(&spec);
        let script = &html[html.find("<script type=\"module\">").unwrap()..];
        // One script element: the value did not end it.
        assert_eq!(script.matches("</script>").count(), 1, "{html}");
        assert!(!html.contains("alert(1)</"), "{html}");
        // The literal is the same JSON value once its escapes are read.
        let literal = script.split("const spec = ").nth(1).unwrap().split(";\n").next().unwrap();
        assert!(!literal.contains(['<', '>', '&']), "{literal}");
        assert_eq!(serde_json::from_str::<Value>(literal).unwrap(), spec);
    }
}
