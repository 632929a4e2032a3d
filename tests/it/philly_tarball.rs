//! Philly's release as downloaded: `trace-data.tar.gz` read in place, in
//! any member order, giving exactly what the unpacked directory gives.

use crate::common;

use common::cli::{stderr, stdout, tracetui};
use std::io::Write;
use std::path::Path;
use tracetui::trace::{
    load_philly, LoadOptions, PhillyTables, Trace, PHILLY_CPU_UTIL, PHILLY_GPU_UTIL,
    PHILLY_JOB_LOG, PHILLY_MACHINES, PHILLY_MEM_UTIL,
};

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/philly");

/// Packs `members` of `dir` into `out` as the release does (`trace-data/NAME`).
fn pack(dir: &Path, members: &[&str], out: &Path) {
    pack_with(dir, members, out, flate2::Compression::fast())
}

fn pack_with(dir: &Path, members: &[&str], out: &Path, level: flate2::Compression) {
    let f = std::fs::File::create(out).unwrap();
    let gz = flate2::write::GzEncoder::new(f, level);
    let mut tar = tar::Builder::new(gz);
    tar.append_dir("trace-data", dir).unwrap();
    for m in members {
        tar.append_path_with_name(dir.join(m), format!("trace-data/{m}"))
            .unwrap();
    }
    tar.into_inner().unwrap().finish().unwrap().flush().unwrap();
}

fn load(p: &Path) -> Trace {
    load_philly(p, &LoadOptions::default()).unwrap().0
}

fn tables(t: &Trace) -> &PhillyTables {
    t.native_as::<PhillyTables>().unwrap()
}

/// Every minute of every utilisation file, and every machine's samples, as
/// the replay asks for them.
fn util_readings(t: &Trace) -> Vec<String> {
    let n = t.native.as_ref().unwrap();
    n.build_indexes().unwrap();
    let p = tables(t);
    let mut out = Vec::new();
    for f in [&p.gpu_util, &p.cpu_util, &p.mem_util]
        .into_iter()
        .flatten()
    {
        let idx = f.index().as_ref().unwrap();
        for &(when, _) in &idx.runs {
            let mut rows: Vec<_> = f.at(when, 0).unwrap().1.into_iter().collect();
            rows.sort_by_key(|r| r.0);
            out.push(format!("{when} {rows:?}"));
        }
        if let Some(&(when, _)) = idx.runs.last() {
            for m in 0..t.cluster.machines.len() as u32 {
                out.push(format!("{m}: {:?}", n.machine_samples(m, when + 30, 120)));
            }
        }
    }
    out
}

#[test]
fn the_tarball_in_any_member_order_loads_and_reads_as_the_directory() {
    let dir = common::scratch_dir("philly-tar");
    let plain = load(Path::new(FIXTURE));
    let want_jobs = format!("{:?}", plain.jobs);
    let want_util = util_readings(&plain);
    assert!(
        want_util.len() > 5,
        "the fixture has utilisation to compare"
    );
    let orders: [&[&str]; 3] = [
        &[
            PHILLY_MACHINES,
            PHILLY_JOB_LOG,
            PHILLY_GPU_UTIL,
            PHILLY_CPU_UTIL,
            PHILLY_MEM_UTIL,
        ],
        &[
            PHILLY_CPU_UTIL,
            PHILLY_MEM_UTIL,
            PHILLY_GPU_UTIL,
            PHILLY_JOB_LOG,
            PHILLY_MACHINES,
        ],
        &[
            PHILLY_JOB_LOG,
            PHILLY_GPU_UTIL,
            PHILLY_MACHINES,
            PHILLY_MEM_UTIL,
            PHILLY_CPU_UTIL,
        ],
    ];
    for (k, order) in orders.iter().enumerate() {
        let tgz = dir.join(format!("order{k}.tar.gz"));
        pack(Path::new(FIXTURE), order, &tgz);
        let t = load(&tgz);
        assert_eq!(format!("{:?}", t.jobs), want_jobs, "order {order:?}");
        assert_eq!(t.cluster.total_gpus(), plain.cluster.total_gpus());
        assert_eq!(util_readings(&t), want_util, "order {order:?}");
    }
}

#[test]
fn the_cli_reads_the_tarball_or_a_directory_holding_it_as_it_reads_the_files() {
    let dir = common::scratch_dir("philly-tar-cli");
    let gen = |extra: &[&str], out: &Path| {
        let mut args = vec!["gen", "philly", "--jobs", "3000", "--util-minutes", "90"];
        args.extend(extra);
        args.extend(["--out", out.to_str().unwrap()]);
        let o = tracetui(&args);
        assert!(o.status.success(), "{}", stderr(&o));
    };
    let (files, packed) = (dir.join("files"), dir.join("packed"));
    gen(&[], &files);
    gen(&["--tar-gz"], &packed);
    let names: Vec<String> = std::fs::read_dir(&packed)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        ["trace-data.tar.gz"],
        "nothing but the archive is left"
    );
    let tgz = packed.join("trace-data.tar.gz");
    let before = std::fs::read(&tgz).unwrap();
    let run = |args: &[&str], path: &Path| {
        let mut a = args.to_vec();
        a.insert(2, path.to_str().unwrap());
        let o = tracetui(&a);
        assert!(o.status.success(), "{a:?}: {}", stderr(&o));
        (common::cli::json_without_meta(&stdout(&o)), stderr(&o))
    };
    for args in [
        &["sim", "philly", "--format", "json", "--policy", "sjf"][..],
        &["stats", "philly", "--format", "json"][..],
        &["job", "philly", "application_1502000000001_1"][..],
    ] {
        let (want, _) = run(args, &files);
        let want = want.replace(files.to_str().unwrap(), "DIR");
        for p in [&tgz, &packed] {
            let (got, err) = run(args, p);
            assert_eq!(
                got.replace(p.to_str().unwrap(), "DIR"),
                want,
                "{args:?} on {p:?}"
            );
            assert!(err.contains("read in place, not unpacked"), "{err}");
        }
    }
    assert_eq!(util_readings(&load(&tgz)), util_readings(&load(&files)));
    // An output may not overwrite the archive it reads.
    let o = tracetui(&[
        "sim",
        "philly",
        tgz.to_str().unwrap(),
        "--jobs-out",
        tgz.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(
        std::fs::read(&tgz).unwrap(),
        before,
        "the archive is never written"
    );
}

fn load_err(p: &Path) -> String {
    load_philly(p, &LoadOptions::default())
        .map(|_| ())
        .unwrap_err()
        .to_string()
}

#[test]
fn a_damaged_or_partial_tarball_is_a_clear_error_naming_it() {
    let dir = common::scratch_dir("philly-tar-bad");
    let tgz = dir.join("trace-data.tar.gz");
    pack(
        Path::new(FIXTURE),
        &[PHILLY_GPU_UTIL, PHILLY_MACHINES, PHILLY_JOB_LOG],
        &tgz,
    );
    let bytes = std::fs::read(&tgz).unwrap();
    let shown = tgz.display().to_string();
    // Cut short, as by an interrupted download.
    let cut = dir.join("cut.tar.gz");
    std::fs::write(&cut, &bytes[..bytes.len() * 2 / 3]).unwrap();
    let e = load_err(&cut);
    assert!(e.contains("cut.tar.gz") && e.contains("ends early"), "{e}");
    // Not gzip at all.
    let text = dir.join("text.tar.gz");
    std::fs::write(&text, "cluster_job_log\n").unwrap();
    let e = load_err(&text);
    assert!(e.contains("text.tar.gz") && e.contains("gzip"), "{e}");
    // Without the machine list.
    let partial = dir.join("partial.tar.gz");
    pack(
        Path::new(FIXTURE),
        &[PHILLY_JOB_LOG, PHILLY_GPU_UTIL],
        &partial,
    );
    let e = load_err(&partial);
    assert!(e.contains("holds no cluster_machine_list"), "{e}");
    // Any byte flipped: an error or a load, never a panic or a hang.
    for k in 1..40 {
        let mut b = bytes.clone();
        let at = k * 7919 % b.len();
        b[at] ^= 1 << (k % 8);
        let p = dir.join(format!("flip{k}.tar.gz"));
        std::fs::write(&p, &b).unwrap();
        if let Ok((t, _)) = load_philly(&p, &LoadOptions::default()) {
            let _ = t.native.as_ref().unwrap().build_indexes();
        }
    }
    assert!(shown.ends_with("trace-data.tar.gz"));
}

#[test]
fn utilisation_files_the_archive_lacks_are_not_offered_once_indexed() {
    let dir = common::scratch_dir("philly-tar-gpu-only");
    let tgz = dir.join("trace-data.tar.gz");
    pack(
        Path::new(FIXTURE),
        &[PHILLY_MACHINES, PHILLY_JOB_LOG, PHILLY_GPU_UTIL],
        &tgz,
    );
    let t = load(&tgz);
    let n = t.native.as_ref().unwrap();
    n.build_indexes().unwrap();
    let p = tables(&t);
    let when = p.gpu_util.as_ref().unwrap().index().as_ref().unwrap().runs[0].0;
    assert!(p.gpu_util.as_ref().unwrap().at(when, 0).is_some());
    assert_eq!(n.machine_samples(0, when, 120), Vec::new());
}

#[test]
fn a_byte_changed_in_stored_data_is_caught_by_the_checksum() {
    // Stored (uncompressed) deflate blocks inflate whatever their bytes
    // are: only the gzip checksum, read at the end of the index pass, can tell.
    let dir = common::scratch_dir("philly-tar-crc");
    let tgz = dir.join("trace-data.tar.gz");
    let order = [
        PHILLY_MACHINES,
        PHILLY_JOB_LOG,
        PHILLY_GPU_UTIL,
        PHILLY_CPU_UTIL,
        PHILLY_MEM_UTIL,
    ];
    pack_with(
        Path::new(FIXTURE),
        &order,
        &tgz,
        flate2::Compression::none(),
    );
    let mut bytes = std::fs::read(&tgz).unwrap();
    let mem = std::fs::read(Path::new(FIXTURE).join(PHILLY_MEM_UTIL)).unwrap();
    let at = bytes.windows(mem.len()).rposition(|w| w == mem).unwrap();
    bytes[at + mem.len() - 3] ^= 0x01;
    std::fs::write(&tgz, &bytes).unwrap();
    let t = load(&tgz);
    let e = t.native.as_ref().unwrap().build_indexes().unwrap_err();
    let e = format!("{:?}", e.0);
    assert!(
        e.contains("checksum") && e.contains("trace-data.tar.gz"),
        "{e}"
    );
}
