//! The runtime for application pages the harness does not serve (a layout file's `{"kind": "page",
//! "url": ...}`): the bundle wrapped so that it stays out of the harness's own pages. The Host gives
//! it to every realm through CDP before page scripts (`Page.addScriptToEvaluateOnNewDocument` on the
//! page and, paused at attach, on every out-of-process frame, as `audit` does); the guard keeps it out
//! of the Host and the reference pages, which the server already serves with the runtime, so every
//! other realm of the application (its own pages, its frames at other origins, its blank and srcdoc
//! frames) gets it.

/// `runtime` (the bundle's text) run in every realm that is not one of the harness's own pages:
/// those whose origin is one of `own_origins` (the Host's and the reference pages' sites).
///
/// The realm's origin is `self.origin`, not `location.origin`: an iframe's initial about:blank and an
/// about:srcdoc document have the origin of the document that made them, while `location.origin`
/// says "null" for any about: URL. It matters beyond srcdoc: when a script touches an iframe's window
/// before its first navigation, Chromium runs this script in the initial about:blank, and the
/// same-origin navigation that follows keeps that Window and runs no init script again; a runtime
/// refused in about:blank was then missing from the application's document for good. A realm of an
/// opaque origin (a sandboxed frame) belongs to whoever embeds it: the nearest ancestor with an
/// origin decides, and a top-level opaque realm gets none.
pub fn guarded_runtime(runtime: &str, own_origins: &[&str]) -> String {
    // A leading 'use strict' stays the script's directive; inside the guard's function it would not be one.
    let (strict, body) = match runtime.strip_prefix("'use strict';") {
        Some(rest) => ("'use strict';\n", rest),
        None => ("", runtime),
    };
    let own = serde_json::to_string(own_origins).unwrap_or_else(|_| "[]".into());
    format!(
        "{strict}(function () {{\n\
         const own = {own};\n\
         const origin = self.origin !== 'null' ? self.origin : Array.from(location.ancestorOrigins || []).find((o) => o !== 'null');\n\
         if (origin === undefined || own.includes(origin)) return;\n\
         {body}\n}})();\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guard_keeps_the_strict_directive_first_and_names_the_origins() {
        let s = guarded_runtime("'use strict';\n(() => { window.x = 1; })();", &["http://127.0.0.1:4000"]);
        assert!(s.starts_with("'use strict';\n(function () {"), "{s}");
        assert!(s.contains(r#"["http://127.0.0.1:4000"]"#) && s.contains("window.x = 1"), "{s}");
        assert!(s.trim_end().ends_with("})();"), "{s}");
    }
}
