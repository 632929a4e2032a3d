//! Where the load cache lives and what names this build in its keys: the
//! user's cache directory (`$XDG_CACHE_HOME`, else `~/.cache`), never the
//! trace's; `--no-cache` for none.

use crate::trace::CacheSpec;
use std::path::PathBuf;

/// Inputs smaller than this load in about a second uncached
/// (`TRACETUI_CACHE_MIN_BYTES` says otherwise).
const MIN_BYTES: u64 = 64 << 20;

/// The cache directory: `$XDG_CACHE_HOME/tracetui/loads`, else
/// `$HOME/.cache/tracetui/loads`; `None` without either.
pub(crate) fn dir() -> Option<PathBuf> {
    let abs = |v: std::ffi::OsString| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
    let base = std::env::var_os("XDG_CACHE_HOME")
        .and_then(abs)
        .or_else(|| {
            std::env::var_os("HOME")
                .and_then(abs)
                .map(|h| h.join(".cache"))
        })?;
    Some(base.join("tracetui").join("loads"))
}

/// This build's name for the cache: version, commit, and the binary's own
/// size and time (a rebuild of a modified tree is another build).
fn build() -> String {
    let b = super::meta::Build::this();
    let exe = std::env::current_exe()
        .and_then(std::fs::metadata)
        .map(|m| {
            let t = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            format!("{} bytes at {t}", m.len())
        })
        .unwrap_or_default();
    format!(
        "{} {} {:?} {exe}",
        env!("CARGO_PKG_VERSION"),
        b.commit,
        b.modified
    )
}

/// The cache a load goes through, unless `--no-cache`.
pub(crate) fn spec(no_cache: bool) -> Option<CacheSpec> {
    if no_cache {
        return None;
    }
    let min_bytes = std::env::var("TRACETUI_CACHE_MIN_BYTES")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(MIN_BYTES);
    Some(CacheSpec {
        dir: dir()?,
        build: build(),
        min_bytes,
    })
}
