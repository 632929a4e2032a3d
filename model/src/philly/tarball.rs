//! The Philly release as downloaded, `trace-data.tar.gz` (0.98 GB; 6.6 GB
//! unpacked), read in place and never unpacked to disk. Loading walks the
//! archive from the start only as far as the machine list, the job log and
//! the GPU utilisation file's first rows; the utilisation files are indexed
//! later, on first use, in one background pass over the whole archive that
//! serves all three. Both passes record the inflater's state every 16 MB
//! (`gzseek`), so a member or a minute is then read from the nearest one.

use super::util::{self, UtilIndex};
use super::{CPU_UTIL, GPU_UTIL, MEM_UTIL};
use crate::gzseek::{GzReader, Seekable, SPACING};
use crate::input::InputError;
use rustc_hash::FxHashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// The release's file name.
pub(crate) const RELEASE: &str = "trace-data.tar.gz";

/// Where a member's bytes are in the unpacked archive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Member {
    /// Offset of its first byte in the unpacked stream.
    pub start: u64,
    /// Its length in bytes.
    pub size: u64,
}

/// The release tarball, read in place: members found by walking the stream, and
/// the utilisation files indexed in one pass on first use.
pub struct Tarball {
    /// The archive's path.
    pub path: PathBuf,
    gz: Seekable,
    /// The archive's (compressed) size.
    pub size: u64,
    strict: bool,
    /// Members found so far, by file name; the first of a name is kept.
    members: Mutex<FxHashMap<String, Member>>,
    /// A walk has reached the end: a member not found is not there.
    complete: AtomicBool,
    utils: OnceLock<()>,
    indexes: Mutex<FxHashMap<&'static str, Result<UtilIndex, InputError>>>,
    /// Compressed bytes the running pass has consumed, for progress.
    scanned: Arc<AtomicU64>,
}

impl std::fmt::Debug for Tarball {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tarball").field("path", &self.path).finish()
    }
}

/// Whether `path` is an archive rather than a directory of files.
pub(crate) fn is_archive(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

impl Tarball {
    /// Opens the archive at `path`; nothing is read until a walk.
    pub fn open(path: &Path, strict: bool) -> Result<Arc<Tarball>, InputError> {
        let f = crate::reader::open_file(path)?;
        let size = f.metadata().map_or(0, |m| m.len());
        Ok(Arc::new(Tarball {
            path: path.to_path_buf(),
            gz: Seekable::new(path.to_path_buf(), SPACING),
            size,
            strict,
            members: Mutex::default(),
            complete: AtomicBool::new(false),
            utils: OnceLock::new(),
            indexes: Mutex::default(),
            scanned: Arc::default(),
        }))
    }

    /// How errors and notes name a member: `trace-data.tar.gz[cluster_job_log]`.
    pub fn shown(&self, member: &str) -> String {
        format!("{}[{member}]", self.path.display())
    }

    /// `e` reading the archive, said of it and kept as the cause.
    fn error(&self, e: std::io::Error) -> InputError {
        InputError::io(&self.path.display().to_string(), "cannot read", e)
    }

    /// Where member `name` is, once a walk has found it.
    pub fn member(&self, name: &str) -> Option<Member> {
        self.members.lock().ok()?.get(name).copied()
    }

    /// Whether `name` may still turn up: not found yet, and no walk has ended.
    pub fn may_hold(&self, name: &str) -> bool {
        self.member(name).is_some() || !self.complete.load(Ordering::Relaxed)
    }

    /// Walks from the start until every one of `wanted` is found, or to the end.
    pub fn find(&self, wanted: &[&str]) -> Result<(), InputError> {
        self.walk(|_, _, _| Ok(wanted.iter().all(|w| self.member(w).is_some())))
    }

    /// Calls `visit` on each file in the archive (after noting where it is)
    /// until it says stop.
    fn walk(
        &self,
        mut visit: impl FnMut(
            &str,
            &mut crate::tar::Archive<GzReader>,
            Member,
        ) -> Result<bool, InputError>,
    ) -> Result<(), InputError> {
        self.scanned.store(0, Ordering::Relaxed);
        let gz = self.gz.read_from_start().map_err(|e| self.error(e))?;
        let mut archive = crate::tar::Archive::new(gz.with_progress(self.scanned.clone()));
        let damaged = |e: std::io::Error| {
            let shown = self.path.display().to_string();
            let said = format!("cannot read: {e} (not a tar.gz archive, or damaged)");
            InputError::file(&shown, said).because(e)
        };
        while let Some(entry) = archive.next().map_err(damaged)? {
            let Some(name) = crate::archive::file_member(&entry) else {
                continue;
            };
            let m = Member {
                start: entry.start,
                size: entry.size,
            };
            if let Ok(mut members) = self.members.lock() {
                members.entry(name.clone()).or_insert(m);
            }
            if visit(&name, &mut archive, m)? {
                return Ok(());
            }
        }
        // The rest (the tar's end blocks, the gzip trailer) is read too, so
        // a pass to the end checks the archive's checksum.
        std::io::copy(&mut archive.into_inner(), &mut std::io::sink()).map_err(damaged)?;
        self.complete.store(true, Ordering::Relaxed);
        Ok(())
    }

    /// `len` bytes from `offset` of the unpacked archive.
    pub fn range(&self, offset: u64, len: u64) -> std::io::Result<impl Read + Send> {
        self.gz.range(offset, len)
    }

    /// A member's bytes.
    pub fn read(&self, m: Member) -> Result<impl Read + Send, InputError> {
        self.range(m.start, m.size).map_err(|e| self.error(e))
    }

    /// How far the running pass has got, 0–1.
    pub fn progress(&self) -> f64 {
        self.scanned.load(Ordering::Relaxed) as f64 / self.size.max(1) as f64
    }

    /// `member`'s index, from the one pass that indexes every utilisation
    /// file (run on the first call; later calls wait for it). Each member's
    /// index is handed out once; one the archive lacks has no minutes.
    pub fn util_index(&self, member: &'static str) -> Result<UtilIndex, InputError> {
        self.utils.get_or_init(|| self.index_utils());
        self.indexes
            .lock()
            .ok()
            .and_then(|mut i| i.remove(member))
            .unwrap_or_else(|| Ok(UtilIndex::absent()))
    }

    fn index_utils(&self) {
        let mut done: FxHashMap<&'static str, Result<UtilIndex, InputError>> = FxHashMap::default();
        let walked = self.walk(|name, entry, m| {
            if let Some(&u) = [GPU_UTIL, CPU_UTIL, MEM_UTIL].iter().find(|&&u| u == name) {
                if !done.contains_key(u) {
                    let shown = self.shown(u);
                    done.insert(u, util::scan(entry, m.start, &shown, self.strict, |_| {}));
                }
            }
            Ok(false)
        });
        if let Err(e) = walked {
            // A damaged archive (cut short, or its checksum wrong): no
            // minute of it is trusted, and each file says why.
            for u in [GPU_UTIL, CPU_UTIL, MEM_UTIL] {
                done.insert(u, Err(e.clone()));
            }
        }
        if let Ok(mut i) = self.indexes.lock() {
            *i = done;
        }
    }
}
