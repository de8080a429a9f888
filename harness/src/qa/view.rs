//! The view options of every command that opens a Host (`snapshot`, `verify`, `inspect`, and a
//! scenario's own view for `replay`): `--layout-file`, `--viewport WxH`, `--dpr 1|2|3`, `--zoom Z`, as one
//! reusable clap [`ViewArgs`], turned into a checked [`View`] before any browser starts.

use std::path::{Path, PathBuf};

use crate::host::{HostOptions, Layout, VIEWPORT};

use super::declaration::{DeclarationError, LayoutFile};

/// The smallest and largest emulated window side the CLI accepts, CSS px at zoom 1.
pub const VIEWPORT_RANGE: (u32, u32) = (100, 4096);
/// The browser zoom levels the CLI accepts (Chromium's own range is 0.25 to 5).
pub const ZOOM_RANGE: (f64, f64) = (0.25, 5.0);

#[derive(Debug, Clone, Default, clap::Args)]
pub struct ViewArgs {
    /// A layout declaration (JSON, the shape of pages/host/layouts/default.json) to open instead of
    /// the default Host: managed arranges its panels, compat mounts its application panels in the
    /// page area; checked with the Host's own rules before anything opens.
    #[arg(long, value_name = "FILE")]
    pub layout_file: Option<PathBuf>,
    /// The emulated window, CSS px at zoom 1 (default 1280x720).
    #[arg(long, value_name = "WxH", value_parser = parse_viewport)]
    pub viewport: Option<(u32, u32)>,
    /// Device pixels per CSS px: 1, 2 or 3 (default 1; for a fractional devicePixelRatio such as
    /// 1.5, use --zoom 1.5).
    #[arg(long, value_name = "1|2|3", value_parser = parse_dpr)]
    pub dpr: Option<u8>,
    /// Browser zoom (1.25 = 125 %): the page sees a viewport of WxH / zoom CSS px and a
    /// devicePixelRatio of dpr x zoom, as Chromium's own zoom gives it.
    #[arg(long, value_parser = parse_zoom)]
    pub zoom: Option<f64>,
}

#[derive(Debug, thiserror::Error)]
pub enum ViewError {
    #[error(transparent)]
    Declaration(#[from] DeclarationError),
    #[error(
        "panel{} {} mount{} an application by an https: url, which engine fragment cannot mount: the gateway \
         proxies a url page's upstream over plain http: only (the harness has no TLS client); open it with \
         --engine iframe, or name its http: url",
        if panels.len() == 1 { "" } else { "s" }, panels.join(", "), if panels.len() == 1 { "s" } else { "" }
    )]
    UnproxiedUrlInFragment { panels: Vec<String> },
    /// The managed Host's own layout does not fit the asked viewport (the Host would refuse to open).
    #[error("the managed Host's default layout does not fit this view ({}x{} CSS px): {source}", css.0, css.1)]
    DefaultDoesNotFit {
        css: (u32, u32),
        #[source]
        source: DeclarationError,
    },
}

/// The managed Host's declaration when no `--layout-file` is given, under `pages`.
pub const DEFAULT_LAYOUT: &str = "host/layouts/default.json";

/// Checked view options: apply them to every [`HostOptions`] a command opens. Only the options
/// given are applied: a check that opens its Host at DPR 2 keeps it unless `--dpr` says otherwise.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct View {
    pub layout_file: Option<LayoutFile>,
    pub window: Option<(u32, u32)>,
    pub dpr: Option<u8>,
    pub zoom: Option<f64>,
}

impl ViewArgs {
    /// The layouts a command opens: the ones asked for, else with a layout file managed (the layout
    /// that arranges its panels), else both.
    pub fn layouts(&self, asked: Option<&[Layout]>) -> Vec<Layout> {
        match (&self.layout_file, asked) {
            (_, Some(l)) => l.to_vec(),
            (Some(_), None) => vec![Layout::Managed],
            (None, None) => Layout::ALL.to_vec(),
        }
    }

    /// Validates the options for a command that opens `layouts`: the layout file with the Host's
    /// rules under `pages`, and, when managed is among them, its fixed sizes against the CSS viewport
    /// these options give the page (compat does not apply the file's arrangement, so a file whose
    /// sizes do not fit is opened in compat as in a Host of any width).
    pub fn check(&self, pages: &Path, layouts: &[Layout]) -> Result<View, ViewError> {
        let mut view = View { layout_file: None, window: self.viewport, dpr: self.dpr, zoom: self.zoom };
        if let Some(p) = &self.layout_file {
            let fit = layouts.contains(&Layout::Managed).then(|| view.css_viewport());
            view.layout_file = Some(LayoutFile::load_fitting(pages, p, fit)?);
        }
        Ok(view)
    }
}

impl ViewArgs {
    /// The engines a command may open these options in ([`check_engines`]), checked before the
    /// layout file is, so the reason is named even when its url does not answer.
    pub fn check_engines(&self, engines: &[crate::host::Engine]) -> Result<(), ViewError> {
        check_engines(self.layout_file.as_deref(), engines)
    }
}

/// The engines a layout file may be opened in: engine fragment proxies a `url` page through the
/// gateway, over plain `http:` only, so a layout file with an `https:` url page is iframe only. A
/// file that cannot be read or parsed passes here: the Host's checker names what is wrong with it.
pub fn check_engines(layout_file: Option<&Path>, engines: &[crate::host::Engine]) -> Result<(), ViewError> {
    if !engines.contains(&crate::host::Engine::Fragment) {
        return Ok(());
    }
    let json = layout_file.and_then(|p| std::fs::read_to_string(p).ok()).unwrap_or_default();
    let panels = super::declaration::unproxied_url_pages(&json);
    if panels.is_empty() {
        Ok(())
    } else {
        Err(ViewError::UnproxiedUrlInFragment { panels })
    }
}

impl View {
    /// A managed Host without a layout file lays out `pages/host/layouts/default.json`: at a window
    /// or zoom other than the default, that declaration is checked with the Host's own rules before a
    /// browser starts (one that does not fit is refused, as a layout file is), compat is not.
    pub fn check_default_layout(&self, pages: &Path, layouts: &[Layout]) -> Result<(), ViewError> {
        if self.layout_file.is_some() || !layouts.contains(&Layout::Managed) {
            return Ok(());
        }
        if self.window.is_none() && self.zoom.is_none() {
            return Ok(());
        }
        let css = self.css_viewport();
        match LayoutFile::load(pages, &pages.join(DEFAULT_LAYOUT), css) {
            Ok(_) => Ok(()),
            Err(source) => Err(ViewError::DefaultDoesNotFit { css, source }),
        }
    }

    /// `options` at this view: window, DPR, zoom, and the layout file's declaration (managed lays it
    /// out, compat mounts its application panels in the page area).
    pub fn apply(&self, options: HostOptions) -> HostOptions {
        let mut o = options;
        if let Some((w, h)) = self.window {
            o = o.viewport(w, h);
        }
        if let Some(dpr) = self.dpr {
            o = o.device_scale_factor(f64::from(dpr));
        }
        if let Some(zoom) = self.zoom {
            o = o.zoom(zoom);
        }
        match &self.layout_file {
            Some(f) => o.declaration_in(f.json.clone(), f.folder.clone()),
            None => o,
        }
    }

    /// The page's viewport in CSS px (the window divided by the zoom), where points must fall.
    pub fn css_viewport(&self) -> (u32, u32) {
        let (w, h) = self.window.unwrap_or(VIEWPORT);
        HostOptions::new(Layout::Managed, crate::host::Engine::Iframe)
            .viewport(w, h)
            .zoom(self.zoom.unwrap_or(1.0))
            .viewport_size()
    }
}

pub fn parse_viewport(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(|| format!("“{s}” is not WxH (e.g. 1280x720)"))?;
    let side = |v: &str| -> Result<u32, String> {
        let n: u32 = v.trim().parse().map_err(|_| format!("“{v}” in “{s}” is not a whole number of CSS px"))?;
        let (lo, hi) = VIEWPORT_RANGE;
        if !(lo..=hi).contains(&n) {
            return Err(format!("{n} in “{s}” is outside {lo}..={hi} CSS px"));
        }
        Ok(n)
    };
    Ok((side(w)?, side(h)?))
}

/// `--dpr`: a whole 1, 2 or 3; anything else is refused naming the range (and `--zoom` for a
/// fractional ratio).
pub fn parse_dpr(s: &str) -> Result<u8, String> {
    match s.trim().parse::<u8>() {
        Ok(d @ 1..=3) => Ok(d),
        _ => Err(format!(
            "{s} is not a device pixel ratio this tool emulates: --dpr takes 1, 2 or 3 \
             (for a fractional ratio such as 1.5, use --zoom 1.5)"
        )),
    }
}

pub fn parse_zoom(s: &str) -> Result<f64, String> {
    let (lo, hi) = ZOOM_RANGE;
    let z: f64 = s.trim().parse().map_err(|_| format!("{s} is not a number: --zoom takes {lo} to {hi} (e.g. 1.25)"))?;
    if !(z.is_finite() && (lo..=hi).contains(&z)) {
        return Err(format!("zoom {s} is outside {lo}..={hi}"));
    }
    Ok(z)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_fragment_refuses_an_https_url_page_naming_it_and_why_and_takes_an_http_one() {
        use crate::host::Engine::{Fragment, Iframe};
        let dir = std::env::temp_dir().join(format!("attention-view-engines-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = |name: &str, url: &str| {
            let p = dir.join(name);
            let json = serde_json::json!({"layout": {"panels": {
                "a": {"kind": "page", "url": url}, "b": {"kind": "page", "id": "home"}}}});
            std::fs::write(&p, json.to_string()).unwrap();
            p
        };
        let http = file("http.json", "http://localhost:5173/app/");
        let https = file("https.json", "HTTPS://localhost:5173/app/");
        assert!(check_engines(Some(&http), &[Iframe, Fragment]).is_ok());
        assert!(check_engines(Some(&https), &[Iframe]).is_ok());
        let e = check_engines(Some(&https), &[Iframe, Fragment]).unwrap_err().to_string();
        assert!(e.starts_with("panel a mounts an application by an https: url") && e.contains("no TLS client"), "{e}");
        assert!(check_engines(Some(&dir.join("missing.json")), &[Fragment]).is_ok());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_layout_file_opens_in_the_layouts_asked_for_managed_when_none_is_and_compat_gets_its_declaration() {
        let with = ViewArgs { layout_file: Some("x.json".into()), ..ViewArgs::default() };
        assert_eq!(with.layouts(None), vec![Layout::Managed]);
        assert_eq!(with.layouts(Some(&[Layout::Compat])), vec![Layout::Compat]);
        assert_eq!(with.layouts(Some(&Layout::ALL)), Layout::ALL.to_vec());
        assert_eq!(ViewArgs::default().layouts(None), Layout::ALL.to_vec());
        let file = LayoutFile {
            path: "x.json".into(),
            json: "{}".into(),
            folder: "/tmp".into(),
            landmarks: Vec::new(),
            url_pages: Vec::new(),
            app_panels: Vec::new(),
        };
        let view = View { layout_file: Some(file), ..View::default() };
        for layout in Layout::ALL {
            let o = view.apply(HostOptions::new(layout, crate::host::Engine::Iframe));
            assert_eq!(o.served_declaration().map(|(_, json)| json), Some("{}"), "{layout}");
            assert!(o.path().contains("layout=file-"), "{layout}: {}", o.path());
        }
    }

    #[test]
    fn a_viewport_is_two_sides_within_the_range() {
        assert_eq!(parse_viewport("800x600"), Ok((800, 600)));
        assert_eq!(parse_viewport("100x4096"), Ok((100, 4096)));
        assert!(parse_viewport("99x600").unwrap_err().contains("outside"));
        assert!(parse_viewport("800x4097").unwrap_err().contains("outside"));
        assert!(parse_viewport("800").unwrap_err().contains("WxH"));
        assert!(parse_viewport("axb").unwrap_err().contains("whole number"));
    }

    #[test]
    fn a_zoom_is_a_finite_number_within_chromiums_range() {
        assert_eq!(parse_zoom("1.25"), Ok(1.25));
        assert_eq!(parse_zoom("0.25"), Ok(0.25));
        assert_eq!(parse_zoom("5"), Ok(5.0));
        assert!(parse_zoom("0.24").is_err());
        assert!(parse_zoom("5.01").is_err());
        assert!(parse_zoom("NaN").is_err());
    }

    #[test]
    fn zoom_divides_the_css_viewport_and_multiplies_the_device_pixel_ratio() {
        let v = View { layout_file: None, window: Some((1280, 720)), dpr: Some(2), zoom: Some(1.25) };
        assert_eq!(v.css_viewport(), (1024, 576));
        let o = v.apply(HostOptions::new(Layout::Compat, crate::host::Engine::Iframe));
        assert_eq!(o.viewport_size(), (1024, 576));
        assert_eq!(o.scale_factor(), 2.5);
        // Options not given leave what the command's own Host options say.
        let kept = View::default()
            .apply(HostOptions::new(Layout::Compat, crate::host::Engine::Iframe).device_scale_factor(2.0));
        assert_eq!((kept.scale_factor(), kept.viewport_size()), (2.0, VIEWPORT));
    }
}
