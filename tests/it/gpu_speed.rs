//! `--gpu-speed`: GPU types' relative speeds for traces without throughput
//! tables. Known answers on a hand-written PAI trace: two 1-GPU machines,
//! a V100 (factor 1) and a T4 (factor 0.5); a job recorded on one type
//! runs its recorded time × (its type's factor ÷ the factor of the type
//! it runs on).

use crate::common;

use common::cli::{stderr, stdout, tracetui};
use std::path::{Path, PathBuf};

/// (job, recorded machine, gpu_type_spec, submit, recorded run time).
const JOBS: [(&str, &str, &str, i64, i64); 4] = [
    ("ja", "mt", "", 0, 100), // ran on the T4
    ("jb", "mv", "", 0, 120), // ran on the V100
    ("jc", "mt", "", 10, 90), // ran on the T4, starts where one is free
    ("jd", "", "T4", 20, 60), // asks for the T4: its recorded speed
];

fn trace_dir() -> PathBuf {
    let d = common::scratch_dir("gpu-speed");
    let base = 4_550_000;
    let (mut job, mut task, mut inst, mut tag) =
        (String::new(), String::new(), String::new(), String::new());
    for (i, (name, machine, spec, submit, run)) in JOBS.iter().enumerate() {
        let (s, e) = (base + submit, base + submit + run);
        job += &format!("{name},i{i},u1,Terminated,{s}.0,{e}.0\n");
        task += &format!(
            "{name},worker,1.0,Terminated,{s}.0,{e}.0,400.0,8,100.0,{}\n",
            if spec.is_empty() { "T4" } else { spec }
        );
        if !machine.is_empty() {
            inst += &format!("{name},worker,in{i},w{i},i{i},Terminated,{s}.0,{e}.0,{machine}\n");
        }
        tag += &format!("i{i},u1,{spec},g1,\n");
    }
    let files = [
        ("pai_job_table.csv", job),
        ("pai_task_table.csv", task),
        ("pai_instance_table.csv", inst),
        ("pai_group_tag_table.csv", tag),
        (
            "pai_machine_spec.csv",
            "mv,V100,96,512,1\nmt,T4,96,512,1\n".to_string(),
        ),
    ];
    for (f, body) in files {
        std::fs::write(d.join(f), body).unwrap();
    }
    d
}

/// (job, start, end, machines): a row of `--jobs-out`.
type Row = (String, i64, i64, String);

/// The rows of `--jobs-out`, stdout and stderr of a `sim` run.
fn jobs_out(dir: &Path, extra: &[&str]) -> (Vec<Row>, String, String) {
    let out = dir.join(format!("jobs-{}.csv", extra.len()));
    let d = dir.to_str().unwrap();
    let o = out.to_str().unwrap();
    let mut args = vec!["sim", "pai", d, "--policy", "fifo", "--jobs-out", o];
    args.extend_from_slice(extra);
    let r = tracetui(&args);
    assert!(r.status.success(), "{}", stderr(&r));
    let text = std::fs::read_to_string(&out).unwrap();
    let mut rows = csv::Reader::from_reader(text.as_bytes());
    let head = rows.headers().unwrap().clone();
    let col = |n: &str| head.iter().position(|h| h == n).unwrap();
    let (id, start, end, mach) = (col("id"), col("start_s"), col("end_s"), col("machines"));
    let parsed = rows
        .records()
        .map(|r| {
            let r = r.unwrap();
            (
                r[id].to_string(),
                r[start].parse().unwrap(),
                r[end].parse().unwrap(),
                r[mach].to_string(),
            )
        })
        .collect();
    (parsed, stdout(&r), stderr(&r))
}

#[test]
fn a_job_runs_at_the_speed_of_the_type_it_runs_on() {
    let dir = trace_dir();
    let (rows, _, err) = jobs_out(&dir, &["--gpu-speed", "V100=1,T4=0.5"]);
    assert!(
        err.contains("speed model: 3 GPU jobs run at their GPU type's speed (T4 0.5, V100 1)"),
        "{err}"
    );
    assert!(err.contains("1 ask for one GPU type"), "{err}");
    // Worked by hand. ja and jb start at once, placed first fit: ja (ran
    // on the T4) on the V100, 100 × 0.5 ÷ 1 = 50 s; jb (ran on the V100)
    // on the T4, 120 × 1 ÷ 0.5 = 240 s. jc waits for the V100 ja frees at
    // 50 and runs 90 × 0.5 ÷ 1 = 45 s; jd asks for the T4 and runs its
    // recorded 60 s once jb is done.
    let base = 4_550_000;
    let want = [
        ("ja", 0, 50),
        ("jb", 0, 240),
        ("jc", 50, 95),
        ("jd", 240, 300),
    ];
    let got: Vec<(&str, i64, i64)> = rows
        .iter()
        .map(|(id, s, e, _)| (id.as_str(), s - base, e - base))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn factors_of_one_change_nothing_and_no_flag_is_the_recorded_replay() {
    let dir = trace_dir();
    let (plain, out_plain, _) = jobs_out(&dir, &[]);
    let (ones, out_ones, _) = jobs_out(&dir, &["--gpu-speed", "V100=1", "--gpu-speed", "T4=1"]);
    assert_eq!(plain, ones);
    let metrics = |s: &str| {
        s.lines()
            .take_while(|l| !l.starts_with("rules:"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(metrics(&out_plain), metrics(&out_ones));
    for (id, start, end, _) in &plain {
        let run = JOBS.iter().find(|j| j.0 == id).unwrap().4;
        assert_eq!(end - start, run, "{id}");
    }
}

#[test]
fn bad_factors_are_named() {
    let dir = trace_dir();
    let d = dir.to_str().unwrap();
    for (arg, want) in [
        (
            "A100=2",
            "this cluster has no GPU of type A100 (its types: V100, T4)",
        ),
        ("V100=0", "V100=0: the factor must be a positive number"),
        ("V100=fast", "V100=fast: the factor is not a number"),
        ("V100", "V100: expected TYPE=FACTOR"),
        ("T4=1,t4=2", "t4=2: this GPU type is named twice"),
        ("V100=\u{1b}[31m", "V100=\\x1b[31m"),
    ] {
        let r = tracetui(&["sim", "pai", d, "--gpu-speed", arg]);
        assert!(!r.status.success(), "{arg}");
        assert!(stderr(&r).contains(want), "{arg}: {}", stderr(&r));
        assert!(!stderr(&r).contains('\u{1b}'), "{arg}");
    }
    let r = tracetui(&[
        "sim",
        "itp",
        common::cli::SAMPLE,
        "--gpu-speed",
        "GPU=1",
        "--throughputs",
        "x",
    ]);
    assert!(stderr(&r).contains("cannot be used with"), "{}", stderr(&r));
}

/// Issue 63, item 5: absurd speeds are refused by name, never clamped
/// into runs past the year 2100 — a `--gpu-speed` factor outside 0.001 to
/// 1000, a table rate outside 1e-6 to 1e9 iterations per second, and a job
/// the tables would run past the bound.
#[test]
fn absurd_speeds_are_refused_by_name() {
    let o = tracetui(&["sim", "pai", common::cli::PAI, "--gpu-speed", "T4=1e-15"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("--gpu-speed: T4=1e-15: a factor from 0.001 to 1000"),
        "{}",
        stderr(&o)
    );
    let dir = common::scratch_dir("absurd-speeds");
    let tables = dir.join("t");
    std::fs::create_dir_all(&tables).unwrap();
    let trace = dir.join("t.csv");
    let head =
        "job_id,submission_time,num_iteration,model_name,deadline,batch_size,num_gpu,duration\n";
    let run = |table: &str, iterations: &str| {
        std::fs::write(tables.join("m.csv"), table).unwrap();
        std::fs::write(&trace, format!("{head}a,0,{iterations},m,9999,32,1,999\n")).unwrap();
        tracetui(&[
            "sim",
            "itp",
            trace.to_str().unwrap(),
            "--throughputs",
            tables.to_str().unwrap(),
        ])
    };
    let o = run("global_batch_size,1,2\n32,1e-300,2\n", "400");
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("m.csv:2: column 1")
            && stderr(&o).contains("1e-300 iterations per second is outside 1e-6 to 1e9"),
        "{}",
        stderr(&o)
    );
    let o = run("global_batch_size,1,2\n32,1e-5,2e-5\n", "400000000");
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("job a (400000000 iterations at 0.00001 per second on 1 GPUs) would run past the year 2100"),
        "{}",
        stderr(&o)
    );
    let o = run("global_batch_size,1,2\n32,4,7\n", "400");
    assert!(o.status.success(), "{}", stderr(&o));
}
