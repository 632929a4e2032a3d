//! Lessons a lecturer writes (issue 33 item 22): a TOML file of the
//! cluster, jobs (groups of one shape, a trace file, or `gen`'s), a policy
//! schedule, a placement and timed captions; `tracetui lesson FILE` plays
//! it; the built-ins are such files. A bad file is refused by name, with
//! what is wrong and where.

use crate::common;

use common::cli::{stderr, tracetui};
use tracetui::lesson::Lesson;

fn write(name: &str, text: &str) -> std::path::PathBuf {
    let dir = common::scratch_dir("lesson-files");
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

const MINE: &str = r#"
name = "mine"
title = "Backfill on a small cluster"
gpus = 8
gpus_per_machine = 4
placement = "pack"
schedule = "start:fifo,1h:fifo-backfill"

# Four long one-GPU jobs, then an 8-GPU job, then small ones every 2 minutes.
[[jobs]]
at = 0
count = 4
runtime = "50m"
gpus = 1

[[jobs]]
at = "1m"
runtime = "10m"
gpus = 8

[[jobs]]
at = "2m"
count = 10
every = "2m"
runtime = 300
gpus = 1

[[captions]]
at = 0
text = "Four long jobs take half the GPUs."

[[captions]]
at = "1m"
text = "The big job waits at the head."
"#;

#[test]
fn a_lecturers_file_gives_its_trace_schedule_and_captions() {
    let p = write("mine.toml", MINE);
    let l = Lesson::from_file(&p).unwrap();
    assert_eq!((l.name.as_str(), l.gpus, l.per_node), ("mine", 8, 4));
    assert_eq!(l.placement, tracetui::sim::Placement::Pack);
    assert_eq!(
        l.captions,
        vec![
            (0, "Four long jobs take half the GPUs.".to_string()),
            (60, "The big job waits at the head.".to_string())
        ]
    );
    let (t, _) = l.load_trace().unwrap();
    assert_eq!(t.jobs.len(), 15);
    let mut submits: Vec<i64> = t.jobs.iter().map(|j| j.submit).collect();
    submits.sort();
    assert_eq!(&submits[..6], &[0, 0, 0, 0, 60, 120]);
    assert_eq!(*submits.last().unwrap(), 120 + 9 * 120);
    assert_eq!(t.cluster.total_gpus(), 8);
    // `tracetui lesson FILE` loads it and gets as far as the terminal.
    let o = tracetui(&["lesson", p.to_str().unwrap()]);
    assert!(
        stderr(&o).contains("a lesson plays in a terminal"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_file_may_name_a_trace_or_gen_recipe() {
    let sample =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-traces/itp/sample.csv");
    let dir = common::scratch_dir("lesson-trace");
    std::fs::copy(&sample, dir.join("jobs.csv")).unwrap();
    let p = dir.join("t.toml");
    std::fs::write(&p, "name = \"t\"\ngpus = 128\ngpus_per_machine = 8\nschedule = \"start:sjf\"\ntrace = \"itp:jobs.csv\"\n").unwrap();
    let (t, _) = Lesson::from_file(&p).unwrap().load_trace().unwrap();
    assert_eq!(t.jobs.len(), 2000);
    let g = write("g.toml", "name = \"g\"\ngpus = 64\ngpus_per_machine = 8\nschedule = \"start:fifo\"\n[gen]\njobs = 300\nseed = 3\nload = 0.8\n");
    let (t, _) = Lesson::from_file(&g).unwrap().load_trace().unwrap();
    assert_eq!(t.jobs.len(), 300);
}

#[test]
fn a_bad_file_says_what_and_where() {
    let cases = [
        (
            "typo.toml",
            MINE.replace("runtime = 300", "run_time = 300"),
            "unknown field `run_time`",
        ),
        (
            "two.toml",
            format!("trace = \"itp:x.csv\"\n{MINE}"),
            "give the jobs one way",
        ),
        (
            "place.toml",
            MINE.replace("\"pack\"", "\"tight\""),
            "placement 'tight'",
        ),
        (
            "order.toml",
            MINE.replace("at = \"1m\"\ntext", "at = 0\ntext"),
            "captions: in time order",
        ),
        (
            "time.toml",
            MINE.replace("every = \"2m\"", "every = \"soon\""),
            "every = \"soon\"",
        ),
        (
            "huge.toml",
            MINE.replacen("gpus = 8\n", "gpus = 200000\n", 1),
            "gpus: 1 to 100000",
        ),
    ];
    for (name, text, want) in cases {
        let p = write(name, &text);
        let e = Lesson::from_file(&p)
            .err()
            .unwrap_or_else(|| panic!("{name} refused"))
            .to_string();
        assert!(e.starts_with(&p.display().to_string()), "{e}");
        assert!(e.contains(want), "{name}: {e}");
    }
    let typo = Lesson::from_file(&write(
        "typo2.toml",
        &MINE.replace("runtime = 300", "run_time = 300"),
    ))
    .err()
    .unwrap()
    .to_string();
    assert!(typo.contains("line 25"), "the line: {typo}");
    let o = tracetui(&["lesson", "/no/such/lesson.toml"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("/no/such/lesson.toml"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn the_built_ins_are_lesson_files() {
    let all = tracetui::lesson::builtins();
    let names: Vec<&str> = all.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["hol", "starvation", "fragmentation", "deadlines"]);
    for n in names {
        let text = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(format!("src/lesson/builtin/{n}.toml")),
        )
        .unwrap();
        let p = write(&format!("{n}.toml"), &text);
        let l = Lesson::from_file(&p).unwrap();
        let b = tracetui::lesson::find(n).unwrap();
        assert_eq!(
            (l.captions.clone(), l.schedule.clone()),
            (b.captions.clone(), b.schedule.clone())
        );
        assert_eq!(l.load_trace().unwrap().0.jobs, b.trace().0.jobs);
    }
}

/// Issue 63, items 3, 4 and 15: a lesson is data. A file whose schedule
/// names a program is refused, naming it, unless `--allow-exec`; a file
/// that is no regular file (`/dev/zero`, a FIFO) or groups that make too
/// many jobs, or arrive past the largest time, are refused by name — no
/// hang, no memory without bound.
#[test]
fn a_lesson_is_data_bounded_and_runs_nothing_unasked() {
    let dir = common::scratch_dir("lesson-data");
    let marker = dir.join("ran");
    let exec = write(
        "exec.toml",
        &MINE.replace(
            "schedule = \"start:fifo,1h:fifo-backfill\"",
            &format!("schedule = \"start:exec:touch {}\"", marker.display()),
        ),
    );
    let o = tracetui(&["lesson", exec.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!(
            "lesson mine would run `touch {}`: a lesson file runs no program unless you give --allow-exec",
            marker.display()
        )),
        "{}",
        stderr(&o)
    );
    assert!(!marker.exists(), "nothing ran");
    let o = tracetui(&["lesson", exec.to_str().unwrap(), "--allow-exec"]);
    assert!(
        stderr(&o).contains("tracetui: lesson mine runs `touch"),
        "said: {}",
        stderr(&o)
    );
    // Not a regular file: /dev/zero behind a name, and a FIFO.
    let zero = dir.join("z.toml");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let fifo = dir.join("f.toml");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    for p in [&zero, &fifo] {
        let e = Lesson::from_file(p).err().unwrap().to_string();
        assert!(e.contains("not a regular file"), "{e}");
    }
    // Groups: too many jobs together; a time past the largest.
    let mut many = MINE.to_string();
    for _ in 0..3 {
        many.push_str("\n[[jobs]]\nat = 0\ncount = 40000\nruntime = 60\ngpus = 1\n");
    }
    let e = Lesson::from_file(&write("many.toml", &many))
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("[[jobs]] 6: the groups make more than 100000 jobs"),
        "{e}"
    );
    // A time past a century is refused as it is read; one inside it whose
    // group's later jobs would pass it, at the first of those.
    let late = MINE.replace(
        "at = \"2m\"\ncount = 10",
        "at = 9223372036854775000\ncount = 10",
    );
    let e = Lesson::from_file(&write("late.toml", &late))
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("line 22, column 6")
            && e.contains("9223372036854775000 s is past the largest time a lesson takes"),
        "{e}"
    );
    let later = MINE.replace("at = \"2m\"\ncount = 10", "at = 3162239900\ncount = 10");
    let e = Lesson::from_file(&write("later.toml", &later))
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("[[jobs]] 3: job 2 of it would arrive past the largest time"),
        "{e}"
    );
}

/// Issue 63, item 15: a `[gen]` load outside its stated range (0, −1,
/// NaN, 1e-300: arrivals past any time) is refused by name.
#[test]
fn a_gen_lesson_load_is_in_its_range() {
    for load in ["0", "-1", "nan", "1e-300", "1e9"] {
        let text = format!(
            "name = \"g\"\ngpus = 8\ngpus_per_machine = 4\nschedule = \"start:fifo\"\n[gen]\njobs = 50\nseed = 1\nload = {load}\n"
        );
        let e = Lesson::from_file(&write("gen.toml", &text))
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("[gen] load = ") && e.contains("a number from 0.01 to 10"),
            "{load}: {e}"
        );
    }
    let ok = "name = \"g\"\ngpus = 8\ngpus_per_machine = 4\nschedule = \"start:fifo\"\n[gen]\njobs = 50\nseed = 1\nload = 0.8\n";
    assert!(Lesson::from_file(&write("gen-ok.toml", ok)).is_ok());
}

/// Issue 63's lows: a TOML error quotes its line cut short, not a 400 KB
/// line whole — in a lesson file and in a sweep's plan.
#[test]
fn a_toml_error_quotes_its_line_cut_short() {
    let long = "a".repeat(400_000);
    let lesson = write(
        "long.toml",
        &format!("name = \"x\"\nschedule = \"{long}\" x\n"),
    );
    let e = Lesson::from_file(&lesson).err().unwrap().to_string();
    assert!(e.len() < 2_000, "{} bytes", e.len());
    assert!(
        e.contains("TOML parse error at line 2") && e.contains('…'),
        "{e}"
    );
    let dir = common::scratch_dir("toml-long");
    let plan = dir.join("plan.toml");
    std::fs::write(
        &plan,
        format!("trace = \"itp:x.csv\"\npolicy = \"{long}\" x\n"),
    )
    .unwrap();
    let o = tracetui(&[
        "sweep",
        plan.to_str().unwrap(),
        "--out",
        dir.join("o").to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(o.stderr.len() < 2_000, "{} bytes", o.stderr.len());
    assert!(
        stderr(&o).contains("TOML parse error at line 2"),
        "{}",
        stderr(&o)
    );
}

/// Issue 61 item 13: a lesson's errors say where — a bad duration by its
/// line and column (it named no line), a missing `schedule` by name (toml
/// pointed at line 1, column 1).
#[test]
fn lesson_errors_say_where() {
    let bad = MINE.replace("at = \"2m\"", "at = \"1 m\"");
    let e = Lesson::from_file(&write("one-m.toml", &bad))
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("line 22, column 6") && e.contains("'1 m' is not seconds or a duration"),
        "{e}"
    );
    let none: String = MINE
        .lines()
        .filter(|l| !l.starts_with("schedule"))
        .map(|l| format!("{l}\n"))
        .collect();
    let e = Lesson::from_file(&write("no-schedule.toml", &none))
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("no schedule: a lesson names the policy it runs"),
        "{e}"
    );
}

/// The checks made once the file is read name its line and column too
/// (issue 61, item 6): a placement, a caption out of order, the cluster's
/// size, a trace's format, a `[gen]` load, a group that makes too many.
#[test]
fn checks_after_reading_name_the_line_and_column_and_show_it() {
    let cases: [(&str, &str, &str, &str); 6] = [
        (
            "placement = \"pack\"",
            "placement = \"pak\"",
            "line 6, column 13: placement 'pak'",
            "| placement = \"pak\"",
        ),
        (
            "at = \"1m\"\ntext = \"The big",
            "at = 0\ntext = \"The big",
            "line 33, column 6: captions: in time order",
            "| at = 0",
        ),
        (
            "gpus = 8\n",
            "gpus = 0\n",
            "line 4, column 8: gpus: 1 to",
            "| gpus = 0",
        ),
        (
            "gpus_per_machine = 4",
            "gpus_per_machine = 99",
            "line 5, column 20: gpus_per_machine: 1 to 64",
            "| gpus_per_machine = 99",
        ),
        (
            "count = 10\n",
            "count = 200000\n",
            "line 21, column 1: [[jobs]] 3: the groups make more than",
            "| [[jobs]]",
        ),
        (
            "waits at the head.\"\n",
            "waits at the head.\"\n[placements]\n\"wide\" = []\n",
            "line 36, column 1: placement 'wide'",
            "| \"wide\" = []",
        ),
    ];
    for (from, to, says, shows) in cases {
        assert!(MINE.contains(from), "{from}");
        let text = MINE.replacen(from, to, 1);
        let e = Lesson::from_file(&write("where.toml", &text))
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains(says), "{says}:\n{e}");
        assert!(e.contains(shows), "{shows}:\n{e}");
    }
    let gen = "name = \"g\"\ngpus = 8\ngpus_per_machine = 8\nschedule = \"fifo\"\n[gen]\njobs = 10\nseed = 1\nload = 99.0\n";
    let e = Lesson::from_file(&write("gen.toml", gen))
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("line 8, column 8: [gen] load = 99"), "{e}");
    let trace = "name = \"t\"\ngpus = 8\ngpus_per_machine = 8\nschedule = \"fifo\"\ntrace = \"nope:x.csv\"\n";
    let e = Lesson::from_file(&write("trace.toml", trace))
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("line 5, column 9: trace: no format 'nope'"),
        "{e}"
    );
}
