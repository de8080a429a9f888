//! `attention-harness inspect`: opens a fresh Host, makes one read of the runtime's inspection API
//! (find, css, tree, node, geometry, hit) from the top realm or from inside a named child realm, and
//! prints the runtime's JSON answer. Its arguments are checked before any browser starts, so a bad
//! one costs nothing and leaves nothing behind (exit 2).

use std::process::ExitCode;

use clap::{Args, Subcommand};
use serde_json::Value;

use crate::attention::inspect::NodesData;
use crate::attention::NodeRef;
use crate::host::{HitQuery, InspectOptions, Inspected, Realm, SemanticQuery};
use crate::qa::{View, ViewArgs};
use crate::{Engine, Frame, Harness, Host, HostOptions, Layout};

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
    /// `--layout-file`, `--viewport`, `--dpr`, `--zoom`: the page the read is made in, as `snapshot`
    /// and `verify` open it.
    #[command(flatten)]
    pub view: ViewArgs,
    #[command(subcommand)]
    pub read: Read,
}

/// Which node a node-level read is about.
#[derive(Debug, Clone, Args)]
pub struct Target {
    /// The node's `node_id` (its candidate `target_id`).
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
        /// At most this many nodes (absent: the runtime's default; it refuses values outside its range).
        #[arg(long, value_name = "N")]
        limit: Option<u32>,
    },
    /// CSS search in the calling realm's document (its tree's root).
    Css {
        /// The CSS selector, matched by Chromium's own engine in one document.
        selector: String,
        /// At most this many nodes (absent: the runtime's default; it refuses values outside its range).
        #[arg(long, value_name = "N")]
        limit: Option<u32>,
    },
    /// The tree from the caller's scope root.
    Tree {
        /// Levels below the root (absent: the runtime's default; it refuses values outside its range).
        #[arg(long, value_name = "N")]
        depth: Option<u32>,
        /// At most this many nodes per page (absent: the runtime's default).
        #[arg(long, value_name = "N")]
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
        /// Also sample within this radius around the point, CSS px (absent: the point only).
        #[arg(long, value_name = "PX")]
        radius: Option<f64>,
        /// The grid step within the radius, CSS px (absent: the runtime's default).
        #[arg(long, value_name = "PX")]
        step: Option<f64>,
    },
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
            Read::Node(t) | Read::Geometry(t) if t.node_id.is_none() && t.role.is_none() && t.name.is_none() => {
                return Err("node and geometry need --node-id, or --role and/or --name to find the node".into())
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
/// [`View::layouts`]), makes the read, prints the JSON answer; exit 0 when the runtime answered.
pub fn run(h: &Harness, args: &InspectArgs, view: &View, layout: Layout) -> Result<ExitCode, String> {
    h.block_on(async {
        let options = view.apply(HostOptions::new(layout, args.engine));
        let host = h.open_with(options).await.map_err(|e| e.to_string())?;
        let result = read(&host, args).await;
        host.close().await;
        let json = result?;
        println!("{}", serde_json::to_string_pretty(&json).unwrap_or_default());
        Ok(ExitCode::SUCCESS)
    })
}

async fn read(host: &Host, args: &InspectArgs) -> Result<Value, String> {
    let realm = args.realm();
    let opts = args.options();
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
            let tree = host.tree(&realm, None, &opts.clone().depth(0)).await.map_err(e)?;
            let root = scope_root(&tree)?;
            let opts = InspectOptions { limit: *limit, ..opts };
            host.find_css(&realm, selector, &root, &opts).await.map_err(e)?.json().clone()
        }
        Read::Tree { depth, limit } => {
            let opts = InspectOptions { depth: *depth, limit: *limit, ..opts };
            host.tree(&realm, None, &opts).await.map_err(e)?.json().clone()
        }
        Read::Node(t) => {
            let node = target(host, &realm, &opts, t).await?;
            host.node(&realm, &node).await.map_err(e)?.json().clone()
        }
        Read::Geometry(t) => {
            let node = target(host, &realm, &opts, t).await?;
            host.geometry(&realm, &node).await.map_err(e)?.json().clone()
        }
        Read::Hit { x, y, radius, step } => {
            let q = HitQuery { radius_css_px: *radius, step_css_px: *step, ..HitQuery::at(*x, *y) };
            host.hit_test(&realm, &q, &opts).await.map_err(e)?.json().clone()
        }
    };
    Ok(json)
}

/// The scope root a tree read names (`data.root`, else its first node).
fn scope_root(tree: &Inspected<NodesData>) -> Result<NodeRef, String> {
    tree.data
        .root
        .clone()
        .or_else(|| tree.data.nodes.first().map(|n| n.node_ref.clone()))
        .ok_or_else(|| format!("the tree read named no root: {}", tree.json()))
}

/// The node a node-level read is about: by id, or the first semantic match.
async fn target(host: &Host, realm: &Realm, opts: &InspectOptions, t: &Target) -> Result<NodeRef, String> {
    let found = match &t.node_id {
        Some(id) => host.find_node_id(realm, id, opts).await,
        None => {
            let q = SemanticQuery { role: t.role.clone(), name: t.name.clone(), ..SemanticQuery::default() };
            host.find_semantic(realm, &q, opts).await
        }
    }
    .map_err(|e| e.to_string())?;
    found.data.nodes.first().map(|n| n.node_ref.clone()).ok_or_else(|| format!("no node found: {}", found.json()))
}
