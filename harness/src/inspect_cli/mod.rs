//! `attention-harness inspect`: opens a fresh Host, makes one read of the runtime's inspection API
//! (find, css, tree, node, geometry, hit) from the top realm or from inside a named child realm, and
//! prints it as an outline for people (`outline.rs`), or with `--json` the runtime's JSON answer;
//! `--all` follows the read's continuations to its last page. A node-level read names its node by
//! what stays the same across runs (`--landmark`, `--css`, `--role`/`--name`), or by an id minted in
//! this same run. Its arguments are checked before any browser starts, so a bad one costs nothing
//! and leaves nothing behind (exit 2). The limits its help states are the runtime's (`limits.rs`).

pub mod limits;
pub mod outline;

use std::process::ExitCode;

use crate::stdout;
use clap::{Args, Subcommand};
use serde_json::Value;

use crate::attention::inspect::NodesData;
use crate::attention::NodeRef;
use crate::host::{HitQuery, InspectOptions, Inspected, Realm, SemanticQuery};
use crate::qa::{View, ViewArgs};
use crate::{Engine, Frame, Harness, Host, HostOptions, Layout};
use limits::limits;
use outline::Shape;

/// `inspect --layout L [--engine E] [view options] [--frame-url PART | --frame-name NAME]
/// [--from-root] <read>`.
#[derive(Debug, Args)]
pub struct InspectArgs {
    /// The Host shell: required unless --layout-file is given (then managed).
    #[arg(long, value_enum, required_unless_present = "layout_file")]
    pub layout: Option<Layout>,
    /// How the child apps are mounted: iframes or Web Fragments.
    #[arg(long, value_enum, default_value = "iframe")]
    pub engine: Engine,
    /// Call from inside the child realm whose frame URL contains this (`about:srcdoc`, `leaf.html?side=left`).
    #[arg(long, conflicts_with = "frame_name")]
    pub frame_url: Option<String>,
    /// Call from inside the child realm whose frame has this name (a Web Fragment's realm: `wf:leaf-left`).
    #[arg(long)]
    pub frame_name: Option<String>,
    /// Read the whole Host tree (`fromRoot: true`) instead of the caller's own subtree.
    #[arg(long)]
    pub from_root: bool,
    /// Print the runtime's JSON answer (with --all, a JSON array of every page) instead of the outline.
    #[arg(long)]
    pub json: bool,
    /// Follow the read's continuations and print every page (find, css and tree answer in pages).
    #[arg(long)]
    pub all: bool,
    /// `--layout-file`, `--viewport`, `--dpr`, `--zoom`: the page the read is made in, as `snapshot`
    /// and `verify` open it.
    #[command(flatten)]
    pub view: ViewArgs,
    #[command(subcommand)]
    pub read: Read,
}

/// Which node a node-level read is about: by what stays the same across runs (a landmark, a CSS
/// selector, a role and name), or by an id from this same page.
#[derive(Debug, Clone, Args)]
pub struct Target {
    /// The element with this `data-landmark` in the calling realm's document (same in every run;
    /// one in a child realm needs --frame-url or --frame-name).
    #[arg(long, value_name = "NAME", conflicts_with_all = ["node_id", "css", "role", "name"])]
    pub landmark: Option<String>,
    /// The first element this CSS selector matches in the calling realm's document.
    #[arg(long, value_name = "SELECTOR", conflicts_with_all = ["node_id", "role", "name"])]
    pub css: Option<String>,
    /// The node's `node_id`: only from a read of this same page (ids differ between runs).
    #[arg(long)]
    pub node_id: Option<String>,
    /// Else the first node `find` returns for this role ...
    #[arg(long)]
    pub role: Option<String>,
    /// ... and/or this accessible name.
    #[arg(long)]
    pub name: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum Read {
    /// Semantic search: at least one of --role, --name, --text, --resource-id, or --node-id.
    Find {
        /// The ARIA role to match (`button`, `link` ...).
        #[arg(long)]
        role: Option<String>,
        /// The accessible name to match.
        #[arg(long)]
        name: Option<String>,
        /// Text the node contains.
        #[arg(long)]
        text: Option<String>,
        /// The resource id to match (a panel's or an artifact's).
        #[arg(long)]
        resource_id: Option<String>,
        /// One node by its id, from a snapshot or a read of this same page (ids differ between runs).
        #[arg(long, conflicts_with_all = ["role", "name", "text", "resource_id"])]
        node_id: Option<String>,
        /// At most this many nodes per page.
        #[arg(long, value_name = "N", help = find_limit_help())]
        limit: Option<u32>,
    },
    /// CSS search in the calling realm's document (its tree's root).
    Css {
        /// The CSS selector, matched by Chromium's own engine in one document.
        selector: String,
        /// At most this many nodes per page.
        #[arg(long, value_name = "N", help = find_limit_help())]
        limit: Option<u32>,
    },
    /// The tree from the caller's scope root.
    Tree {
        /// Levels below the root.
        #[arg(long, value_name = "N", help = depth_help())]
        depth: Option<u32>,
        /// At most this many nodes per page.
        #[arg(long, value_name = "N", help = tree_limit_help())]
        limit: Option<u32>,
    },
    /// One node's record.
    Node(Target),
    /// One node's geometry.
    Geometry(Target),
    /// What is under a Host-viewport point (CSS px).
    Hit {
        /// Host-viewport x, CSS px.
        x: f64,
        /// Host-viewport y, CSS px.
        y: f64,
        /// Also sample within this radius around the point, CSS px.
        #[arg(long, value_name = "PX", help = radius_help())]
        radius: Option<f64>,
        /// The grid step within the radius, CSS px.
        #[arg(long, value_name = "PX", help = step_help())]
        step: Option<f64>,
    },
}

fn find_limit_help() -> String {
    let m = limits().find_max;
    format!("At most this many nodes per page, 1 to {m} (default {m}, the runtime's page)")
}

fn tree_limit_help() -> String {
    let m = limits().tree_max;
    format!("At most this many nodes per page, 1 to {m} (default {m}, the runtime's page)")
}

fn depth_help() -> String {
    let l = limits();
    format!("Levels below the root, 0 to {} (default {})", l.depth_max, l.depth_default)
}

fn radius_help() -> String {
    format!(
        "Also sample within this radius around the point, CSS px, 0 to {} (default: the point only)",
        limits().radius_max
    )
}

fn step_help() -> String {
    format!(
        "The grid step within the radius, CSS px, above 0 and at most {} (default: the runtime's)",
        limits().step_max
    )
}

impl InspectArgs {
    /// The checks clap cannot make: a query with something in it, finite numbers. Made before a
    /// browser starts.
    pub fn validate(&self) -> Result<(), String> {
        match &self.read {
            Read::Find { role, name, text, resource_id, node_id, .. }
                if [role, name, text, resource_id, node_id].iter().all(|v| v.is_none()) =>
            {
                return Err("find needs at least one of --role, --name, --text, --resource-id, --node-id".into());
            }
            Read::Css { selector, .. } if selector.is_empty() => return Err("css needs a selector".into()),
            Read::Node(t) | Read::Geometry(t)
                if t.node_id.is_none()
                    && t.role.is_none()
                    && t.name.is_none()
                    && t.landmark.is_none()
                    && t.css.is_none() =>
            {
                return Err(
                    "node and geometry need the node: --landmark, --css, --role and/or --name, or --node-id".into()
                )
            }
            Read::Node(t) | Read::Geometry(t) if t.landmark.as_deref() == Some("") || t.css.as_deref() == Some("") => {
                return Err("--landmark and --css need a value".into())
            }
            Read::Hit { x, y, radius, step } => {
                for (what, v) in [("x", Some(*x)), ("y", Some(*y)), ("--radius", *radius), ("--step", *step)] {
                    if v.is_some_and(|v| !v.is_finite()) {
                        return Err(format!("{what} is not a finite number"));
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn realm(&self) -> Realm {
        match (&self.frame_url, &self.frame_name) {
            (Some(u), _) => Realm::Frame(Frame::UrlContains(u.clone())),
            (None, Some(n)) => Realm::Frame(Frame::Name(n.clone())),
            (None, None) => Realm::Top,
        }
    }

    fn options(&self) -> InspectOptions {
        InspectOptions { from_root: self.from_root.then_some(true), ..InspectOptions::default() }
    }
}

/// Opens the Host of `layout` at `view` (both checked by the caller: [`ViewArgs::check`],
/// [`View::layouts`]), makes the read (every page of it with `--all`), prints the outline or the
/// JSON answer; exit 0 when the runtime answered.
pub fn run(h: &Harness, args: &InspectArgs, view: &View, layout: Layout) -> Result<ExitCode, String> {
    h.block_on(async {
        let options = view.apply(HostOptions::new(layout, args.engine));
        let host = h.open_with(options).await.map_err(|e| e.to_string())?;
        let result = read_pages(&host, args).await;
        host.close().await;
        let (shape, pages) = result?;
        if args.json {
            let out = if args.all { Value::Array(pages) } else { pages.into_iter().next().unwrap_or_default() };
            stdout::line(serde_json::to_string_pretty(&out).unwrap_or_default());
        } else {
            stdout::write(format_args!("{}", outline::outline(shape, &pages, args.all)?));
        }
        Ok(ExitCode::SUCCESS)
    })
}

/// The most pages `--all` reads before it stops (a runtime that never ends its continuations).
pub const MAX_PAGES: usize = 1000;

/// The read's first page, and with `--all` every page after it (the same read with each page's
/// continuation, until a page has none).
async fn read_pages(host: &Host, args: &InspectArgs) -> Result<(Shape, Vec<Value>), String> {
    let (shape, first) = read(host, args, None).await?;
    let mut pages = vec![first];
    if !args.all {
        return Ok((shape, pages));
    }
    while let Some(token) = pages.last().and_then(|p| p["continuation"].as_str()).map(str::to_string) {
        if pages.len() >= MAX_PAGES {
            return Err(format!(
                "--all stopped after {MAX_PAGES} pages: the runtime still answers with a continuation"
            ));
        }
        pages.push(read(host, args, Some(token)).await?.1);
    }
    Ok((shape, pages))
}

async fn read(host: &Host, args: &InspectArgs, continuation: Option<String>) -> Result<(Shape, Value), String> {
    let realm = args.realm();
    let opts = InspectOptions { continuation, ..args.options() };
    let e = |e: crate::HostError| e.to_string();
    let json = match &args.read {
        Read::Find { role, name, text, resource_id, node_id, limit } => {
            let opts = InspectOptions { limit: *limit, ..opts };
            match node_id {
                Some(id) => host.find_node_id(&realm, id, &opts).await.map_err(e)?.json().clone(),
                None => {
                    let q = SemanticQuery {
                        role: role.clone(),
                        name: name.clone(),
                        text: text.clone(),
                        resource_id: resource_id.clone(),
                    };
                    host.find_semantic(&realm, &q, &opts).await.map_err(e)?.json().clone()
                }
            }
        }
        Read::Css { selector, limit } => {
            let root = scope_root(&host.tree(&realm, None, &args.options().depth(0)).await.map_err(e)?)?;
            let opts = InspectOptions { limit: *limit, ..opts };
            host.find_css(&realm, selector, &root, &opts).await.map_err(e)?.json().clone()
        }
        Read::Tree { depth, limit } => {
            let opts = InspectOptions { depth: *depth, limit: *limit, ..opts };
            host.tree(&realm, None, &opts).await.map_err(e)?.json().clone()
        }
        Read::Node(t) => {
            let node = target(host, &realm, &args.options(), t).await?;
            return Ok((Shape::Nodes, host.node(&realm, &node).await.map_err(e)?.json().clone()));
        }
        Read::Geometry(t) => {
            let node = target(host, &realm, &args.options(), t).await?;
            return Ok((Shape::Geometry, host.geometry(&realm, &node).await.map_err(e)?.json().clone()));
        }
        Read::Hit { x, y, radius, step } => {
            let q = HitQuery { radius_css_px: *radius, step_css_px: *step, ..HitQuery::at(*x, *y) };
            return Ok((Shape::Hit, host.hit_test(&realm, &q, &opts).await.map_err(e)?.json().clone()));
        }
    };
    Ok((Shape::Nodes, json))
}

/// The scope root a tree read names (`data.root`, else its first node).
fn scope_root(tree: &Inspected<NodesData>) -> Result<NodeRef, String> {
    tree.data
        .root
        .clone()
        .or_else(|| tree.data.nodes.first().map(|n| n.node_ref.clone()))
        .ok_or_else(|| format!("the tree read named no root: {}", tree.json()))
}

/// The node a node-level read is about: by landmark or CSS selector (the calling realm's document),
/// by id, or the first semantic match.
async fn target(host: &Host, realm: &Realm, opts: &InspectOptions, t: &Target) -> Result<NodeRef, String> {
    let css = match (&t.landmark, &t.css) {
        (Some(l), _) => Some(format!("[data-landmark=\"{}\"]", l.replace('\\', "\\\\").replace('"', "\\\""))),
        (None, Some(c)) => Some(c.clone()),
        (None, None) => None,
    };
    let found = match (&css, &t.node_id) {
        (Some(css), _) => {
            let tree = host.tree(realm, None, &opts.clone().depth(0)).await.map_err(|e| e.to_string())?;
            let root = scope_root(&tree)?;
            host.find_css(realm, css, &root, &opts.clone().limit(1)).await
        }
        (None, Some(id)) => host.find_node_id(realm, id, opts).await,
        (None, None) => {
            let q = SemanticQuery { role: t.role.clone(), name: t.name.clone(), ..SemanticQuery::default() };
            host.find_semantic(realm, &q, opts).await
        }
    }
    .map_err(|e| e.to_string())?;
    if let Some(n) = found.data.nodes.first() {
        return Ok(n.node_ref.clone());
    }
    let reasons = found.reasons();
    let why = if reasons.is_empty() { String::new() } else { format!(" (omissions: {})", reasons.join(", ")) };
    Err(match (&t.landmark, &css, &t.node_id) {
        (Some(l), _, _) => format!(
            "no element with data-landmark=\"{l}\" in the calling realm's document{why}; one in a child realm needs --frame-url or --frame-name"
        ),
        (None, Some(c), _) => format!("no element matches the CSS selector {c} in the calling realm's document{why}"),
        (None, None, Some(id)) => format!(
            "no node {id} on this page{why}: node ids are minted per run; name the node by --landmark, --css or --role/--name"
        ),
        (None, None, None) => format!(
            "no node is {}{why}",
            crate::report::text::wanted(t.role.as_deref(), t.name.as_deref())
        ),
    })
}
