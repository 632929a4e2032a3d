//! Marks the build when the released traces are at hand
//! (`TRACETUI_REAL_TRACES`), so the tests that need them are `#[ignore]`d
//! with their reason otherwise — a skip the test summary shows; and names
//! the build: the commit it was built from and whether tracked files
//! differed from it (`TRACETUI_COMMIT`, `TRACETUI_MODIFIED`; `unknown`
//! outside a git checkout), which `--version` and every run's meta carry.

use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(real_traces)");
    println!("cargo::rerun-if-env-changed=TRACETUI_REAL_TRACES");
    println!("cargo::rerun-if-changed=build.rs");
    if std::env::var_os("TRACETUI_REAL_TRACES").is_some_and(|v| !v.is_empty()) {
        println!("cargo::rustc-cfg=real_traces");
    }
    name_the_build();
}

/// `git` in this package's directory, its output trimmed; `None` where
/// git is missing or this is no checkout.
fn git(args: &[&str]) -> Option<String> {
    let o = Command::new("git")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()?;
    o.status
        .success()
        .then(|| String::from_utf8_lossy(&o.stdout).trim().to_string())
}

fn name_the_build() {
    let commit = git(&["rev-parse", "HEAD"]).filter(|c| !c.is_empty());
    // Tracked files only: untracked ones (outputs, scratch) are no part of
    // what was built unless added.
    let modified = commit
        .as_ref()
        .and_then(|_| {
            // Without refreshing the index (a file cargo watches) or
            // taking git's lock from a git running beside the build.
            git(&[
                "--no-optional-locks",
                "status",
                "--porcelain",
                "--untracked-files=no",
            ])
        })
        .map(|s| !s.is_empty());
    println!(
        "cargo::rustc-env=TRACETUI_COMMIT={}",
        commit.as_deref().unwrap_or("unknown")
    );
    println!(
        "cargo::rustc-env=TRACETUI_MODIFIED={}",
        match modified {
            Some(true) => "true",
            Some(false) => "false",
            None => "unknown",
        }
    );
    let said = match (&commit, modified) {
        (Some(c), Some(true)) => format!("commit {c}, tracked files modified"),
        (Some(c), _) => format!("commit {c}"),
        (None, _) => "not built from a git checkout".to_string(),
    };
    println!("cargo::rustc-env=TRACETUI_BUILD={said}");
    // Again when the commit moves or a source changes (a directory is
    // watched file by file). Only paths that exist: cargo takes a missing
    // one as changed on every build. `--git-path` finds them in a worktree
    // too.
    let mut watched = vec![
        "HEAD".to_string(),
        "index".to_string(),
        "packed-refs".to_string(),
    ];
    if let Some(head) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watched.push(head);
    }
    for name in watched {
        if let Some(path) = git(&["rev-parse", "--git-path", &name]) {
            let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
            if path.exists() {
                println!("cargo::rerun-if-changed={}", path.display());
            }
        }
    }
    for p in [
        "src",
        "engine",
        "model",
        "driver",
        "Cargo.toml",
        "Cargo.lock",
        "themes",
    ] {
        println!("cargo::rerun-if-changed={p}");
    }
}
