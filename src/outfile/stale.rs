//! Temporaries left by a killed writer: a write renames its temporary into
//! place or removes it, and a signal's handler removes those being
//! written, but `kill -9` (or a power cut) leaves `.NAME.XXXX.tracetui-tmp`
//! behind. The first write into a directory in a process removes those
//! there that nobody has touched for [`STALE`] — no live writer leaves a
//! temporary alone that long (even a sweep's 100 MB jobs file is written in
//! seconds), also not one on another host writing to a shared directory.

use super::TMP_SUFFIX;
use std::path::Path;
use std::time::{Duration, SystemTime};

/// How long a temporary is left untouched before it is taken for a killed
/// writer's.
pub(super) const STALE: Duration = Duration::from_secs(10 * 60);

/// Removes `dir`'s stale temporaries, the first time this process writes
/// there: how many.
pub(super) fn clean_once(dir: &Path) -> usize {
    if !crate::driver::first_write_in(dir) {
        return 0;
    }
    let removed = clean(dir, SystemTime::now());
    if removed > 0 {
        log::info!(
            "removed {removed} temporary file(s) a killed writer left in {}",
            crate::text::sanitize(&dir.display().to_string())
        );
    }
    removed
}

/// Removes `dir`'s temporaries (hidden, named `*.tracetui-tmp`, regular
/// files) last modified more than `STALE` before `now`: how many.
pub(super) fn clean(dir: &Path, now: SystemTime) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for e in entries.flatten() {
        let name = e.file_name();
        let name = name.to_string_lossy();
        if !name.starts_with('.') || !name.ends_with(TMP_SUFFIX) {
            continue;
        }
        let Ok(meta) = e.metadata() else { continue };
        let old = meta
            .modified()
            .ok()
            .and_then(|m| now.duration_since(m).ok())
            .is_some_and(|age| age > STALE);
        if meta.is_file() && old && std::fs::remove_file(e.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}
