//! Marks the build when the released traces are at hand
//! (`TRACETUI_REAL_TRACES`), so the tests that need them are `#[ignore]`d
//! with their reason otherwise — a skip the test summary shows.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(real_traces)");
    println!("cargo::rerun-if-env-changed=TRACETUI_REAL_TRACES");
    println!("cargo::rerun-if-changed=build.rs");
    if std::env::var_os("TRACETUI_REAL_TRACES").is_some_and(|v| !v.is_empty()) {
        println!("cargo::rustc-cfg=real_traces");
    }
}
