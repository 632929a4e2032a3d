//! The load cache: what a slow load derives (today the PAI release's
//! tables, which take seconds to parse at full scale), kept in one file
//! per trace under the user's cache directory, never beside the trace.
//!
//! A file is found by its key — the format, the path as given and where
//! it leads, the load options, each input file's size, modification time
//! and inode, and the build — and its key is stored in it and compared
//! whole, so a changed input, option or build is a miss, never a stale
//! result. A file is written beside its final name and renamed into place,
//! checked by a checksum when read, and the oldest go past `KEEP`.

pub(crate) mod codec;

use crate::input::{LoadReport, Skips};
use crate::model::Symbols;
use crate::LoadOptions;
use codec::{Reader, Unreadable, Writer};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Where loads are cached, and the build they were made by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheSpec {
    /// The directory of cache files (`$XDG_CACHE_HOME/tracetui/loads`).
    pub dir: PathBuf,
    /// The build's name: a file another build wrote is not read.
    pub build: String,
    /// Inputs smaller than this together load fast enough uncached.
    pub min_bytes: u64,
}

/// Whether every input was last changed at least 2 s before `since`: one
/// changed within its clock's tick of the load's start could change again
/// unseen by its time (git's "racily clean"), so such a load is not kept.
pub(crate) fn settled(inputs: &[PathBuf], since: std::time::SystemTime) -> bool {
    let before = since - std::time::Duration::from_secs(2);
    inputs
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .all(|m| m.modified().is_ok_and(|t| t <= before))
}

/// The bytes of the inputs that exist.
pub(crate) fn input_bytes(inputs: &[PathBuf]) -> u64 {
    inputs
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .filter(|m| m.is_file())
        .map(|m| m.len())
        .sum()
}

/// Cache files kept: the newest few traces opened.
pub const KEEP: usize = 3;

/// Bumped whenever what a cache file holds changes shape.
const LAYOUT: u32 = 1;

const MAGIC: &[u8] = b"tracetui load cache\n";

/// The identity of one input: its size, modification time and inode, or
/// that it is absent.
fn identity(p: &Path) -> String {
    let Ok(m) = std::fs::metadata(p) else {
        return format!("{}: absent", p.display());
    };
    let mtime = m
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    #[cfg(unix)]
    let inode = {
        use std::os::unix::fs::MetadataExt;
        format!("{}:{}", m.dev(), m.ino())
    };
    #[cfg(not(unix))]
    let inode = String::from("-");
    format!(
        "{}: {} bytes, mtime {mtime} ns, inode {inode}",
        p.display(),
        m.len()
    )
}

/// The key of a load: everything its result depends on, as text.
pub(crate) fn key(
    format: &str,
    path: &Path,
    opts: &LoadOptions,
    inputs: &[PathBuf],
    build: &str,
) -> String {
    // A relative path's files are found from here (the sources kept).
    let here = if path.is_relative() {
        std::env::current_dir().unwrap_or_default()
    } else {
        PathBuf::new()
    };
    let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let mut k = format!(
        // Only what the tables' reading depends on: the jobs and the
        // cluster (`--gpus`, `--include-cpu-jobs`) are built again.
        "layout {LAYOUT}\nbuild {build}\nformat {format}\npath {} (from {}, real {})\n\
         strict {}\n",
        path.display(),
        here.display(),
        real.display(),
        opts.strict,
    );
    for p in inputs {
        k.push_str(&identity(p));
        k.push('\n');
    }
    k
}

/// The file a key is kept in.
fn file_of(dir: &Path, key: &str) -> PathBuf {
    dir.join(format!("{:032x}.load", crate::texts::key(key.as_bytes())))
}

/// Whether this machine can read and write caches: little-endian (arrays
/// are copied as they are in memory).
fn usable() -> bool {
    cfg!(target_endian = "little")
}

/// A cache file found for a key, positioned at its first section.
pub(crate) struct Opened {
    pub(crate) path: PathBuf,
    pub(crate) file: std::fs::File,
    /// The bytes of each of its two sections (each ends in its checksum).
    pub(crate) sections: [u64; 2],
}

/// Reads the head: the magic, the key (compared whole) and the first
/// section's length.
fn head(f: &mut std::fs::File, key: &str, len: u64) -> Result<Option<[u64; 2]>, Unreadable> {
    let mut magic = vec![0; MAGIC.len()];
    f.read_exact(&mut magic)?;
    let mut n = [0; 8];
    f.read_exact(&mut n)?;
    let n = u64::from_le_bytes(n);
    let head = (MAGIC.len() + 16) as u64;
    if magic != MAGIC || n > len.saturating_sub(head) {
        return Err(Unreadable("not a cache file of this layout".into()));
    }
    let mut stored = vec![0; n as usize];
    f.read_exact(&mut stored)?;
    let mut first = [0; 8];
    f.read_exact(&mut first)?;
    let first = u64::from_le_bytes(first);
    let rest = len - head - n;
    if first > rest {
        return Err(Unreadable("its first section runs past its end".into()));
    }
    // Another key with the same name (a 128-bit collision): not ours.
    Ok((stored == key.as_bytes()).then_some([first, rest - first]))
}

/// Opens the cache file of `key`, if there is one; `Err` when it exists
/// but cannot be read (then it is removed).
pub(crate) fn open(spec: &CacheSpec, key: &str) -> Result<Option<Opened>, Unreadable> {
    let path = file_of(&spec.dir, key);
    if !usable() {
        return Ok(None);
    }
    let Ok(mut file) = std::fs::File::open(&path) else {
        return Ok(None);
    };
    let len = file.metadata().map_or(0, |m| m.len());
    match head(&mut file, key, len) {
        Ok(Some(sections)) => {
            // Used now: eviction keeps the traces opened last.
            if let Ok(f) = std::fs::File::options().append(true).open(&path) {
                let _ = f.set_modified(std::time::SystemTime::now());
            }
            Ok(Some(Opened {
                path,
                file,
                sections,
            }))
        }
        Ok(None) => Ok(None),
        Err(e) => {
            discard(&path);
            Err(Unreadable(format!("{}: {}", path.display(), e.0)))
        }
    }
}

/// Removes a file found unreadable past its head.
pub(crate) fn discard(path: &Path) {
    let _ = std::fs::remove_file(path);
}

/// One section's writer.
pub(crate) type Section<'a> =
    &'a mut dyn FnMut(&mut Writer<&mut std::fs::File>) -> std::io::Result<()>;

/// Writes `key`'s file with its two sections, into place by a rename; then
/// keeps only the newest `KEEP` files. Any failure leaves no file (a cache
/// is never needed).
pub(crate) fn store(
    spec: &CacheSpec,
    key: &str,
    first: Section,
    second: Section,
) -> std::io::Result<PathBuf> {
    if !usable() {
        return Err(std::io::Error::other("not a little-endian machine"));
    }
    std::fs::create_dir_all(&spec.dir)?;
    let path = file_of(&spec.dir, key);
    // Its own name: two writers of one key (two processes, or two loads of
    // a sweep) never write one file.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let tmp = path.with_extension(format!(
        "tmp{}-{:?}-{now}",
        std::process::id(),
        std::thread::current().id()
    ));
    let written = (|| {
        use std::io::{Seek, SeekFrom};
        let mut f = std::fs::File::options()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        f.write_all(MAGIC)?;
        f.write_all(&(key.len() as u64).to_le_bytes())?;
        f.write_all(key.as_bytes())?;
        let at = f.stream_position()?;
        f.write_all(&0u64.to_le_bytes())?;
        let mut w = Writer::new(&mut f);
        first(&mut w)?;
        w.finish()?;
        let end = f.stream_position()?;
        f.seek(SeekFrom::Start(at))?;
        f.write_all(&(end - at - 8).to_le_bytes())?;
        f.seek(SeekFrom::Start(end))?;
        let mut w = Writer::new(&mut f);
        second(&mut w)?;
        w.finish()?;
        f.sync_all()?;
        std::fs::rename(&tmp, &path)
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    evict(&spec.dir, &path);
    Ok(path)
}

/// Keeps the newest `KEEP` cache files (and `keep` itself) by when they
/// were last written or read; removes the rest, and unfinished files over
/// ten minutes old (a write takes seconds).
fn evict(dir: &Path, keep: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut loads = Vec::new();
    for e in entries.flatten() {
        let p = e.path();
        let age = e
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .unwrap_or_default();
        let ext = p.extension().and_then(|x| x.to_str()).unwrap_or("");
        if ext == "load" && p != keep {
            loads.push((age, p));
        } else if ext.starts_with("tmp") && age.as_secs() > 600 {
            let _ = std::fs::remove_file(&p);
        }
    }
    loads.sort();
    for (_, p) in loads.into_iter().skip(KEEP.saturating_sub(1)) {
        let _ = std::fs::remove_file(p);
    }
}

/// Strings, as a count then each.
pub(crate) fn put_strings<W: Write>(w: &mut Writer<W>, v: &[String]) -> std::io::Result<()> {
    w.len(v.len())?;
    v.iter().try_for_each(|s| w.str(s))
}

pub(crate) fn take_strings<R: Read>(r: &mut Reader<R>) -> Result<Vec<String>, Unreadable> {
    let n = r.len(8)?;
    (0..n).map(|_| r.str()).collect()
}

/// Symbols, as their strings in order (interned again when read).
pub(crate) fn put_symbols<W: Write>(w: &mut Writer<W>, s: &Symbols) -> std::io::Result<()> {
    w.len(s.len())?;
    (0..s.len() as u32).try_for_each(|i| w.str(s.get(crate::model::Sym::new(i))))
}

pub(crate) fn take_symbols<R: Read>(r: &mut Reader<R>) -> Result<Symbols, Unreadable> {
    let mut s = Symbols::default();
    for name in take_strings(r)? {
        if s.intern(&name).index() as usize != s.len() - 1 {
            return Err(Unreadable("a symbol twice".into()));
        }
    }
    Ok(s)
}

/// A load's report: its skips and notes (timings are the new load's).
pub(crate) fn put_report<W: Write>(w: &mut Writer<W>, r: &LoadReport) -> std::io::Result<()> {
    w.len(r.skips.len())?;
    for s in &r.skips {
        w.str(&s.file)?;
        w.u64(s.count)?;
        put_strings(w, &s.first)?;
    }
    put_strings(w, &r.notes)
}

pub(crate) fn take_report<R: Read>(r: &mut Reader<R>) -> Result<LoadReport, Unreadable> {
    let n = r.len(24)?;
    let mut report = LoadReport::default();
    for _ in 0..n {
        report.skips.push(Skips {
            file: r.str()?,
            count: r.u64()?,
            first: take_strings(r)?,
        });
    }
    report.notes = take_strings(r)?;
    Ok(report)
}

/// A cache file still to write once the trace is shown: the driver runs
/// it on a thread of its own (`tracetui_driver::cache_writes`), a test
/// where it likes. Shared, so a report can be cloned; run once.
#[derive(Clone)]
pub struct CacheWrite(Arc<Mutex<Option<PendingWrite>>>);

type PendingWrite = Box<dyn FnOnce() -> std::io::Result<PathBuf> + Send>;

impl CacheWrite {
    pub(crate) fn new(f: impl FnOnce() -> std::io::Result<PathBuf> + Send + 'static) -> CacheWrite {
        CacheWrite(Arc::new(Mutex::new(Some(Box::new(f)))))
    }

    /// Writes the file: its path, or why not (`None`: it was written
    /// already).
    pub fn run(&self) -> Option<std::io::Result<PathBuf>> {
        let f = self.0.lock().ok()?.take()?;
        Some(f())
    }
}

impl std::fmt::Debug for CacheWrite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CacheWrite")
    }
}
