//! The load cache (issue 61, item 7): a PAI load read back from the cache
//! equals the load from the tables, field by field and in every command's
//! output; a changed input, option or build, or a damaged file, is a miss,
//! never a stale result; nothing is written beside the trace; `--no-cache`
//! neither reads nor writes one.

use crate::common;

use common::cli::{stderr, stdout};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use tracetui::trace::{load_pai, CacheSpec, LoadOptions, PaiTables, Trace};

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/pai");

/// Sets a file's modification time `secs` ago: a load of files changed in
/// the last 2 s is not cached (they could change again unseen).
fn age(p: &Path, secs: u64) {
    let t = std::time::SystemTime::now() - std::time::Duration::from_secs(secs);
    std::fs::File::options()
        .append(true)
        .open(p)
        .unwrap()
        .set_modified(t)
        .unwrap();
}

/// A copy of the fixture, an hour old, and an empty cache directory.
fn setup(tag: &str) -> (PathBuf, PathBuf) {
    let d = common::scratch_dir(tag);
    let trace = d.join("trace");
    std::fs::create_dir_all(&trace).unwrap();
    for e in std::fs::read_dir(FIXTURE).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "csv") {
            let to = trace.join(p.file_name().unwrap());
            std::fs::copy(&p, &to).unwrap();
            age(&to, 3600);
        }
    }
    (trace, d.join("cache"))
}

fn options(cache: &Path, build: &str) -> LoadOptions {
    LoadOptions {
        cache: Some(CacheSpec {
            dir: cache.to_path_buf(),
            build: build.into(),
            min_bytes: 0,
        }),
        ..LoadOptions::default()
    }
}

/// Loads, and waits for the cache file the load writes.
fn load(trace: &Path, opts: &LoadOptions) -> (Trace, tracetui::trace::LoadReport) {
    let mut out = load_pai(trace, opts).unwrap();
    if let Some(w) = out.1.cache_write.take() {
        w.run().unwrap().unwrap();
    }
    out
}

/// Everything the load derived, as text.
fn everything(t: &Trace) -> String {
    let p = t.native_as::<PaiTables>().unwrap();
    format!(
        "{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}",
        t.jobs, t.segments, t.cluster, t.symbols, t.excluded, p
    )
}

fn cache_files(cache: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(cache)
        .map(|d| d.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

#[test]
fn a_cached_load_equals_the_load_from_the_tables() {
    let (trace, cache) = setup("cache-equal");
    let before: Vec<_> = std::fs::read_dir(&trace)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    let (plain, plain_report) = load_pai(&trace, &LoadOptions::default()).unwrap();
    let (first, r1) = load(&trace, &options(&cache, "b1"));
    assert!(r1.cache.is_none(), "the first load reads the tables");
    assert_eq!(cache_files(&cache).len(), 1, "one cache file written");
    let (again, r2) = load(&trace, &options(&cache, "b1"));
    assert!(r2.cache.is_some(), "the second load reads the cache");
    assert!(
        r2.notes
            .iter()
            .any(|n| n.starts_with("read from the load cache")),
        "{:?}",
        r2.notes
    );
    assert_eq!(everything(&plain), everything(&first));
    assert_eq!(everything(&plain), everything(&again));
    // The report says the same but for the cache's own note.
    let notes: Vec<&String> = r2
        .notes
        .iter()
        .filter(|n| !n.starts_with("read from the load cache"))
        .collect();
    assert_eq!(notes, plain_report.notes.iter().collect::<Vec<_>>());
    assert_eq!(r2.skips, plain_report.skips);
    let after: Vec<_> = std::fs::read_dir(&trace)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(before, after, "nothing written beside the trace");
}

#[test]
fn a_changed_input_option_or_build_is_a_miss() {
    let (trace, cache) = setup("cache-miss");
    let opts = options(&cache, "b1");
    load(&trace, &opts);
    // Another build: not read.
    let (_, r) = load(&trace, &options(&cache, "b2"));
    assert!(r.cache.is_none());
    // Another option: not read.
    let strict = LoadOptions {
        strict: true,
        ..opts.clone()
    };
    assert!(load(&trace, &strict).1.cache.is_none());
    // Options the jobs are built with again are no part of the key: read
    // from the cache, the same as from the tables.
    let cpu = LoadOptions {
        include_cpu_jobs: true,
        ..opts.clone()
    };
    let (t, r) = load(&trace, &cpu);
    assert!(r.cache.is_some());
    let plain = LoadOptions {
        include_cpu_jobs: true,
        ..LoadOptions::default()
    };
    assert_eq!(
        everything(&t),
        everything(&load_pai(&trace, &plain).unwrap().0)
    );
    // The instance table rewritten at its size (a job's instance moved to
    // another machine): the tables are read again, and the new machine
    // shows; just changed, it is not kept (it could change again unseen).
    let inst = trace.join("pai_instance_table.csv");
    let body = std::fs::read_to_string(&inst).unwrap();
    let changed = body.replacen(",m1\n", ",m2\n", 1);
    assert_ne!(body, changed);
    assert_eq!(body.len(), changed.len());
    std::fs::write(&inst, &changed).unwrap();
    let (t, r) = load(&trace, &opts);
    assert!(
        r.cache.is_none(),
        "a changed table is never read from the cache"
    );
    let fresh = load_pai(&trace, &LoadOptions::default()).unwrap().0;
    assert_eq!(everything(&t), everything(&fresh));
    assert!(
        load(&trace, &opts).1.cache.is_none(),
        "just changed: not kept"
    );
    age(&inst, 1800);
    assert!(load(&trace, &opts).1.cache.is_none());
    assert!(
        load(&trace, &opts).1.cache.is_some(),
        "settled: cached again"
    );
    // Replaced by a rename with the same bytes and time: another file.
    let when = std::fs::metadata(&inst).unwrap().modified().unwrap();
    let copy = trace.join("copy.tmp");
    std::fs::write(&copy, &changed).unwrap();
    std::fs::rename(&copy, &inst).unwrap();
    std::fs::File::options()
        .append(true)
        .open(&inst)
        .unwrap()
        .set_modified(when)
        .unwrap();
    assert!(load(&trace, &opts).1.cache.is_none(), "another inode");
    // A row added (another size).
    let mut grown = changed.clone();
    grown.push_str(
        changed
            .lines()
            .next()
            .unwrap()
            .replace("j01,", "j02,")
            .as_str(),
    );
    grown.push('\n');
    std::fs::write(&inst, grown).unwrap();
    age(&inst, 900);
    let (t, r) = load(&trace, &opts);
    assert!(r.cache.is_none());
    assert_eq!(
        everything(&t),
        everything(&load_pai(&trace, &LoadOptions::default()).unwrap().0)
    );
    assert!(cache_files(&cache).len() <= tracetui::trace::CACHE_KEEP);
}

#[test]
fn a_damaged_cache_file_is_refused_and_the_tables_read() {
    let (trace, cache) = setup("cache-damaged");
    let opts = options(&cache, "b1");
    let (plain, _) = load(&trace, &opts);
    let file = cache_files(&cache).pop().unwrap();
    let mut bytes = std::fs::read(&file).unwrap();
    let n = bytes.len();
    bytes[n - 100] ^= 0x10;
    std::fs::write(&file, &bytes).unwrap();
    let (t, r) = load(&trace, &opts);
    assert!(r.cache.is_none());
    assert!(
        r.notes
            .iter()
            .any(|n| n.contains("could not be read") && n.contains("checksum")),
        "{:?}",
        r.notes
    );
    assert_eq!(everything(&t), everything(&plain));
    // Written again; a hit does not repeat the refusal.
    let (_, r) = load(&trace, &opts);
    assert!(r.cache.is_some());
    assert!(
        !r.notes.iter().any(|n| n.contains("could not be read")),
        "{:?}",
        r.notes
    );
    // Damage in the first section (after the head: a 20-byte magic, the
    // key's length and text, the section's length), or in the head's key
    // length: refused too.
    for first in [true, false] {
        let file = cache_files(&cache).pop().unwrap();
        let mut bytes = std::fs::read(&file).unwrap();
        let key = u64::from_le_bytes(bytes[20..28].try_into().unwrap()) as usize;
        let at = if first { 28 + key + 8 + 40 } else { 27 };
        bytes[at] ^= 0x01;
        std::fs::write(&file, &bytes).unwrap();
        let (t, r) = load(&trace, &opts);
        assert!(r.cache.is_none(), "byte {at}");
        assert!(
            r.notes.iter().any(|n| n.contains("could not be read")),
            "byte {at}: {:?}",
            r.notes
        );
        assert_eq!(everything(&t), everything(&plain));
    }
    // Cut short: refused too.
    let file = cache_files(&cache).pop().unwrap();
    let len = std::fs::metadata(&file).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&file)
        .unwrap()
        .set_len(len / 2)
        .unwrap();
    let (t, r) = load(&trace, &opts);
    assert!(r.cache.is_none());
    assert_eq!(everything(&t), everything(&plain));
}

#[test]
fn the_traces_opened_last_are_kept() {
    let (trace, cache) = setup("cache-evict");
    let keep = tracetui::trace::CACHE_KEEP;
    let hit = |b: usize| {
        let h = load(&trace, &options(&cache, &format!("build {b}")))
            .1
            .cache
            .is_some();
        std::thread::sleep(std::time::Duration::from_millis(20));
        h
    };
    for b in 0..keep + 2 {
        assert!(!hit(b));
    }
    assert_eq!(cache_files(&cache).len(), keep);
    // The newest `keep` are the ones kept; opening the oldest of them makes
    // it the newest, so the next write removes the one after it.
    for b in 2..keep + 2 {
        assert!(hit(b), "build {b}");
    }
    assert!(hit(2));
    assert!(!hit(keep + 2));
    assert!(hit(2), "opened last: kept");
    assert!(!hit(3), "opened least lately: removed");
    assert_eq!(cache_files(&cache).len(), keep);
}

/// `tracetui ARGS` with the cache under `cache` and no size floor.
fn run(cache: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tracetui"))
        .args(args)
        .env("XDG_CACHE_HOME", cache)
        .env("TRACETUI_CACHE_MIN_BYTES", "0")
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

#[test]
fn commands_give_the_same_output_from_the_cache_and_no_cache_neither_reads_nor_writes() {
    let (trace, cache) = setup("cache-cli");
    let t = trace.to_str().unwrap();
    let none = run(&cache, &["sim", "pai", t, "--policy", "fifo", "--no-cache"]);
    assert!(none.status.success(), "{}", stderr(&none));
    assert!(!cache.exists(), "--no-cache writes nothing");
    let first = run(&cache, &["sim", "pai", t, "--policy", "fifo"]);
    assert!(cache.join("tracetui/loads").exists(), "{}", stderr(&first));
    let second = run(&cache, &["sim", "pai", t, "--policy", "fifo"]);
    assert!(
        stderr(&second).contains("read from the load cache"),
        "{}",
        stderr(&second)
    );
    assert_eq!(stdout(&none), stdout(&first));
    assert_eq!(stdout(&none), stdout(&second));
    let no = run(&cache, &["sim", "pai", t, "--policy", "fifo", "--no-cache"]);
    assert!(!stderr(&no).contains("load cache"), "{}", stderr(&no));
    for args in [&["stats", "pai", t][..], &["job", "pai", t, "j01"]] {
        let cached = run(&cache, args);
        let plain = run(&cache, &[args, &["--no-cache"]].concat());
        assert!(
            stderr(&cached).contains("read from the load cache"),
            "{}",
            stderr(&cached)
        );
        assert_eq!(stdout(&cached), stdout(&plain));
    }
}

/// From a `.tar.gz`, whose instance names are held rather than read back,
/// the cache gives the same too.
#[test]
fn an_archive_s_load_is_cached_the_same() {
    let trace =
        crate::pai_bad_input::with_archive("pai_instance_table", "pai_instance_table.csv", false);
    let cache = common::scratch_dir("cache-archive");
    for e in std::fs::read_dir(&trace).unwrap() {
        age(&e.unwrap().path(), 3600);
    }
    let (plain, _) = load_pai(&trace, &LoadOptions::default()).unwrap();
    load(&trace, &options(&cache, "b1"));
    let (again, r) = load(&trace, &options(&cache, "b1"));
    assert!(r.cache.is_some());
    assert_eq!(everything(&plain), everything(&again));
    let p = again.native_as::<PaiTables>().unwrap();
    let names = p.inst_texts(&[0]).unwrap();
    assert_eq!(names[0].worker_name, "w01");
}

/// A cache that cannot be written (here its directory is a file) is said
/// once, and the results are the same.
#[test]
fn a_cache_that_cannot_be_written_is_said_and_changes_nothing() {
    let (trace, cache) = setup("cache-unwritable");
    std::fs::write(&cache, "a file, not a directory").unwrap();
    let t = trace.to_str().unwrap();
    let o = run(&cache, &["sim", "pai", t, "--policy", "fifo"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("the load cache could not be written"),
        "{}",
        stderr(&o)
    );
    let plain = run(&cache, &["sim", "pai", t, "--policy", "fifo", "--no-cache"]);
    assert_eq!(stdout(&o), stdout(&plain));
}
