//! The fuzzer, briefly, on every loader (the long runs are in BENCHMARKS.md),
//! and every saved input — what it once found, and the hostile inputs of
//! the issue that asked for it — replayed: none may panic.

use std::path::Path;
/// The fuzzer lives with its example, outside the library.
#[path = "../../examples/fuzz/fuzzer/mod.rs"]
mod fuzzer;

use fuzzer::{Options, Target, TARGETS};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn scratch(tag: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("tracetui-fuzz-test-{tag}-{}", std::process::id()))
}

#[test]
fn every_loader_survives_a_brief_run() {
    for t in TARGETS.iter() {
        let save = scratch(&format!("{}-found", t.name));
        let o = Options {
            target: t,
            root: root().to_path_buf(),
            execs: Some(150),
            secs: None,
            seed: 11,
            save: save.clone(),
            scratch: scratch(t.name),
        };
        let out = fuzzer::run(&o, &mut ()).unwrap();
        assert_eq!(out.execs, 150);
        assert!(
            out.panics.is_empty(),
            "{}: {:?} (move the input into tests/fuzz-regressions/{} once fixed)",
            t.name,
            out.panics,
            t.name
        );
        // The mutations reach past the parser: many inputs still load
        // (fewer of TOML's, whose grammar a flipped byte breaks more often).
        eprintln!("{}: {} of 150 loaded", t.name, out.loaded);
        let least = match t.name {
            "plan" | "lesson" => 8,
            // Two lines of numbers: most flipped bytes make them wrong.
            "cluster-spec" | "tables" => 4,
            _ => 30,
        };
        assert!(
            out.loaded > least,
            "{}: only {} of 150 loaded",
            t.name,
            out.loaded
        );
        let _ = std::fs::remove_dir_all(&o.scratch);
        let _ = std::fs::remove_dir_all(&save);
    }
}

#[test]
fn saved_inputs_replay_without_a_panic() {
    let mut replayed = 0;
    for t in TARGETS.iter() {
        let dir = root().join("tests/fuzz-regressions").join(t.name);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries {
            let p = e.unwrap().path();
            let s = scratch(&format!("replay-{}", t.name));
            let r = fuzzer::replay(t, root(), &p, &s);
            assert!(r.is_ok(), "{}: {:?}", p.display(), r);
            let _ = std::fs::remove_dir_all(&s);
            replayed += 1;
        }
    }
    assert!(
        replayed >= 8,
        "the issue's hostile inputs are among them ({replayed})"
    );
}

#[test]
fn a_missing_seed_is_an_error_not_a_silent_pass() {
    // Seeds are read from the repository: without them the run says so.
    let t: &Target = Target::find("itp").unwrap();
    let o = Options {
        target: t,
        root: std::env::temp_dir().join("tracetui-no-such-root"),
        execs: Some(1),
        secs: None,
        seed: 1,
        save: scratch("none"),
        scratch: scratch("none-s"),
    };
    assert!(fuzzer::run(&o, &mut ()).is_err());
}

#[test]
fn every_format_has_a_fuzz_target() {
    // A format added without a target would pass every fuzz test unfuzzed.
    for f in tracetui::trace::FORMATS.iter() {
        assert!(
            Target::find(f.name()).is_some(),
            "format {} has no target in examples/fuzz/fuzzer/targets.rs",
            f.name()
        );
    }
}
