//! Where the Philly files are: a directory of them (as unpacked), or the
//! release tarball itself, given as the path or found alone in the directory.

use super::tarball::{self, Tarball, RELEASE};
use super::util::UtilFile;
use super::{GPU_UTIL, JOB_LOG, MACHINES};
use crate::input::{InputError, LoadReport};
use crate::reader;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub(super) enum Source {
    Dir(PathBuf),
    Archive(Arc<Tarball>),
}

/// The release tarball `path` names: itself, or the one a directory holds
/// in place of the unpacked files.
pub(super) fn archive_at(path: &Path) -> Option<PathBuf> {
    if tarball::is_archive(path) {
        return Some(path.to_path_buf());
    }
    let t = path.join(RELEASE);
    (!reader::present(&path.join(MACHINES)) && tarball::is_archive(&t)).then_some(t)
}

impl Source {
    /// `path` as given. An archive is walked as far as the files loading
    /// needs: the machine list, the job log and the GPU utilisation file.
    pub(super) fn open(
        path: &Path,
        strict: bool,
        report: &mut LoadReport,
    ) -> Result<Source, InputError> {
        let Some(archive) = archive_at(path) else {
            reader::open_dir(path, "the Philly release's files, or trace-data.tar.gz")?;
            return Ok(Source::Dir(path.to_path_buf()));
        };
        let began = std::time::Instant::now();
        let tar = Tarball::open(&archive, strict)?;
        tar.find(&[MACHINES, JOB_LOG, GPU_UTIL])?;
        report.note(format!(
            "{}: read in place, not unpacked; the utilisation files are indexed on first use",
            archive.display()
        ));
        report.time("archive walked", began);
        Ok(Source::Archive(tar))
    }

    /// How errors and notes name `member`.
    pub(super) fn shown(&self, member: &str) -> String {
        match self {
            Source::Dir(d) => d.join(member).display().to_string(),
            Source::Archive(t) => t.shown(member),
        }
    }

    /// Why `member` cannot be read, when it is not there.
    pub(super) fn missing(&self, member: &str) -> Option<String> {
        match self {
            Source::Dir(d) if !reader::present(&d.join(member)) => {
                Some(format!("missing {member}"))
            }
            Source::Archive(t) if t.member(member).is_none() => Some(format!("holds no {member}")),
            _ => None,
        }
    }

    pub(super) fn open_member(&self, member: &str) -> Result<Box<dyn Read + Send>, InputError> {
        match self {
            Source::Dir(d) => Ok(Box::new(reader::open_file(&d.join(member))?)),
            Source::Archive(t) => match t.member(member) {
                Some(m) => Ok(Box::new(t.read(m)?)),
                None => Err(InputError::file(&self.shown(member), "not in the archive")),
            },
        }
    }

    /// The utilisation file `member`, if it is (or may be) there.
    pub(super) fn util(
        &self,
        member: &'static str,
        names: &[String],
        strict: bool,
    ) -> Option<UtilFile> {
        match self {
            Source::Dir(d) => {
                let p = d.join(member);
                reader::present(&p).then(|| UtilFile::new(p, names, strict))
            }
            Source::Archive(t) => t
                .may_hold(member)
                .then(|| UtilFile::in_archive(t.clone(), member, names, strict)),
        }
    }
}
