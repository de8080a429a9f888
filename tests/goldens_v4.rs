//! The v4 goldens (`fixtures/golden/v4/`, recorded by the browser test
//! `boundary_snapshot_v4_form_matches_its_golden_and_expands_to_the_v1_golden`): each is a
//! `wippy.attention.v4` payload that `contract::codec` expands to exactly its v1 golden.

use attention_harness::golden::{golden_path, v4_expands_to_v1_golden, v4_golden_path};
use attention_harness::{Engine, Layout};

#[test]
fn every_v4_golden_expands_to_its_v1_golden() {
    for layout in Layout::ALL {
        for engine in Engine::ALL {
            let name = format!("boundary-{layout}-{engine}");
            assert!(golden_path(&name).exists() && v4_golden_path(&name).exists(), "no v1 or v4 golden for {name}");
            v4_expands_to_v1_golden(&name).unwrap_or_else(|e| panic!("{e}"));
        }
    }
}
