//! The runtime for application pages the harness does not serve (a layout file's `{"kind": "page",
//! "url": ...}`): the bundle wrapped so that it runs only in documents of those pages' origins. The
//! Host gives it to every realm through CDP before page scripts (`Page.addScriptToEvaluateOnNewDocument`
//! on the page and, paused at attach, on every out-of-process frame, as `audit` does); the guard keeps
//! it out of the Host and the reference pages, which the server already serves with the runtime.

/// `runtime` (the bundle's text) run only in realms whose origin is the origin of one of `urls`.
///
/// The realm's origin is `self.origin`, not `location.origin`: an iframe's initial about:blank and an
/// about:srcdoc document have the origin of the document that made them, while `location.origin`
/// says "null" for any about: URL. It matters beyond srcdoc: when a script touches an iframe's window
/// before its first navigation, Chromium runs this script in the initial about:blank, and the
/// same-origin navigation that follows keeps that Window and runs no init script again; a runtime
/// refused in about:blank was then missing from the application's document for good.
pub fn guarded_runtime(runtime: &str, urls: &[String]) -> String {
    // A leading 'use strict' stays the script's directive; inside the guard's function it would not be one.
    let (strict, body) = match runtime.strip_prefix("'use strict';") {
        Some(rest) => ("'use strict';\n", rest),
        None => ("", runtime),
    };
    let urls = serde_json::to_string(urls).unwrap_or_else(|_| "[]".into());
    format!(
        "{strict}(function () {{\n\
         const origins = {urls}.map((u) => {{ try {{ return new URL(u).origin; }} catch {{ return null; }} }});\n\
         if (!origins.includes(self.origin)) return;\n\
         {body}\n}})();\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guard_keeps_the_strict_directive_first_and_names_the_origins() {
        let s = guarded_runtime("'use strict';\n(() => { window.x = 1; })();", &["http://localhost:5173/app/".into()]);
        assert!(s.starts_with("'use strict';\n(function () {"), "{s}");
        assert!(s.contains(r#"["http://localhost:5173/app/"]"#) && s.contains("window.x = 1"), "{s}");
        assert!(s.trim_end().ends_with("})();"), "{s}");
    }
}
