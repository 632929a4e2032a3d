//! The instances' `inst_id`, `inst_name` and `worker_name`: the longest
//! text of the release (about 66 bytes an instance, over 500 MB at full
//! scale), and only a drill-down shows it. From a plain `.csv` the load
//! keeps each instance's row offset (4 bytes) and reads the three back by a
//! seek when asked; from an archive, which cannot be sought in, it holds
//! them packed.

use super::row_offsets::RowOffsets;
use super::tables::parse_instance;
use super::workers::short;
use super::PaiTables;
use crate::fields::Row;
use crate::input::InputError;
use crate::lines::{Lines, Record};
use crate::texts::{key, TextRun, Texts};
use std::io::{BufReader, Seek, SeekFrom};
use std::path::PathBuf;

/// Where each run's strings are: `inst_id`, `inst_name`, `worker_name`.
const INST_ID: usize = 0;
const INST_NAME: usize = 1;
const WORKER_NAME: usize = 2;

/// The instances' three texts, held or found again.
#[derive(Debug)]
pub enum InstTexts {
    /// Held, packed: one run per instance (`inst_id` empty where it is the
    /// job's).
    Held {
        /// The strings.
        texts: Texts,
        /// Per instance, its run in `texts`.
        runs: Vec<TextRun>,
    },
    /// In a plain `.csv`: per instance, the byte offset of its row.
    OnDisk {
        /// The instance table.
        path: PathBuf,
        /// Per instance, where its row starts.
        at: RowOffsets,
    },
}

impl Default for InstTexts {
    fn default() -> InstTexts {
        InstTexts::Held {
            texts: Texts::default(),
            runs: Vec::new(),
        }
    }
}

/// One instance's texts as released (`inst_id` may be empty: then it is
/// its job's).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InstText {
    /// `inst_id` (empty where the job's stands for it).
    pub inst_id: String,
    /// `inst_name`.
    pub inst_name: String,
    /// `worker_name`: the key of the sensor and machine-metric rows.
    pub worker_name: String,
}

impl InstText {
    /// The join key of its worker name.
    pub(crate) fn worker_key(&self) -> u128 {
        key(self.worker_name.as_bytes())
    }
}

/// One reading part's texts, as its rows are added.
pub(super) enum TextsOut {
    Held(Texts, Vec<TextRun>),
    /// Offsets from the file's start (`base`: where the part begins).
    OnDisk(u64, RowOffsets),
}

impl TextsOut {
    /// For a part beginning at byte `base` of `path` (None: an archive),
    /// with room for `n` rows.
    pub(super) fn new(on_disk: Option<(u64, u64)>, n: usize) -> TextsOut {
        match on_disk {
            Some((base, file_len)) => {
                TextsOut::OnDisk(base, RowOffsets::with_capacity(n, file_len))
            }
            None => TextsOut::Held(Texts::default(), Vec::with_capacity(n)),
        }
    }

    /// The next row's texts, or where it starts in the part.
    #[inline]
    pub(super) fn add(&mut self, offset: u64, strings: [&[u8]; 3]) {
        match self {
            TextsOut::Held(texts, runs) => runs.push(texts.add_run(strings)),
            TextsOut::OnDisk(base, at) => at.push(*base + offset),
        }
    }

    /// Another part's texts after these.
    pub(super) fn append(&mut self, other: TextsOut) {
        match (self, other) {
            (TextsOut::Held(texts, runs), TextsOut::Held(t2, r2)) => {
                let base = texts.bytes_used() as u64;
                texts.append(&t2);
                drop(t2);
                runs.extend(r2.into_iter().map(|r| r.rebased(base)));
            }
            (TextsOut::OnDisk(_, at), TextsOut::OnDisk(_, a2)) => at.append(a2),
            _ => unreachable!("the parts of one table are read one way"),
        }
    }

    /// The texts of the whole table, read from `path` when on disk.
    pub(super) fn finish(self, path: Option<PathBuf>) -> InstTexts {
        match (self, path) {
            (TextsOut::OnDisk(_, at), Some(path)) => InstTexts::OnDisk { path, at },
            (TextsOut::Held(texts, runs), _) => InstTexts::Held { texts, runs },
            (TextsOut::OnDisk(..), None) => InstTexts::default(),
        }
    }
}

impl InstTexts {
    /// The bytes held.
    pub(crate) fn bytes_used(&self) -> usize {
        match self {
            InstTexts::Held { texts, runs } => {
                texts.bytes_used() + std::mem::size_of_val(&runs[..])
            }
            InstTexts::OnDisk { at, .. } => at.bytes_used(),
        }
    }
}

impl PaiTables {
    /// The texts of instances `insts` (indexes into `instances`), in that
    /// order. From disk, each row is checked to be the instance loaded —
    /// its job and worker — so a table changed since the load is an error,
    /// never another row's names.
    pub fn inst_texts(&self, insts: &[u32]) -> Result<Vec<InstText>, InputError> {
        match &self.inst_texts {
            InstTexts::Held { texts, runs } => Ok(insts
                .iter()
                .map(|&i| {
                    let run = runs[i as usize];
                    InstText {
                        inst_id: texts.get_in(run, INST_ID),
                        inst_name: texts.get_in(run, INST_NAME),
                        worker_name: texts.get_in(run, WORKER_NAME),
                    }
                })
                .collect()),
            InstTexts::OnDisk { path, at } => read_back(self, path, at, insts),
        }
    }
}

/// Each instance's row read again from the plain `.csv`.
fn read_back(
    t: &PaiTables,
    path: &PathBuf,
    at: &RowOffsets,
    insts: &[u32],
) -> Result<Vec<InstText>, InputError> {
    let file = path.display().to_string();
    let mut f = std::fs::File::open(path).map_err(|e| InputError::io(&file, "cannot open", e))?;
    let mut out = Vec::with_capacity(insts.len());
    let mut rec = Record::default();
    for &i in insts {
        let inst = &t.instances[i as usize];
        let changed = |what: &str| {
            InputError::file(
                &file,
                format!("changed since it was loaded: {what}; open the trace again"),
            )
        };
        let off = at
            .get(i)
            .ok_or_else(|| changed("an instance's row is gone"))?;
        f.seek(SeekFrom::Start(off))
            .map_err(|e| InputError::io(&file, "cannot seek", e))?;
        let mut lines = Lines::new(BufReader::with_capacity(4096, &mut f), file.clone());
        if !lines.next(&mut rec)? {
            return Err(changed(&format!("no row at byte {off}")));
        }
        let row = Row {
            file: &file,
            line: 0,
            record: &rec,
        };
        let fields = parse_instance(&row)
            .map_err(|_| changed(&format!("the row at byte {off} no longer reads")))?;
        if key(fields.job_name) != t.job_keys[inst.job as usize]
            || short(key(fields.worker_name)) != inst.worker
        {
            return Err(changed(&format!(
                "the row at byte {off} is not the instance loaded there"
            )));
        }
        out.push(InstText {
            inst_id: String::from_utf8_lossy(fields.inst_id).into_owned(),
            inst_name: String::from_utf8_lossy(fields.inst_name).into_owned(),
            worker_name: String::from_utf8_lossy(fields.worker_name).into_owned(),
        });
    }
    Ok(out)
}

/// The join key of an instance's worker as the side index joins it.
pub(super) fn worker_short(worker_name: &[u8]) -> u64 {
    short(key(worker_name))
}
