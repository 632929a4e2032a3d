//! Reading the instance table (≈2 GB released): in parallel chunks for a
//! plain `.csv` (split at line boundaries, merged in file order), streamed
//! for a `.tar.gz`. Each chunk joins its rows to jobs and machines as it goes.
//! From a plain `.csv` the rows' texts are not held, only where each row
//! starts (`inst_texts`).

use super::inst_texts::{worker_short, InstTexts, TextsOut};
use super::tables::{parse_instance, InstanceRow, Recent, INSTANCE, NONE_IDX, NONE_TIME};
use crate::archive::{self, Source};
use crate::fields::Row;
use crate::input::{InputError, RowPolicy, Skips};
use crate::lines::{Lines, Record};
use crate::model::{Sym, Symbols};
use crate::text::sanitize;
use crate::texts::key;
use rustc_hash::FxHashMap;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::sync::{mpsc, Arc};

/// What instance rows are joined against, from the job and machine tables.
pub(super) struct Joins {
    pub machine_index: FxHashMap<u128, u32>,
    pub spec_machines: u32,
    pub jobs: super::JoinIndex,
    pub job_inst_ids: Vec<u128>,
}

/// The instance table, read.
pub(super) struct Instances {
    pub rows: Vec<InstanceRow>,
    pub texts: InstTexts,
    pub symbols: Symbols,
    pub unknown: Vec<String>,
    pub skips: Skips,
    pub read: u64,
}

/// One chunk's result; line numbers count from the chunk's first line.
struct Chunk {
    rows: Vec<InstanceRow>,
    texts: TextsOut,
    symbols: Symbols,
    unknown: Vec<String>,
    skips: Skips,
    read: u64,
    unknown_keys: Vec<u128>,
    errors: Vec<InputError>,
    lines: u64,
}

/// Reads one part of the table (`first`: the part its header row, if
/// any, begins; `on_disk`: where the part starts in a plain file, and the
/// file's length, to keep row offsets instead of texts).
fn read_chunk(
    reader: Box<dyn BufRead + Send>,
    file: String,
    strict: bool,
    joins: &Joins,
    (estimate, first, on_disk): (usize, bool, Option<(u64, u64)>),
) -> Result<Chunk, InputError> {
    let mut joined = Joined::new(joins, TextsOut::new(on_disk, estimate), estimate);
    let mut lines = Lines::new(reader, file.clone());
    if first {
        lines = lines.skipping_header(INSTANCE.1);
    }
    let mut rec = Record::default();
    let mut policy = RowPolicy::new(&file, strict);
    let mut errors = Vec::new();
    let mut read = 0;
    while lines.next(&mut rec)? {
        let row = Row {
            file: &file,
            line: rec.line,
            record: &rec,
        };
        match joined.add(&row, rec.offset) {
            Ok(()) => read += 1,
            Err(e) if strict => return Err(e),
            Err(e) => {
                if errors.len() < crate::input::FIRST_REASONS {
                    errors.push(e.clone());
                }
                policy.bad_row(e)?;
            }
        }
    }
    let total_lines = lines.line();
    Ok(Chunk {
        rows: joined.rows,
        texts: joined.texts,
        symbols: joined.symbols,
        unknown: joined.unknown,
        skips: policy.skips,
        read,
        unknown_keys: joined.unknown_keys,
        errors,
        lines: total_lines,
    })
}

/// One chunk's rows as they are joined to jobs and machines: the rows,
/// their texts and symbols, and the machines the machine table lacks.
struct Joined<'j> {
    joins: &'j Joins,
    rows: Vec<InstanceRow>,
    texts: TextsOut,
    symbols: Symbols,
    unknown: Vec<String>,
    unknown_keys: Vec<u128>,
    unknown_index: FxHashMap<u128, u32>,
    /// The job row found last, where the next row's job is looked for first.
    guess: usize,
    /// The task names and statuses seen last.
    recent: [Recent; 2],
}

impl<'j> Joined<'j> {
    /// Nothing joined yet; room for `estimate` rows.
    fn new(joins: &'j Joins, texts: TextsOut, estimate: usize) -> Joined<'j> {
        Joined {
            joins,
            rows: Vec::with_capacity(estimate),
            texts,
            symbols: Symbols::default(),
            unknown: Vec::new(),
            unknown_keys: Vec::new(),
            unknown_index: FxHashMap::default(),
            guess: 0,
            recent: Default::default(),
        }
    }

    /// Checks one instance row (at byte `offset` of the part) and joins it
    /// to its job and machine.
    #[inline]
    fn add(&mut self, row: &Row<Record>, offset: u64) -> Result<(), InputError> {
        let f = parse_instance(row)?;
        let job = self
            .joins
            .jobs
            .find(key(f.job_name), &mut self.guess)
            .ok_or_else(|| {
                row.error(
                    "job_name",
                    format!(
                        "'{}' is not in pai_job_table",
                        sanitize(&String::from_utf8_lossy(f.job_name))
                    ),
                )
            })?;
        let machine = self.machine(f.machine);
        let inst_id = if key(f.inst_id) == self.joins.job_inst_ids[job as usize] {
            &[][..]
        } else {
            f.inst_id
        };
        self.rows.push(InstanceRow {
            job,
            task: NONE_IDX,
            task_name: self.recent[0]
                .sym(&mut self.symbols, f.task_name)
                .map_or(NONE_IDX, |s| s.index()),
            status: self.recent[1]
                .sym(&mut self.symbols, f.status)
                .map_or(NONE_IDX, |s| s.index()),
            machine,
            start_time: f.start_time.unwrap_or(NONE_TIME),
            end_time: f.end_time.unwrap_or(NONE_TIME),
            worker: worker_short(f.worker_name),
        });
        self.texts
            .add(offset, [inst_id, f.inst_name, f.worker_name]);
        Ok(())
    }

    /// The machine a row names: the machine table's, else one numbered after it.
    #[inline]
    fn machine(&mut self, machine: &[u8]) -> u32 {
        if machine.is_empty() {
            return NONE_IDX;
        }
        let k = key(machine);
        match self.joins.machine_index.get(&k) {
            Some(&m) => m,
            None => *self.unknown_index.entry(k).or_insert_with(|| {
                self.unknown
                    .push(sanitize(&String::from_utf8_lossy(machine)));
                self.unknown_keys.push(k);
                self.joins.spec_machines + self.unknown.len() as u32 - 1
            }),
        }
    }
}

fn chunk_reader(
    path: &std::path::Path,
    (a, b): (u64, u64),
) -> std::io::Result<Box<dyn BufRead + Send>> {
    let mut f = std::fs::File::open(path)?;
    f.seek(SeekFrom::Start(a))?;
    Ok(Box::new(BufReader::with_capacity(1 << 20, f.take(b - a))))
}

/// Reads the instance table, waiting for the joins from the job table.
pub(super) fn read(
    src: Source,
    strict: bool,
    joins: mpsc::Receiver<Arc<Joins>>,
) -> Result<Instances, InputError> {
    let member = format!("{}.csv", INSTANCE.0);
    let file = src.display(&member);
    let parts = match &src {
        Source::Csv(p) => {
            let workers = crate::par::cores().clamp(1, crate::parts::MOST_PARTS);
            crate::parts::split_points(p, 0, workers)
                .map_err(|e| InputError::io(&file, "cannot read", e))?
        }
        Source::TarGz(_) | Source::Parts(_) => Vec::new(),
    };
    let joins = joins
        .recv()
        .map_err(|_| InputError::file(&file, "stopped: the job table failed"))?;
    // ~270 bytes a row in the release.
    let estimate = |(a, b): (u64, u64)| ((b - a) / 250) as usize;
    // A plain file's rows are found again by offset; the length picks 4 or
    // 8 bytes an offset.
    let on_disk = |a: u64| match &src {
        Source::Csv(p) => Some((a, std::fs::metadata(p).map_or(u64::MAX, |m| m.len()))),
        _ => None,
    };
    let chunks: Vec<Result<Chunk, InputError>> = if parts.len() <= 1 {
        let reader = archive::open(&src, &member)?;
        let est = parts.first().map_or(0, |&p| estimate(p));
        vec![read_chunk(
            reader,
            file.clone(),
            strict,
            &joins,
            (est, true, on_disk(0)),
        )]
    } else {
        let Source::Csv(path) = &src else {
            unreachable!("split only plain files")
        };
        // The first part's rows take the others' after them: room for all
        // (reserved, not touched) spares copying them twice.
        let whole = estimate((0, parts.last().map_or(0, |p| p.1)));
        let read = |part: (u64, u64)| {
            let r =
                chunk_reader(path, part).map_err(|e| InputError::io(&file, "cannot read", e))?;
            read_chunk(
                r,
                file.clone(),
                strict,
                &joins,
                (
                    if part.0 == 0 { whole } else { estimate(part) },
                    part.0 == 0,
                    on_disk(part.0),
                ),
            )
        };
        crate::par::each(parts, read)
            .into_iter()
            .map(|r| r.unwrap_or_else(|_| Err(InputError::file(&file, "reader panicked"))))
            .collect()
    };
    let path = match &src {
        Source::Csv(p) => Some(p.clone()),
        _ => None,
    };
    merge(chunks, &file, joins.spec_machines, path)
}

/// Joins chunks in file order: line numbers shifted, texts and symbols
/// re-based, unknown machines de-duplicated (`path`: the plain file the
/// texts are found again in).
fn merge(
    chunks: Vec<Result<Chunk, InputError>>,
    file: &str,
    spec_machines: u32,
    path: Option<std::path::PathBuf>,
) -> Result<Instances, InputError> {
    let mut out: Option<Chunk> = None;
    let mut unknown_index: FxHashMap<u128, u32> = FxHashMap::default();
    let mut offset = 0u64;
    let mut errors: Vec<InputError> = Vec::new();
    for c in chunks {
        let mut c = c.map_err(|e| e.shifted(offset))?;
        errors.extend(
            std::mem::take(&mut c.errors)
                .into_iter()
                .map(|e| e.shifted(offset)),
        );
        offset += c.lines;
        match &mut out {
            None => {
                for (i, &k) in c.unknown_keys.iter().enumerate() {
                    unknown_index.insert(k, spec_machines + i as u32);
                }
                out = Some(c);
            }
            Some(o) => append(o, c, &mut unknown_index, spec_machines),
        }
    }
    let mut out = match out {
        Some(c) => Instances {
            rows: c.rows,
            texts: c.texts.finish(path),
            symbols: c.symbols,
            unknown: c.unknown,
            skips: c.skips,
            read: c.read,
        },
        None => Instances {
            rows: Vec::new(),
            texts: InstTexts::default(),
            symbols: Symbols::default(),
            unknown: Vec::new(),
            skips: Skips::default(),
            read: 0,
        },
    };
    out.skips.file = file.to_string();
    out.skips.first = errors
        .iter()
        .take(crate::input::FIRST_REASONS)
        .map(|e| e.to_string())
        .collect();
    Ok(out)
}

/// Chunk `c` after `o`: its texts, symbols and machines renumbered.
fn append(o: &mut Chunk, c: Chunk, unknown_index: &mut FxHashMap<u128, u32>, spec_machines: u32) {
    // Texts first, freed before the rows are moved: the two copies of a
    // part's texts and rows are not held at once.
    o.texts.append(c.texts);
    let syms: Vec<u32> = (0..c.symbols.len() as u32)
        .map(|s| o.symbols.intern(c.symbols.get(Sym::new(s))).index())
        .collect();
    let machines: Vec<u32> = c
        .unknown_keys
        .iter()
        .zip(&c.unknown)
        .map(|(&k, name)| {
            *unknown_index.entry(k).or_insert_with(|| {
                o.unknown.push(name.clone());
                spec_machines + o.unknown.len() as u32 - 1
            })
        })
        .collect();
    let resym = |s: u32| if s == NONE_IDX { s } else { syms[s as usize] };
    o.rows.extend(c.rows.into_iter().map(|mut r| {
        r.task_name = resym(r.task_name);
        r.status = resym(r.status);
        if r.machine != NONE_IDX && r.machine >= spec_machines {
            r.machine = machines[(r.machine - spec_machines) as usize];
        }
        r
    }));
    o.read += c.read;
    o.skips.count += c.skips.count;
}
