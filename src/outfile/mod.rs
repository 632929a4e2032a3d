//! Output files, written so that nothing is lost or clobbered.
//!
//! - `-` is standard output.
//! - A regular file is replaced atomically: a new file is made beside it
//!   (`create_new`, so `O_EXCL`, not following a symlink, under a name no
//!   one can guess), filled, synced, given the old file's mode, and renamed
//!   over it, so a reader never sees half a file and a failed run leaves
//!   the old one whole.
//! - A symlink is followed: its target is replaced, in the target's own
//!   directory, and the link stays a link.
//! - What is not a regular file (a FIFO, a device, a socket), anything
//!   under `/dev` or `/proc` (`/dev/stdout`, `/dev/fd/3`, `>(gzip > f)`)
//!   are written in place, appended to (`/dev/stdout` may be a file the
//!   shell opened with `>>`); a file with other hard links is rewritten in
//!   place. Nothing is created or renamed there.
//!
//! `check` refuses, before anything is read, an output that is one of the
//! inputs (or lies inside an input directory) and one path given to two
//! outputs.

mod stale;

use std::fs::{File, Metadata, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Where an output's bytes go.
pub(crate) enum Sink {
    File(File),
    Stdout(io::Stdout),
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::File(f) => f.write(buf),
            Sink::Stdout(s) => s.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::File(f) => f.flush(),
            Sink::Stdout(s) => s.flush(),
        }
    }
}

/// What an output is filled through.
pub(crate) type Out = BufWriter<Sink>;

/// Where an output path leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Dest {
    /// `-`: standard output.
    Stdout,
    /// Written where it is, appended to (never truncated): not a regular
    /// file, or under `/dev` or `/proc` (`/dev/stdout` may be a file the
    /// shell opened with `>>`).
    InPlace(PathBuf),
    /// A regular file with other hard links, rewritten where it is so the
    /// links keep seeing it.
    Rewrite(PathBuf),
    /// A regular file (or a new one) replaced atomically: the path after
    /// following symlinks.
    Replace(PathBuf),
}

/// Symlinks followed at most (as the kernel's own limit).
const MAX_LINKS: usize = 40;

/// Where `path` leads, symlinks followed.
pub(crate) fn dest(path: &Path) -> io::Result<Dest> {
    if path.as_os_str() == "-" {
        return Ok(Dest::Stdout);
    }
    // `/dev/stdout`, `/dev/fd/N`, `/proc/self/fd/N` are links the kernel
    // resolves to whatever the shell opened (a file opened with `>>`):
    // written in place. A regular file in `/dev/shm`, or a new one, is
    // written like any other.
    let special = path.starts_with("/dev") || path.starts_with("/proc");
    if special && path.symlink_metadata().is_ok_and(|m| !m.is_file()) {
        return Ok(Dest::InPlace(path.to_path_buf()));
    }
    let (real, meta) = follow(path)?;
    let Some(meta) = meta else {
        return Ok(Dest::Replace(real));
    };
    if meta.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            "is a directory",
        ));
    }
    if !meta.is_file() {
        return Ok(Dest::InPlace(real));
    }
    if links(&meta) > 1 {
        return Ok(Dest::Rewrite(real));
    }
    Ok(Dest::Replace(real))
}

/// `path` with every symlink of its last part followed, and what is
/// there (`None`: nothing yet).
fn follow(path: &Path) -> io::Result<(PathBuf, Option<Metadata>)> {
    let mut p = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        if p.file_name().is_none() {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "no file name"));
        }
        let meta = match std::fs::symlink_metadata(&p) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((p, None)),
            Err(e) => return Err(e),
        };
        if !meta.file_type().is_symlink() {
            return Ok((p, Some(meta)));
        }
        let to = std::fs::read_link(&p)?;
        p = match p.parent() {
            Some(dir) if to.is_relative() => dir.join(to),
            _ => to,
        };
    }
    Err(io::Error::other("too many levels of symbolic links"))
}

#[cfg(unix)]
fn links(meta: &Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::nlink(meta)
}

#[cfg(not(unix))]
fn links(_meta: &Metadata) -> u64 {
    1
}

/// Writes `path` through `fill` (see the module's rules).
pub(crate) fn write_atomic(
    path: &Path,
    fill: impl FnOnce(&mut Out) -> io::Result<()>,
) -> io::Result<()> {
    match dest(path)? {
        Dest::Stdout => {
            let mut w = BufWriter::with_capacity(1 << 16, Sink::Stdout(io::stdout()));
            match fill(&mut w).and_then(|()| w.flush()) {
                // A reader that stopped early (`| head`) wanted no more.
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
                r => r,
            }
        }
        Dest::InPlace(p) => in_place(OpenOptions::new().append(true).open(p)?, fill),
        Dest::Rewrite(p) => in_place(OpenOptions::new().write(true).truncate(true).open(p)?, fill),
        Dest::Replace(p) => replace(&p, fill),
    }
}

/// `f` filled by `fill`, where it is.
fn in_place(f: File, fill: impl FnOnce(&mut Out) -> io::Result<()>) -> io::Result<()> {
    let mut w = BufWriter::with_capacity(1 << 20, Sink::File(f));
    fill(&mut w)?;
    w.flush()
}

/// `path` (a regular file or none) replaced by a new file filled by `fill`.
fn replace(path: &Path, fill: impl FnOnce(&mut Out) -> io::Result<()>) -> io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no file name"))?
        .to_string_lossy()
        .into_owned();
    let old = std::fs::metadata(path).ok();
    stale::clean_once(dir);
    let (tmp, file) = new_beside(dir, &name)?;
    crate::driver::temp_file(&tmp);
    let result = (|| {
        if let Some(old) = &old {
            keep_owner_and_mode(&file, old)?;
        }
        let mut w = BufWriter::with_capacity(1 << 20, Sink::File(file));
        fill(&mut w)?;
        w.flush()?;
        let Sink::File(f) = w.into_inner().map_err(|e| e.into_error())? else {
            unreachable!("a file's writer holds a file")
        };
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    crate::driver::temp_done(&tmp);
    result
}

/// The suffix of a temporary file (hidden, and never a result's name).
pub(crate) const TMP_SUFFIX: &str = ".tracetui-tmp";

/// A new file in `dir` for `name`'s content, made with `O_EXCL` (and not
/// following a symlink) under a name no one can guess.
fn new_beside(dir: &Path, name: &str) -> io::Result<(PathBuf, File)> {
    let mut last = None;
    for attempt in 0..16u32 {
        let tmp = dir.join(format!(".{name}.{:016x}{TMP_SUFFIX}", unguessable(attempt)));
        let mut o = OpenOptions::new();
        o.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::custom_flags(&mut o, libc::O_NOFOLLOW | libc::O_CLOEXEC);
        match o.open(&tmp) {
            Ok(f) => return Ok((tmp, f)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no free temporary name")))
}

/// 64 bits no other process can predict: the standard library's randomly
/// keyed hasher over the process, the time and the attempt.
fn unguessable(attempt: u32) -> u64 {
    use std::hash::BuildHasher;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    std::collections::hash_map::RandomState::new().hash_one((std::process::id(), nanos, attempt))
}

/// The new file takes the old one's mode (a 0600 file stays 0600) and,
/// where allowed, its owner and group.
fn keep_owner_and_mode(file: &File, old: &Metadata) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        // Only root may give a file away; anyone else keeps their own.
        let _ = std::os::unix::fs::fchown(file, Some(old.uid()), Some(old.gid()));
    }
    file.set_permissions(old.permissions())
}

/// The identity of the file at `path` (symlinks followed), if it exists.
#[cfg(unix)]
fn identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn identity(path: &Path) -> Option<(u64, u64)> {
    let _ = path;
    None
}

/// Why outputs were refused.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Clash {
    #[error("{option} {path} is an input ({input}): refusing to overwrite it")]
    IsInput {
        option: String,
        path: String,
        input: String,
    },
    #[error("{a} and {b} both write {path}: give each its own file")]
    Twice { a: String, b: String, path: String },
    #[error("{option} {path}: it (or the numbers and meta beside it) would land in {system}, which holds no results: give a file elsewhere")]
    System {
        option: String,
        path: String,
        system: String,
    },
}

/// Folders of the system no result file goes into (`--plot /dev/null`
/// would put its numbers at `/dev/null.data.csv`).
const SYSTEM: [&str; 3] = ["/dev", "/proc", "/sys"];

/// Refuses outputs (`(option, path)`) that are, or resolve to, one of the
/// `inputs` (or a file inside an input directory), and one path (or `-`)
/// given to two outputs. Paths are shown as given, made safe.
pub(crate) fn check(inputs: &[&Path], outputs: &[(&str, &Path)]) -> Result<(), Clash> {
    let shown = |p: &Path| crate::text::sanitize(&p.display().to_string());
    let resolved: Vec<Option<PathBuf>> = outputs.iter().map(|(_, p)| where_to(p)).collect();
    for (i, (option, path)) in outputs.iter().enumerate() {
        let lands = resolved[i].as_deref().unwrap_or(path);
        if let Some(system) = SYSTEM.iter().find(|s| lands.starts_with(s)) {
            return Err(Clash::System {
                option: option.to_string(),
                path: shown(path),
                system: system.to_string(),
            });
        }
        for input in inputs {
            if is_input(path, resolved[i].as_deref(), input) {
                return Err(Clash::IsInput {
                    option: option.to_string(),
                    path: shown(path),
                    input: shown(input),
                });
            }
        }
        for (j, (other, other_path)) in outputs.iter().enumerate().take(i) {
            let same = path == other_path
                || (resolved[i].is_some() && resolved[i] == resolved[j])
                || identity(path).is_some_and(|a| identity(other_path) == Some(a));
            if same {
                return Err(Clash::Twice {
                    a: other.to_string(),
                    b: option.to_string(),
                    path: shown(path),
                });
            }
        }
    }
    Ok(())
}

/// Where an output lands, as a canonical path (its directory canonical,
/// its name as the last symlink leads), when that can be told.
fn where_to(path: &Path) -> Option<PathBuf> {
    if path.as_os_str() == "-" {
        return Some(PathBuf::from("-"));
    }
    let (real, _) = follow(path).ok()?;
    let dir = real
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    Some(std::fs::canonicalize(dir).ok()?.join(real.file_name()?))
}

/// Whether writing `path` (landing at `lands`) would change `input`: it
/// is the input's file, or lands inside the input directory on a file
/// that exists.
fn is_input(path: &Path, lands: Option<&Path>, input: &Path) -> bool {
    if identity(path).is_some_and(|a| identity(input) == Some(a)) {
        return true;
    }
    let (Some(lands), Ok(input)) = (lands, std::fs::canonicalize(input)) else {
        return false;
    };
    if lands == input {
        return true;
    }
    input.is_dir() && lands.starts_with(&input) && lands.exists()
}

#[cfg(test)]
mod tests;
