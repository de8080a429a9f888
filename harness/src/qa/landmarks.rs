//! Where a command may sample, checked before a browser starts: `--point X,Y` inside the page's
//! viewport, or a landmark the reference Host (or the layout file) really has. [`REFERENCE`] is
//! every `data-landmark` of the default Host in the four cells, in every frame and shadow tree;
//! tests/cli_qa.rs reads them back from Chromium's DOM (pierced documents of every frame) and
//! fails when this list and the Host disagree in either direction. A `css:` landmark
//! ([`crate::css_landmark`]) names an element by a selector instead.

use super::declaration::LayoutFile;
use crate::css_landmark;
use crate::host::Layout;

/// Every landmark of the default reference Host (managed and compat, iframe and fragment).
pub const REFERENCE: &[&str] = &[
    "boundary",
    "bridge-app",
    "bridge-artifact",
    "bridge-fixture",
    "bridge-frame",
    "chat",
    "closed-fixture",
    "closed-shadow-app",
    "closed-shadow-artifact",
    "closed-shadow-frame",
    "closed-shadow-leaf",
    "closed-shadow-safe-text",
    "compat-shell",
    "composer",
    "composer-context-toggle",
    "composer-input",
    "composer-send",
    "composer-uploads",
    "host-privacy-probes",
    "host-probe-exclude",
    "host-probe-password",
    "host-probe-redact",
    "leaf-left-frame",
    "leaf-right-frame",
    "left-leaf",
    "left-leaf-app",
    "left-leaf-text",
    "managed-shell",
    "nav",
    "nested-artifact",
    "oopif-leaf",
    "oopif-safe-text",
    "page-area",
    "page-home",
    "page-tools",
    "panel-chat",
    "panel-main",
    "panel-nav",
    "panel-tools",
    "privacy-probes",
    "probe-exclude",
    "probe-password",
    "probe-redact",
    "right-leaf",
    "right-leaf-app",
    "right-leaf-artifact",
    "right-leaf-text",
];

/// Landmark families whose members carry a name of their own (`nav-<link>`).
pub const REFERENCE_PREFIXES: &[&str] = &["nav-"];

/// Where a command samples.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// A Host-viewport point, CSS px.
    Point(f64, f64),
    /// The point on the shared edge of the two leaves, measured live (`checks::sampling`).
    Boundary,
    /// The centre of a landmark element, measured live.
    Landmark(String),
}

/// Parses `--point` (`X,Y` or a landmark) and checks it against the page's CSS viewport and the
/// landmarks the Host of `layout` (with `file`'s panels and pages) has.
pub fn target(
    point: &str,
    css_viewport: (u32, u32),
    file: Option<&LayoutFile>,
    layout: Layout,
) -> Result<Target, String> {
    let file_landmarks = file.map(|f| f.landmarks_in(layout));
    if let Some((x, y)) = point.split_once(',') {
        let x: f64 = x
            .trim()
            .parse()
            .map_err(|_| format!("x in --point “{point}” is not a number (X,Y in CSS px, or a landmark)"))?;
        let y: f64 = y
            .trim()
            .parse()
            .map_err(|_| format!("y in --point “{point}” is not a number (X,Y in CSS px, or a landmark)"))?;
        if !(x.is_finite() && y.is_finite()) {
            return Err(format!("--point “{point}” is not finite"));
        }
        let (w, h) = css_viewport;
        if !(0.0..f64::from(w)).contains(&x) || !(0.0..f64::from(h)).contains(&y) {
            return Err(format!(
                "--point “{point}” is outside the {w}x{h} CSS px viewport (x from 0 below {w}, y from 0 below {h})"
            ));
        }
        return Ok(Target::Point(x, y));
    }
    if point == "boundary" {
        return Ok(Target::Boundary);
    }
    if let Some(rest) = css_landmark::selector_text(point) {
        // Named by a selector: the panels it may name are the layout file's, else the reference Host's.
        let names: Vec<&str> = match &file_landmarks {
            Some(l) => l.iter().map(String::as_str).collect(),
            None => REFERENCE.to_vec(),
        };
        let panels: Vec<&str> = names.iter().filter_map(|l| l.strip_prefix("panel-")).collect();
        css_landmark::check(rest, &panels)?;
        return Ok(Target::Landmark(point.to_string()));
    }
    let known = REFERENCE.contains(&point)
        || REFERENCE_PREFIXES.iter().any(|p| point.strip_prefix(p).is_some_and(|rest| !rest.is_empty()))
        || file_landmarks.as_ref().is_some_and(|l| l.iter().any(|l| l == point));
    if !known {
        let mut names: Vec<&str> = REFERENCE.to_vec();
        if let Some(l) = &file_landmarks {
            names.extend(l.iter().map(String::as_str));
        }
        return Err(format!("no landmark “{point}” (landmarks: {})", names.join(", ")));
    }
    Ok(Target::Landmark(point.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_point_must_fall_inside_the_viewport() {
        assert_eq!(target("0,0", (1280, 720), None, Layout::Managed), Ok(Target::Point(0.0, 0.0)));
        assert_eq!(target("1279.5,719", (1280, 720), None, Layout::Managed), Ok(Target::Point(1279.5, 719.0)));
        assert!(target("1280,10", (1280, 720), None, Layout::Managed).unwrap_err().contains("outside the 1280x720"));
        assert!(target("10,720", (1280, 720), None, Layout::Managed).unwrap_err().contains("outside"));
        assert!(target("-1,10", (1280, 720), None, Layout::Managed).unwrap_err().contains("outside"));
        assert!(target("5000,5000", (1280, 720), None, Layout::Managed).unwrap_err().contains("5000,5000"));
    }

    #[test]
    fn an_unknown_landmark_is_named_with_the_known_ones() {
        let e = target("no-such-place", (1280, 720), None, Layout::Managed).unwrap_err();
        assert!(e.contains("no-such-place") && e.contains("boundary") && e.contains("left-leaf"), "{e}");
        assert_eq!(target("nav-home", (1280, 720), None, Layout::Managed), Ok(Target::Landmark("nav-home".into())));
        assert!(target("nav-", (1280, 720), None, Layout::Managed).is_err());
        assert_eq!(target("boundary", (1280, 720), None, Layout::Managed), Ok(Target::Boundary));
    }

    #[test]
    fn a_layout_file_adds_its_panels_and_pages() {
        let f = LayoutFile {
            path: "x.json".into(),
            json: String::new(),
            folder: ".".into(),
            landmarks: vec!["panel-aside".into(), "panel-side".into()],
            url_pages: Vec::new(),
            app_panels: vec!["side".into()],
        };
        assert_eq!(
            target("panel-side", (1280, 720), Some(&f), Layout::Managed),
            Ok(Target::Landmark("panel-side".into()))
        );
        assert!(target("panel-side", (1280, 720), None, Layout::Managed).is_err());
        // A css: landmark's panel prefix is checked against the file's panels.
        assert_eq!(
            target("css:side:.x", (1280, 720), Some(&f), Layout::Managed),
            Ok(Target::Landmark("css:side:.x".into()))
        );
        assert!(target("css:main:.x", (1280, 720), Some(&f), Layout::Managed)
            .unwrap_err()
            .contains("panels: aside, side"));
        assert_eq!(
            target("css:main:.x", (1280, 720), None, Layout::Managed),
            Ok(Target::Landmark("css:main:.x".into()))
        );
        assert!(target("css:", (1280, 720), None, Layout::Managed).unwrap_err().contains("names no selector"));
        // In compat a builtin panel is compat's own chrome: only the application panels are landmarks.
        assert_eq!(
            target("panel-side", (1280, 720), Some(&f), Layout::Compat),
            Ok(Target::Landmark("panel-side".into()))
        );
        assert!(target("panel-aside", (1280, 720), Some(&f), Layout::Managed).is_ok());
        assert!(target("panel-aside", (1280, 720), Some(&f), Layout::Compat).unwrap_err().contains("no landmark"));
        assert!(target("css:aside:.x", (1280, 720), Some(&f), Layout::Compat).unwrap_err().contains("panels: side"));
    }
}
