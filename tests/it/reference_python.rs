//! The plain Python reference simulator in `benches/` (the speed ratio's
//! other side) gives tracetui's figures exactly, so the ratio compares the
//! same work.

use crate::common;

use common::cli::{stderr, stdout, tracetui, SAMPLE};

#[test]
fn the_python_reference_gives_the_same_mean_jct_as_tracetui() {
    if !common::python() {
        return;
    }
    for policy in ["fifo", "first-fit"] {
        let o = std::process::Command::new("python3")
            .args(["benches/reference_sim.py", SAMPLE, "144", policy])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let py = String::from_utf8(o.stdout).unwrap();
        let t = tracetui(&[
            "sim",
            "itp",
            SAMPLE,
            "--gpus",
            "144",
            "--placement",
            "pack",
            "--policy",
            policy,
            "--format",
            "json",
        ]);
        assert!(t.status.success(), "{}", stderr(&t));
        let v: serde_json::Value = serde_json::from_str(&stdout(&t)).unwrap();
        let mean = v["jct_s"]["mean"].as_f64().unwrap();
        let done = v["jobs_done"].as_u64().unwrap();
        assert_eq!(
            py.trim(),
            format!("reference {policy}: {done} jobs done, mean JCT {mean:.6} s"),
        );
    }
}
