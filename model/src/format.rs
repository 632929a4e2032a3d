//! What the command line knows of a trace format: its names, a line for
//! its `FORMAT` value and one for its full-screen subcommand, its loader, and
//! any energy model released beside it. Each format module declares one
//! `FORMAT`; `trace::FORMATS` lists them.

use super::input::{InputError, LoadReport};
use super::model::Trace;
use super::LoadOptions;
use std::path::{Path, PathBuf};

/// Reads a trace at a path (a file or a directory, as the format has it).
pub(crate) type Loader = fn(&Path, &LoadOptions) -> Result<(Trace, LoadReport), InputError>;

/// Reads a trace of one file held in memory, under a name for its messages.
pub(crate) type TextLoader =
    fn(&[u8], &str, &LoadOptions) -> Result<(Trace, LoadReport), InputError>;

/// What the command line knows of one trace format: its names, help lines,
/// loader and the files a load reads.
#[derive(Debug)]
pub struct FormatSpec {
    /// As typed: `tracetui NAME PATH`, `tracetui sim NAME PATH`.
    pub name: &'static str,
    /// Other names accepted for it (not listed in help).
    pub aliases: &'static [&'static str],
    /// One line for the `FORMAT` value's help.
    pub help: &'static str,
    /// One line for its full-screen subcommand.
    pub replay_about: &'static str,
    /// What its subcommand's PATH is.
    pub path_help: &'static str,
    /// Reads a trace of this format at a path (a file or a directory, as the
    /// format has it).
    pub load: Loader,
    /// For a format of one file: the same read from memory (the embedded
    /// sample, the lessons' generated traces).
    pub load_text: Option<TextLoader>,
    /// A directory of power traces released with a trace at this path, used
    /// as the energy model when none is given.
    pub energy_beside: Option<fn(&Path) -> Option<PathBuf>>,
    /// The files a load of this path may read (whether or not they
    /// exist): no output may be written over one of them.
    pub reads: fn(&Path) -> Vec<PathBuf>,
    /// What one cell of the grid is: `GPU`, or `processor` where the
    /// trace schedules processors (SWF), whose every GPU figure counts them.
    pub slot: &'static str,
}

/// `reads` for a format of one file: the file.
pub(crate) fn the_file(path: &Path) -> Vec<PathBuf> {
    vec![path.to_path_buf()]
}

/// One of the trace formats tracetui reads (see `trace::FORMATS`).
#[derive(Clone, Copy)]
pub struct Format(&'static FormatSpec);

impl Format {
    /// The format `spec` declares (each format module's `FORMAT`).
    pub const fn new(spec: &'static FormatSpec) -> Format {
        Format(spec)
    }

    /// Its name on the command line (`itp`, `pai`, `philly`, `acme`, `zeus`).
    pub fn name(self) -> &'static str {
        self.0.name
    }

    /// What one of its trace's "GPUs" is (`GPU`; `processor` for SWF).
    pub fn slot(self) -> &'static str {
        self.0.slot
    }

    /// Everything the format declares.
    pub fn spec(self) -> &'static FormatSpec {
        self.0
    }

    /// The format called `name` (not an alias), among `trace::FORMATS`.
    pub fn find(name: &str) -> Option<Format> {
        super::FORMATS.iter().copied().find(|f| f.name() == name)
    }

    /// Loads a trace of this format from `path`.
    pub fn load(self, path: &Path, opts: &LoadOptions) -> Result<(Trace, LoadReport), InputError> {
        (self.0.load)(path, opts)
    }

    /// Loads a trace of this format from `text` held in memory, named
    /// `name` in its messages; a format of several files says it cannot.
    pub fn load_text(
        self,
        text: &[u8],
        name: &str,
        opts: &LoadOptions,
    ) -> Result<(Trace, LoadReport), InputError> {
        match self.0.load_text {
            Some(load) => load(text, name, opts),
            None => Err(InputError::file(
                name,
                format!(
                    "a {} trace is not one file: it cannot be read from memory",
                    self.name()
                ),
            )),
        }
    }

    /// The files a load of `path` may read, and the power traces beside it.
    pub fn reads(self, path: &Path) -> Vec<PathBuf> {
        let mut files = (self.0.reads)(path);
        files.extend(self.energy_beside(path));
        files
    }

    /// The energy model's directory released beside a trace at `path` (Zeus's
    /// power traces), if any.
    pub fn energy_beside(self, path: &Path) -> Option<PathBuf> {
        self.0.energy_beside.and_then(|f| f(path))
    }
}

impl PartialEq for Format {
    fn eq(&self, other: &Format) -> bool {
        self.name() == other.name()
    }
}

impl Eq for Format {}

impl std::fmt::Debug for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
