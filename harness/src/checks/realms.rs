//! The runtime reaches every realm before page scripts: each realm's first page script records
//! whether the runtime was already there (`window.__runtimeBeforePageScripts`), and the harness
//! reads that record through CDP in the Host document, the cross-origin and fragment realms, and
//! the srcdoc realm.

use anyhow::ensure;

use super::{leaf_frame, Leaf};
use crate::host::{Frame, Host};

pub async fn runtime_before_page_scripts(host: &Host) -> anyhow::Result<String> {
    let mut realms = vec![("host document".to_string(), Frame::Top)];
    for leaf in Leaf::ALL {
        realms.push((format!("{} realm", leaf.landmark()), leaf_frame(host.engine, leaf)));
    }
    for (name, frame) in &realms {
        let seen = host.eval_in_frame(frame, "window.__runtimeBeforePageScripts").await?;
        ensure!(seen == true, "in the {name} the first page script ran before the runtime (it saw {seen})");
    }
    Ok(format!("{} realms", realms.len()))
}
