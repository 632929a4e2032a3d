//! The PAI release through the load cache: on a hit the tables as the last
//! load left them (rows joined, instances grouped) are read back and only
//! the jobs are built again; on a miss the tables are read and the cache
//! is written on a thread of its own, after the trace is ready.

use super::cached_rows::*;
use super::inst_texts::InstTexts;
use super::row_offsets::RowOffsets;
use super::tables::{ALL, NONE_IDX};
use super::{build, release, Loaded, PaiTables};
use crate::archive::Source;
use crate::cache::codec::{Reader, Unreadable, Writer};
use crate::cache::{self, CacheSpec};
use crate::input::{InputError, LoadReport};
use crate::key_table::KeyTable;
use crate::model::{Symbols, Trace};
use crate::texts::{TextRun, Texts};
use crate::LoadOptions;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Loads a PAI directory through the cache of `spec`.
pub(super) fn load(
    dir: &Path,
    opts: &LoadOptions,
    spec: &CacheSpec,
) -> Result<(Trace, LoadReport), InputError> {
    crate::reader::open_dir(dir, "the PAI release's tables")?;
    let began = std::time::Instant::now();
    let began_at = std::time::SystemTime::now();
    let key = || cache::key("pai", dir, opts, &release::reads(dir), &spec.build);
    let before = key();
    let mut unreadable = None;
    match cache::open(spec, &before) {
        Ok(Some(opened)) => {
            let path = opened.path.clone();
            match take_all(opened, dir, opts) {
                Ok((mut loaded, pending)) => {
                    loaded.report.time("load cache read", began);
                    loaded.report.cache = Some(path.clone());
                    loaded.report.note(format!(
                        "read from the load cache {} (--no-cache reads the tables)",
                        path.display()
                    ));
                    return super::finish(loaded, pending, opts, began);
                }
                Err(e) => {
                    cache::discard(&path);
                    unreadable = Some(format!("{}: {}", path.display(), e.0));
                }
            }
        }
        Ok(None) => {}
        Err(e) => unreadable = Some(e.0),
    }
    let (mut loaded, pending) = super::read_tables(dir, opts, began)?;
    // The inputs changed while read: the result is shown, never kept.
    let keep = key() == before && cache::settled(&release::reads(dir), began_at);
    let tables = Arc::new(std::mem::take(&mut loaded.t));
    let (symbols, report) = (loaded.symbols.clone(), loaded.report.clone());
    let mut out = super::finish_shared(
        Arc::clone(&tables),
        loaded.symbols,
        loaded.report,
        pending,
        opts,
        began,
    )?;
    // Said this once, not kept in the cache's report for every later open.
    if let Some(e) = unreadable {
        out.1.note(format!(
            "the load cache could not be read ({e}): the tables were read"
        ));
    }
    if keep {
        let spec = spec.clone();
        out.1.cache_write = Some(cache::CacheWrite::new(move || {
            cache::store(
                &spec,
                &before,
                &mut |w| put_first(w, &tables, &symbols, &report),
                &mut |w| put_second(w, &tables),
            )
        }));
    }
    Ok(out)
}

fn put_offsets<W: Write>(w: &mut Writer<W>, at: &RowOffsets) -> std::io::Result<()> {
    match at {
        RowOffsets::Narrow(v) => w.u8(0).and_then(|_| w.array(v)),
        RowOffsets::Wide(v) => w.u8(1).and_then(|_| w.array(v)),
    }
}

fn take_offsets<R: Read>(r: &mut Reader<R>) -> Result<RowOffsets, Unreadable> {
    Ok(match r.u8()? {
        0 => RowOffsets::Narrow(r.array()?),
        1 => RowOffsets::Wide(r.array()?),
        t => return Err(Unreadable(format!("offsets of kind {t}"))),
    })
}

fn put_inst_texts<W: Write>(w: &mut Writer<W>, t: &InstTexts) -> std::io::Result<()> {
    match t {
        InstTexts::Held { texts, runs } => {
            w.u8(0)?;
            w.bytes(texts.as_bytes())?;
            w.array(&runs.iter().map(|r| r.raw()).collect::<Vec<u64>>())
        }
        // The path is the instance table's, found again when read.
        InstTexts::OnDisk { at, .. } => {
            w.u8(1)?;
            put_offsets(w, at)
        }
    }
}

fn take_inst_texts<R: Read>(
    r: &mut Reader<R>,
    csv: Option<PathBuf>,
) -> Result<InstTexts, Unreadable> {
    Ok(match r.u8()? {
        0 => InstTexts::Held {
            texts: Texts::from_bytes(r.bytes()?),
            runs: r
                .array::<u64>()?
                .into_iter()
                .map(TextRun::from_raw)
                .collect(),
        },
        1 => InstTexts::OnDisk {
            path: csv
                .ok_or_else(|| Unreadable("the instance table is no plain .csv now".into()))?,
            at: take_offsets(r)?,
        },
        t => return Err(Unreadable(format!("instance texts of kind {t}"))),
    })
}

/// Pairs of numbers as one array.
fn put_pairs<W: Write>(w: &mut Writer<W>, v: &[(u32, u32)]) -> std::io::Result<()> {
    w.array(&v.iter().flat_map(|&(a, b)| [a, b]).collect::<Vec<u32>>())
}

fn take_pairs<R: Read>(r: &mut Reader<R>) -> Result<Vec<(u32, u32)>, Unreadable> {
    let flat: Vec<u32> = r.array()?;
    if !flat.len().is_multiple_of(2) {
        return Err(Unreadable("pairs of an odd count".into()));
    }
    Ok(flat.chunks_exact(2).map(|p| (p[0], p[1])).collect())
}

/// The tables but the instance table's, the symbols and the report.
fn put_first<W: Write>(
    w: &mut Writer<W>,
    t: &PaiTables,
    symbols: &Symbols,
    report: &LoadReport,
) -> std::io::Result<()> {
    cache::put_symbols(w, symbols)?;
    cache::put_report(w, report)?;
    w.u8(u8::from(t.strict))?;
    cache::put_strings(w, &t.unknown_machines)?;
    put_spec(w, &t.spec)?;
    w.bytes(t.texts.as_bytes())?;
    put_jobs(w, &t.jobs)?;
    w.array(&t.job_keys)?;
    w.array(&t.job_tag)?;
    put_group_tags(w, &t.group_tags)?;
    put_tasks(w, &t.tasks)?;
    w.array(&t.task_order)?;
    put_pairs(w, &t.tasks_of)
}

/// The instance table as the load joined it.
fn put_second<W: Write>(w: &mut Writer<W>, t: &PaiTables) -> std::io::Result<()> {
    cache::put_symbols(w, &t.inst_symbols)?;
    put_inst_texts(w, &t.inst_texts)?;
    put_instances(w, &t.instances)?;
    w.array(&t.inst_order)?;
    put_pairs(w, &t.insts_of)
}

/// The first section: the tables but the instance table's.
fn take_first<R: Read>(mut r: Reader<R>, dir: &Path) -> Result<Loaded, Unreadable> {
    let symbols = cache::take_symbols(&mut r)?;
    let report = cache::take_report(&mut r)?;
    let mut t = PaiTables {
        dir: dir.to_path_buf(),
        ..PaiTables::default()
    };
    // Where each table is: found again (the key vouches for the files),
    // so no path goes through the cache as text.
    for (name, _) in ALL {
        let src = crate::archive::find(dir, name).map_err(|e| Unreadable(e.to_string()))?;
        t.sources.push((name, src));
    }
    t.strict = r.u8()? != 0;
    t.unknown_machines = cache::take_strings(&mut r)?;
    t.spec = take_spec(&mut r)?;
    t.texts = Texts::from_bytes(r.bytes()?);
    t.jobs = take_jobs(&mut r)?;
    t.job_keys = r.array()?;
    t.job_tag = r.array()?;
    t.group_tags = take_group_tags(&mut r)?;
    t.tasks = take_tasks(&mut r)?;
    t.task_order = r.array()?;
    t.tasks_of = take_pairs(&mut r)?;
    r.finish()?;
    check_first(&t, &symbols)?;
    Ok(Loaded { t, symbols, report })
}

/// The second section: the instance table.
struct Second {
    inst_symbols: Symbols,
    inst_texts: InstTexts,
    instances: Vec<super::tables::InstanceRow>,
    inst_order: Vec<u32>,
    insts_of: Vec<(u32, u32)>,
}

fn take_second<R: Read>(mut r: Reader<R>, csv: Option<PathBuf>) -> Result<Second, Unreadable> {
    let s = Second {
        inst_symbols: cache::take_symbols(&mut r)?,
        inst_texts: take_inst_texts(&mut r, csv)?,
        instances: take_instances(&mut r)?,
        inst_order: r.array()?,
        insts_of: take_pairs(&mut r)?,
    };
    r.finish()?;
    Ok(s)
}

/// The tables, symbols and report the cache file holds, for the trace in
/// `dir`; the jobs are built from the first section while the second is
/// read.
fn take_all(
    mut o: cache::Opened,
    dir: &Path,
    opts: &LoadOptions,
) -> Result<(Loaded, build::Pending), Unreadable> {
    let [first, second] = o.sections;
    let mut loaded = take_first(Reader::new(&mut o.file, first), dir)?;
    let file = &mut o.file;
    let csv = match loaded.t.source(super::tables::INSTANCE.0) {
        Some(Source::Csv(p)) => Some(p.clone()),
        _ => None,
    };
    let (rest, pending) = crate::par::both(
        move || take_second(Reader::new(file, second), csv),
        || build::jobs_of_tables(&loaded.t, &mut loaded.symbols, opts),
    );
    let rest = rest.map_err(|_| Unreadable("its reader panicked".into()))??;
    let t = &mut loaded.t;
    t.inst_symbols = rest.inst_symbols;
    t.inst_texts = rest.inst_texts;
    t.instances = rest.instances;
    t.inst_order = rest.inst_order;
    t.insts_of = rest.insts_of;
    check_second(t)?;
    t.job_index = KeyTable::of(&t.job_keys);
    Ok((loaded, pending))
}

/// What the rest of the program indexes by is in range (the checksum
/// catches damage, not a file made to pass it: a cache file is input, and
/// input never panics the program).
fn check_first(t: &PaiTables, symbols: &Symbols) -> Result<(), Unreadable> {
    let jobs = t.jobs.len();
    let sym = |s: Option<crate::model::Sym>| s.is_none_or(|s| (s.index() as usize) < symbols.len());
    let ok = t.job_keys.len() == jobs
        && t.job_tag.len() == jobs
        && t.jobs.iter().all(|j| {
            t.texts.holds(j.job_name) && t.texts.holds(j.inst_id) && sym(j.user) && sym(j.status)
        })
        && t.job_tag
            .iter()
            .all(|&g| g == NONE_IDX || (g as usize) < t.group_tags.len())
        && t.group_tags.iter().all(|g| {
            t.texts.holds(g.group) && sym(g.user) && sym(g.gpu_type_spec) && sym(g.workload)
        })
        && ranges_fit(&t.tasks_of, jobs, t.task_order.len())
        && t.task_order.iter().all(|&i| (i as usize) < t.tasks.len())
        && t.tasks.iter().all(|x| {
            (x.job as usize) < jobs && sym(x.task_name) && sym(x.status) && sym(x.gpu_type)
        });
    ok.then_some(())
        .ok_or_else(|| Unreadable("an index out of range".into()))
}

fn check_second(t: &PaiTables) -> Result<(), Unreadable> {
    let jobs = t.jobs.len();
    let n = t.instances.len();
    let machines = t.spec.len() + t.unknown_machines.len();
    let below = |i: u32, n: usize| i == NONE_IDX || (i as usize) < n;
    let names = match &t.inst_texts {
        InstTexts::Held { texts, runs } => {
            runs.len() == n && runs.iter().all(|&r| texts.holds_run(r))
        }
        InstTexts::OnDisk { at, .. } => at.len() == n,
    };
    let ok = names
        && ranges_fit(&t.insts_of, jobs, t.inst_order.len())
        && t.inst_order.iter().all(|&i| (i as usize) < n)
        && t.instances.iter().all(|i| {
            (i.job as usize) < jobs
                && below(i.task, t.tasks.len())
                && below(i.machine, machines)
                && below(i.task_name, t.inst_symbols.len())
                && below(i.status, t.inst_symbols.len())
        });
    ok.then_some(())
        .ok_or_else(|| Unreadable("an index out of range".into()))
}

/// Per job a range of an order `n` long.
fn ranges_fit(v: &[(u32, u32)], jobs: usize, n: usize) -> bool {
    v.len() == jobs && v.iter().all(|&(a, b)| a <= b && b as usize <= n)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cache file whose checksums pass but whose rows point past the
    /// tables (made so, not damaged) is refused, never a panic later.
    #[test]
    fn a_file_that_passes_its_checksums_but_points_out_of_range_is_refused() {
        let dir = Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/fixtures/pai"
        ));
        let cache =
            std::env::temp_dir().join(format!("tracetui-model-cache-{}", std::process::id()));
        let spec = CacheSpec {
            dir: cache.clone(),
            build: "test".into(),
            min_bytes: 0,
        };
        let opts = LoadOptions::default();
        for bad in 0..4 {
            let (mut l, _) =
                super::super::read_tables(dir, &opts, std::time::Instant::now()).unwrap();
            match bad {
                0 => l.t.jobs[0].user = Some(crate::model::Sym::new(9999)),
                1 => l.t.jobs[0].job_name = crate::texts::TextId::from_raw(1 << 40),
                2 => l.t.instances[0].machine = 9999,
                _ => l.t.instances[0].task = 9999,
            }
            let key = format!("key {bad}");
            cache::store(
                &spec,
                &key,
                &mut |w| put_first(w, &l.t, &l.symbols, &l.report),
                &mut |w| put_second(w, &l.t),
            )
            .unwrap();
            let opened = cache::open(&spec, &key).unwrap().unwrap();
            let e = take_all(opened, dir, &opts).err().map(|e| e.0);
            assert_eq!(e.as_deref(), Some("an index out of range"), "case {bad}");
        }
        let _ = std::fs::remove_dir_all(cache);
    }
}
