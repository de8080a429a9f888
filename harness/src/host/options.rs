//! How a reference Host page is opened, as typed options: the layout and engine, agent actions,
//! the optional artifacts and geometry variants `pages/host/host.js` understands, a component
//! corpus, the managed layout's declaration, the composer's receipt timeout, and the emulated
//! viewport. [`HostOptions::url`] is the one place that turns them into the page's query string.

use super::{Engine, Layout};

/// The viewport every Host is opened with unless [`HostOptions::viewport`] says otherwise (CSS px,
/// DPR 1 unless [`HostOptions::device_scale_factor`] says otherwise), so geometry and goldens are
/// stable.
pub const VIEWPORT: (u32, u32) = (1280, 720);

/// An optional artifact of the reference Host (`?extras=a,b`, mounted at the end of the tools page
/// in the order named; pages/README.md "Omission extras", "Realm extras").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Extra {
    /// A same-site iframe whose document opts out of the runtime (`no-runtime`).
    NoRuntime,
    /// An app with an iframe of its own: a grandchild realm (`nest`).
    Nest,
    /// An iframe created blank, then navigated same-origin (`blank-nav`).
    BlankNav,
    /// A healthy Child-origin peer, mounted beside a misbehaving one (`sibling`).
    Sibling,
    /// A peer dense with candidates (`dense`).
    Dense,
    /// A peer without the runtime (`bare`).
    Bare,
    /// A peer that grants a capability but never answers queries (`hang`).
    Hang,
    /// A peer that grants a capability and then answers nothing, not even `ready` (`unready`).
    Unready,
    /// A peer that disappears while queried (`vanish`).
    Vanish,
    /// A peer that remounts while queried (`remount`).
    Remount,
    /// A peer that navigates while queried (`navigate`).
    Navigate,
    /// A peer that forges relay messages (`hostile`).
    Hostile,
    /// A peer granting 2 s leases (`renew-short`).
    RenewShort,
    /// A peer granting 12 s leases (`renew-mid`).
    RenewMid,
    /// A sandboxed peer (`sandboxed`).
    Sandboxed,
    /// A rotated peer (`rotated`).
    Rotated,
    /// Nine nested realms (`nested`).
    Nested,
    /// A grid of large candidates (`grid`).
    Grid,
    /// A fan of 100 tiny realms (`fan`).
    Fan,
    /// `count` Child-origin child realms in a 128x128 grid, each with a grandchild when
    /// `grandchildren` (`realms-N`, `realms-N-grand`). host.js knows counts 1, 4, 16 and 64; any other
    /// is reported as a `config` error, so the Host fails to open.
    Realms { count: u32, grandchildren: bool },
    /// One 128x128 child realm tiled with 4x4 px buttons (`realms-buttons`).
    RealmsButtons,
}

impl Extra {
    /// How many realms with the runtime the artifact adds to the Host: what the Host's `ready()`
    /// negotiates with before it settles (pages/README.md "Omission extras", "Realm extras").
    pub fn realms(&self) -> u32 {
        match self {
            Extra::Nested => 9,
            Extra::Fan => 100,
            Extra::Realms { count, grandchildren } => count * if *grandchildren { 2 } else { 1 },
            Extra::NoRuntime | Extra::Bare | Extra::BlankNav => 0,
            _ => 1,
        }
    }
}

impl std::fmt::Display for Extra {
    /// The name host.js knows the artifact by (its `data-landmark` prefix and mount id too).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = match self {
            Extra::NoRuntime => "no-runtime",
            Extra::Nest => "nest",
            Extra::BlankNav => "blank-nav",
            Extra::Sibling => "sibling",
            Extra::Dense => "dense",
            Extra::Bare => "bare",
            Extra::Hang => "hang",
            Extra::Unready => "unready",
            Extra::Vanish => "vanish",
            Extra::Remount => "remount",
            Extra::Navigate => "navigate",
            Extra::Hostile => "hostile",
            Extra::RenewShort => "renew-short",
            Extra::RenewMid => "renew-mid",
            Extra::Sandboxed => "sandboxed",
            Extra::Rotated => "rotated",
            Extra::Nested => "nested",
            Extra::Grid => "grid",
            Extra::Fan => "fan",
            Extra::Realms { count, grandchildren } => {
                return write!(f, "realms-{count}{}", if *grandchildren { "-grand" } else { "" })
            }
            Extra::RealmsButtons => "realms-buttons",
        };
        f.write_str(name)
    }
}

/// A geometry variant for the oracle tests (`?geometry=a,b`: one extra style sheet, and a scroll
/// after mounting).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Geometry {
    /// CSS zoom on the row holding the left and right leaves (`zoom-frame`).
    ZoomFrame,
    /// CSS zoom on the Host privacy probes (`zoom-leaf`).
    ZoomLeaf,
    /// `transform: scale()` on the left leaf's frame (`scale-frame`).
    ScaleFrame,
    /// Scale with translate on the left leaf's frame (`scale-translate-frame`).
    ScaleTranslateFrame,
    /// Scale on the panel holding the home page (`scale-panel`).
    ScalePanel,
    /// The page scrolled by 40 px (`scroll-page`).
    ScrollPage,
    /// The home panel scrolled by 40 px (`scroll-panel`).
    ScrollPanel,
    /// Border and padding on the left leaf's iframe (`border-frame`).
    BorderFrame,
    /// Rotation on the left leaf's frame, unsupported for point mapping (`rotate-frame`).
    RotateFrame,
    /// Skew on the left leaf's frame, unsupported for point mapping (`skew-frame`).
    SkewFrame,
}

impl std::fmt::Display for Geometry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Geometry::ZoomFrame => "zoom-frame",
            Geometry::ZoomLeaf => "zoom-leaf",
            Geometry::ScaleFrame => "scale-frame",
            Geometry::ScaleTranslateFrame => "scale-translate-frame",
            Geometry::ScalePanel => "scale-panel",
            Geometry::ScrollPage => "scroll-page",
            Geometry::ScrollPanel => "scroll-panel",
            Geometry::BorderFrame => "border-frame",
            Geometry::RotateFrame => "rotate-frame",
            Geometry::SkewFrame => "skew-frame",
        })
    }
}

/// A component corpus the home page holds instead of its leaves (`?corpus=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Corpus {
    Shoelace,
    Material,
    /// Hand-written ElementInternals components (iframe mounts only).
    Internals,
    /// Every sensitive control kind the spec names.
    Sensitive,
    /// HTML-AAM's element table, WAI-ARIA's roles and accname's steps (role and name conformance).
    Conformance,
}

impl Corpus {
    pub fn name(self) -> &'static str {
        match self {
            Corpus::Shoelace => "shoelace",
            Corpus::Material => "material",
            Corpus::Internals => "internals",
            Corpus::Sensitive => "sensitive",
            Corpus::Conformance => "conformance",
        }
    }
}

/// How a corpus is mounted (`?mount=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mount {
    /// A same-origin iframe (Host site).
    SameOrigin,
    /// A cross-origin iframe (Child site).
    CrossOrigin,
    /// A Web Fragment (needs [`Engine::Fragment`]).
    Fragment,
}

impl Mount {
    pub const ALL: [Mount; 3] = [Mount::SameOrigin, Mount::CrossOrigin, Mount::Fragment];

    /// The mount host.js knows by `name` (`same-origin`, `cross-origin`, `fragment`).
    pub fn named(name: &str) -> Option<Mount> {
        Mount::ALL.into_iter().find(|m| m.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            Mount::SameOrigin => "same-origin",
            Mount::CrossOrigin => "cross-origin",
            Mount::Fragment => "fragment",
        }
    }

    /// The engine a corpus mounted like this needs: fragments need the fragment engine.
    pub fn engine(self) -> Engine {
        match self {
            Mount::Fragment => Engine::Fragment,
            Mount::SameOrigin | Mount::CrossOrigin => Engine::Iframe,
        }
    }
}

/// The managed layout's declaration, `pages/host/layouts/<name>.json` (`?layout=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Declaration {
    /// `default.json` (what the managed Host loads without the parameter).
    Default,
    /// `stacked.json`.
    Stacked,
    /// `invalid.json`: a declaration the Host rejects before mounting.
    Invalid,
}

impl Declaration {
    pub fn name(self) -> &'static str {
        match self {
            Declaration::Default => "default",
            Declaration::Stacked => "stacked",
            Declaration::Invalid => "invalid",
        }
    }
}

/// How to open a reference Host: `HostOptions::new(Layout::Managed, Engine::Iframe).actions(true)`.
#[derive(Debug, Clone, PartialEq)]
pub struct HostOptions {
    layout: Layout,
    engine: Engine,
    actions: bool,
    extras: Vec<Extra>,
    geometry: Vec<Geometry>,
    corpus: Option<(Corpus, Mount)>,
    declaration: Option<DeclarationSource>,
    receipt_timeout_ms: Option<u32>,
    ready_timeout: Option<std::time::Duration>,
    device_scale_factor: f64,
    viewport: (u32, u32),
    zoom: f64,
    /// A one-document page: this file of `pages/apps/` opened alone as the top document.
    document: Option<String>,
    injection: Option<std::sync::Arc<str>>,
}

/// Where the managed layout's declaration comes from: a file of `pages/host/layouts/`, or a
/// declaration's JSON text the harness serves at `/host/layouts/<name>.json` (a `--layout-file`).
#[derive(Debug, Clone, PartialEq)]
enum DeclarationSource {
    Shipped(Declaration),
    Served { name: String, json: std::sync::Arc<str>, folder: Option<std::path::PathBuf> },
}

impl HostOptions {
    /// The default Host of `layout` and `engine`: agent actions off, no extras, DPR 1, [`VIEWPORT`].
    pub fn new(layout: Layout, engine: Engine) -> HostOptions {
        HostOptions {
            layout,
            engine,
            actions: false,
            extras: Vec::new(),
            geometry: Vec::new(),
            corpus: None,
            declaration: None,
            receipt_timeout_ms: None,
            ready_timeout: None,
            device_scale_factor: 1.0,
            viewport: VIEWPORT,
            zoom: 1.0,
            document: None,
            injection: None,
        }
    }

    /// A one-document page: `page`, a file of `pages/apps/`
    /// (`css-doc.html`), opened alone as the top document of a fresh context, served by the same
    /// server with the same runtime injected first, so the realm under test is the top realm
    /// ([`crate::host::Realm::Top`]) and nothing else runs beside it. For a test whose subject lives
    /// in one realm; [`HostOptions::layout`] and [`HostOptions::engine`] mean nothing for it.
    pub fn document(page: &str) -> HostOptions {
        let mut o = HostOptions::new(Layout::Managed, Engine::Iframe);
        o.document = Some(page.to_string());
        o
    }

    /// The file of `pages/apps/` a one-document page opens ([`HostOptions::document`]).
    pub fn one_document(&self) -> Option<&str> {
        self.document.as_deref()
    }

    /// The `url` pages of the served declaration (`{"kind": "page", "url": ...}`, applications served
    /// elsewhere), in panel order: the harness injects the runtime into their origins
    /// ([`HostOptions::inject`]).
    pub fn page_urls(&self) -> Vec<String> {
        let Some((_, json)) = self.served_declaration() else { return Vec::new() };
        let Ok(v) = serde_json::from_str::<serde_json::Value>(json) else { return Vec::new() };
        let panels = v.pointer("/layout/panels").and_then(serde_json::Value::as_object);
        panels
            .into_iter()
            .flat_map(|p| p.values())
            .filter(|p| p["kind"] == "page")
            .filter_map(|p| p["url"].as_str().map(str::to_string))
            .collect()
    }

    /// A script every new document of the page and of its out-of-process frames runs before its own
    /// (the runtime guarded by origin, [`crate::host::guarded_runtime`]).
    pub fn inject(mut self, script: impl Into<std::sync::Arc<str>>) -> HostOptions {
        self.injection = Some(script.into());
        self
    }

    /// The script [`HostOptions::inject`] set.
    pub fn injection(&self) -> Option<std::sync::Arc<str>> {
        self.injection.clone()
    }

    /// Agent clarification actions on or off (`?actions=on`); a Host with them on also gets the
    /// embedder's capture provider, the only Hosts whose overlay can ask for a capture.
    pub fn actions(mut self, on: bool) -> HostOptions {
        self.actions = on;
        self
    }

    /// Adds an optional artifact (after those already added).
    pub fn extra(mut self, extra: Extra) -> HostOptions {
        self.extras.push(extra);
        self
    }

    /// Adds optional artifacts, in order.
    pub fn extras(mut self, extras: impl IntoIterator<Item = Extra>) -> HostOptions {
        self.extras.extend(extras);
        self
    }

    /// Adds a geometry variant.
    pub fn geometry(mut self, variant: Geometry) -> HostOptions {
        self.geometry.push(variant);
        self
    }

    /// The home page holds only `corpus`, mounted as `mount`.
    pub fn corpus(mut self, corpus: Corpus, mount: Mount) -> HostOptions {
        self.corpus = Some((corpus, mount));
        self
    }

    /// The managed layout's declaration file.
    pub fn declaration(mut self, declaration: Declaration) -> HostOptions {
        self.declaration = Some(DeclarationSource::Shipped(declaration));
        self
    }

    /// The managed layout's declaration as JSON text (a QA layout file, validated beforehand with
    /// `qa::LayoutFile`): the harness serves it at `/host/layouts/file-<digest>.json` and the Host
    /// loads it as it loads its own (`?layout=file-<digest>`), with the same validation.
    pub fn declaration_json(mut self, json: impl Into<String>) -> HostOptions {
        use sha2::Digest as _;
        let json: String = json.into();
        let digest = sha2::Sha256::digest(json.as_bytes());
        let name = format!("file-{}", digest.iter().take(8).map(|b| format!("{b:02x}")).collect::<String>());
        self.declaration = Some(DeclarationSource::Served { name, json: json.into(), folder: None });
        self
    }

    /// [`HostOptions::declaration_json`] for a layout file in `folder`: its application pages
    /// (`{"kind": "page", "src": ...}`) are served from that folder at `/qa/<name>/` on both sites,
    /// and nothing outside it.
    pub fn declaration_in(self, json: impl Into<String>, folder: std::path::PathBuf) -> HostOptions {
        use sha2::Digest as _;
        let json: String = json.into();
        // Named by the text and the folder: the same file text in two folders serves two folders.
        let mut hasher = sha2::Sha256::new();
        hasher.update(json.as_bytes());
        hasher.update(b"\0");
        hasher.update(folder.to_string_lossy().as_bytes());
        let digest = hasher.finalize();
        let name = format!("file-{}", digest.iter().take(8).map(|b| format!("{b:02x}")).collect::<String>());
        let mut o = self;
        o.declaration = Some(DeclarationSource::Served { name, json: json.into(), folder: Some(folder) });
        o
    }

    /// The folder the served declaration's application pages come from ([`HostOptions::declaration_in`]).
    pub fn served_folder(&self) -> Option<&std::path::Path> {
        match &self.declaration {
            Some(DeclarationSource::Served { folder, .. }) => folder.as_deref(),
            _ => None,
        }
    }

    /// The served declaration's layout name and JSON, when [`HostOptions::declaration_json`] set one.
    pub fn served_declaration(&self) -> Option<(&str, &str)> {
        match &self.declaration {
            Some(DeclarationSource::Served { name, json, .. }) => Some((name, json)),
            _ => None,
        }
    }

    /// How long the composer waits for the Session's receipt of a message (its default is 10 s).
    pub fn receipt_timeout_ms(mut self, ms: u32) -> HostOptions {
        self.receipt_timeout_ms = Some(ms);
        self
    }

    /// The harness's own deadline for the runtime's `ready()` when opening (default
    /// [`crate::host::READY_TIMEOUT`]); not a spec timeout, and not sent to the page. When it
    /// expires the error says what was still pending (the step, the child realms not settled).
    pub fn ready_timeout(mut self, after: std::time::Duration) -> HostOptions {
        self.ready_timeout = Some(after);
        self
    }

    /// The deadline of [`HostOptions::ready_timeout`]; when none was set, the default
    /// [`crate::host::READY_TIMEOUT`] plus [`crate::host::READY_PER_REALM`] for every realm the
    /// extras add (64 child realms: 31 s, the fan of 100: 40 s).
    pub fn ready_deadline(&self) -> std::time::Duration {
        self.ready_timeout.unwrap_or_else(|| crate::host::READY_TIMEOUT + self.extra_realms_allowance())
    }

    /// The deadline for the page's load event: [`crate::host::LOAD_TIMEOUT`] plus the same
    /// allowance per realm the extras add (the load event waits for every frame's).
    pub fn load_deadline(&self) -> std::time::Duration {
        crate::host::LOAD_TIMEOUT + self.extra_realms_allowance()
    }

    fn extra_realms_allowance(&self) -> std::time::Duration {
        crate::host::READY_PER_REALM * self.extra_realms()
    }

    /// How many realms with the runtime the extras add to the Host ([`Extra::realms`], summed).
    pub fn extra_realms(&self) -> u32 {
        self.extras.iter().map(Extra::realms).sum()
    }

    /// Device pixels per CSS px (`Emulation.setDeviceMetricsOverride`'s `deviceScaleFactor`).
    pub fn device_scale_factor(mut self, dpr: f64) -> HostOptions {
        self.device_scale_factor = dpr;
        self
    }

    /// The emulated window, CSS px at zoom 1.
    pub fn viewport(mut self, width: u32, height: u32) -> HostOptions {
        self.viewport = (width, height);
        self
    }

    /// Browser zoom, as Chromium's own zoom gives it: the page's viewport is the window divided by
    /// `zoom` CSS px and its devicePixelRatio is the DPR times `zoom` (1.25 = 125 %).
    pub fn zoom(mut self, zoom: f64) -> HostOptions {
        self.zoom = zoom;
        self
    }

    pub fn layout(&self) -> Layout {
        self.layout
    }

    pub fn engine(&self) -> Engine {
        self.engine
    }

    /// Whether agent actions (and with them the capture provider) are on.
    pub fn actions_enabled(&self) -> bool {
        self.actions
    }

    /// Device pixels per CSS px the page is emulated at (the DPR times the zoom).
    pub fn scale_factor(&self) -> f64 {
        self.device_scale_factor * self.zoom
    }

    /// The page's viewport, CSS px (the window divided by the zoom).
    pub fn viewport_size(&self) -> (u32, u32) {
        if self.zoom == 1.0 {
            return self.viewport;
        }
        let css = |side: u32| (f64::from(side) / self.zoom).round() as u32;
        (css(self.viewport.0), css(self.viewport.1))
    }

    /// The browser zoom (1 unless [`HostOptions::zoom`] says otherwise).
    pub fn zoom_level(&self) -> f64 {
        self.zoom
    }

    /// The page's path and query on the Host site: `/host/<layout>.html?engine=<engine>&...`.
    pub fn path(&self) -> String {
        if let Some(page) = &self.document {
            return format!("/apps/{page}");
        }
        let mut q = vec![format!("engine={}", self.engine)];
        if self.actions {
            q.push("actions=on".into());
        }
        if !self.extras.is_empty() {
            q.push(format!("extras={}", join(&self.extras)));
        }
        if !self.geometry.is_empty() {
            q.push(format!("geometry={}", join(&self.geometry)));
        }
        if let Some((corpus, mount)) = self.corpus {
            q.push(format!("corpus={}&mount={}", corpus.name(), mount.name()));
        }
        match &self.declaration {
            Some(DeclarationSource::Shipped(d)) => q.push(format!("layout={}", d.name())),
            Some(DeclarationSource::Served { name, .. }) => q.push(format!("layout={name}")),
            None => {}
        }
        if let Some(ms) = self.receipt_timeout_ms {
            q.push(format!("receipt_timeout_ms={ms}"));
        }
        format!("/host/{}.html?{}", self.layout, q.join("&"))
    }

    /// The page's URL on the Host site `host_origin` (`http://127.0.0.1:<port>`).
    pub fn url(&self, host_origin: &str) -> String {
        format!("{host_origin}{}", self.path())
    }
}

fn join<T: std::fmt::Display>(items: &[T]) -> String {
    items.iter().map(T::to_string).collect::<Vec<_>>().join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_host_has_only_its_engine_in_the_query() {
        let o = HostOptions::new(Layout::Managed, Engine::Iframe);
        assert_eq!(o.url("http://127.0.0.1:1"), "http://127.0.0.1:1/host/managed.html?engine=iframe");
    }

    #[test]
    fn every_option_has_its_query_parameter() {
        let o = HostOptions::new(Layout::Compat, Engine::Fragment)
            .actions(true)
            .extras([Extra::Hang, Extra::Sibling])
            .extra(Extra::Realms { count: 16, grandchildren: true })
            .geometry(Geometry::ScrollPage)
            .geometry(Geometry::ZoomFrame)
            .corpus(Corpus::Sensitive, Mount::Fragment)
            .declaration(Declaration::Invalid)
            .receipt_timeout_ms(400);
        assert_eq!(
            o.path(),
            "/host/compat.html?engine=fragment&actions=on&extras=hang,sibling,realms-16-grand\
             &geometry=scroll-page,zoom-frame&corpus=sensitive&mount=fragment&layout=invalid&receipt_timeout_ms=400"
        );
        assert!(o.actions_enabled());
        assert_eq!(o.device_scale_factor(2.0).viewport(800, 600).viewport_size(), (800, 600));
    }

    #[test]
    fn a_one_document_page_is_its_file_of_apps_alone() {
        let o = HostOptions::document("css-doc.xhtml");
        assert_eq!(o.url("http://127.0.0.1:1"), "http://127.0.0.1:1/apps/css-doc.xhtml");
        assert_eq!(o.one_document(), Some("css-doc.xhtml"));
        assert_eq!(HostOptions::new(Layout::Managed, Engine::Iframe).one_document(), None);
    }

    #[test]
    fn a_served_declaration_is_named_by_its_content() {
        let a = HostOptions::new(Layout::Managed, Engine::Iframe).declaration_json("{\"layout\":1}");
        let b = HostOptions::new(Layout::Managed, Engine::Iframe).declaration_json("{\"layout\":2}");
        let (name, json) = a.served_declaration().unwrap();
        assert!(name.starts_with("file-") && name.len() == 21, "{name}");
        assert_eq!(json, "{\"layout\":1}");
        assert_ne!(a.served_declaration().unwrap().0, b.served_declaration().unwrap().0);
        assert!(a.path().ends_with(&format!("layout={name}")), "{}", a.path());
    }
}
