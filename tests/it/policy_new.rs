//! `tracetui policy new NAME`, as a researcher with only the binary uses
//! it: a runnable policy and the helper beside it, run from another
//! directory, never overwritten; and in a real terminal, a new policy edited
//! and switched to live in the replay.

use crate::common;

use common::cli::{stderr, stdout, SAMPLE};
use common::tmux::{available, Tmux};
use std::path::Path;
use std::process::{Command, Output};

fn tracetui_at(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tracetui"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn a_new_policy_runs_from_anywhere_and_nothing_is_overwritten() {
    if !common::python() {
        return;
    }
    let dir = common::scratch_dir("policy-new");
    let out = tracetui_at(&dir, &["policy", "new", "mine"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("mine = \"python3 "),
        "{}",
        stdout(&out)
    );
    let script = dir.join("mine.py");
    let helper = std::fs::read(dir.join("tracetui_policy.py")).unwrap();
    assert_eq!(
        helper,
        std::fs::read(repo().join("policies/tracetui_policy.py")).unwrap(),
        "the embedded helper is the repository's"
    );
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&script).unwrap().permissions().mode();
    assert_eq!(mode & 0o111, 0o111, "runnable as ./mine.py: {mode:o}");

    // Run from the repository, not beside it: the helper is still found.
    let sim = |policy: &str| -> serde_json::Value {
        let o = tracetui_at(
            repo(),
            &[
                "sim", "itp", SAMPLE, "--gpus", "64", "--policy", policy, "--format", "json",
            ],
        );
        assert!(o.status.success(), "{policy}: {}", stderr(&o));
        serde_json::from_str(&stdout(&o)).unwrap()
    };
    let plain = sim(&format!("exec:python3 {}", script.display()));
    assert_eq!(plain["policy"], "mine");
    let aged = sim(&format!("exec:{}[age_weight=1000]", script.display()));
    assert_eq!(aged["policy"], "mine[age_weight=1000]");
    assert_ne!(
        plain["jct_s"], aged["jct_s"],
        "the parameter changes the order"
    );

    // A second `new` leaves the edited file as it is.
    std::fs::write(&script, "# mine, edited\n").unwrap();
    let again = tracetui_at(&dir, &["policy", "new", "mine.py"]);
    assert_eq!(again.status.code(), Some(1));
    assert!(
        stderr(&again).contains("never overwritten"),
        "{}",
        stderr(&again)
    );
    assert_eq!(
        std::fs::read_to_string(&script).unwrap(),
        "# mine, edited\n"
    );

    // A helper of another version beside it is kept, and said to differ.
    std::fs::write(dir.join("tracetui_policy.py"), "# an old helper\n").unwrap();
    let other = tracetui_at(&dir, &["policy", "new", "theirs", "--lang", "python"]);
    assert!(other.status.success(), "{}", stderr(&other));
    assert!(stdout(&other).contains("differs"), "{}", stdout(&other));
    assert_eq!(
        std::fs::read_to_string(dir.join("tracetui_policy.py")).unwrap(),
        "# an old helper\n"
    );
    for bad in ["1st", "my policy", "../x y"] {
        let o = tracetui_at(&dir, &["policy", "new", bad]);
        assert_eq!(o.status.code(), Some(1), "{bad}");
        assert!(stderr(&o).contains("a policy's name is"), "{}", stderr(&o));
    }
}

#[test]
fn a_new_policy_edited_and_switched_to_live_in_the_replay() {
    if !available() || !common::python() {
        return;
    }
    let dir = common::scratch_dir("policy-new-tmux");
    let shell = format!(
        "env -i PATH={}:/usr/local/bin:/usr/bin:/bin TERM=xterm-256color HOME=/nonexistent \
         XDG_CONFIG_HOME={} NO_COLOR=1 bash --norc --noprofile",
        Path::new(env!("CARGO_BIN_EXE_tracetui"))
            .parent()
            .unwrap()
            .display(),
        dir.display()
    );
    let t = Tmux::shell("policy-new", (80, 24), &shell);
    t.keys(&[&format!("cd {}", dir.display()), "Enter"]);
    t.keys(&["tracetui policy new mine", "Enter"]);
    t.wait_for("[policies]");
    // One line edited, as in an editor: what it says of itself.
    t.keys(&[
        "sed -i 's/describe = .*/describe = \"edited by hand\"/' mine.py",
        "Enter",
    ]);
    std::fs::create_dir_all(dir.join("tracetui")).unwrap();
    std::fs::write(
        dir.join("tracetui/config.toml"),
        format!(
            "[policies]\nmine = \"python3 {}\"\n",
            dir.join("mine.py").display()
        ),
    )
    .unwrap();
    t.keys(&["clear; tracetui --fps 20", "Enter"]);
    t.wait_for("PAUSED");
    t.keys(&["g"]);
    t.keys(&["day 2 10:00", "Enter"]);
    t.wait_for("day 2 10:00");
    // The picker offers it by its config name, after the built-ins (the
    // cursor starts on fifo, the second).
    t.keys(&["p"]);
    t.wait_for("external: python3");
    t.keys(&vec!["Down"; tracetui::sim::Policy::built_in().len() - 1]);
    // Chosen, it is described in full: the edited line is what runs.
    t.wait_for("edited by hand");
    t.keys(&["Enter"]);
    let s = t.wait_for("MINE · sample itp");
    assert!(s.contains("mine ·"), "the queue's order: {s}");
    t.keys(&["n"]);
    t.wait_for("day 2 10:01");
    t.keys(&["q"]);
    t.wait_for("ready$");
}

/// The commands a `policy new` prints after "Try it", one per line (`\`
/// continuations joined).
fn tried(printed: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let body = printed.split("Try it").nth(1).unwrap();
    for line in body.lines().skip(1) {
        let line = line.trim();
        if line.is_empty() {
            break;
        }
        match line.strip_suffix('\\') {
            Some(l) => current.push_str(l),
            None => {
                current.push_str(line);
                out.push(std::mem::take(&mut current));
            }
        }
    }
    out
}

/// Runs `lines` in `sh` in `dir`, with this tracetui first on PATH.
fn run_lines(dir: &Path, lines: &[String]) -> Output {
    let bin = Path::new(env!("CARGO_BIN_EXE_tracetui")).parent().unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    Command::new("sh")
        .args(["-ec", &lines.join("\n")])
        .env("PATH", path)
        .current_dir(dir)
        .output()
        .unwrap()
}

/// Issue 60, item 7: the hints are commands that work as printed, and a
/// policy's stderr is its own output, not tracetui's warnings.
#[test]
fn the_printed_hints_run_as_written() {
    if !common::python() {
        return;
    }
    let dir = common::scratch_dir("policy-new-hints");
    let out = tracetui_at(&dir, &["policy", "new", "mine"]);
    let lines = tried(&stdout(&out));
    assert_eq!(lines.len(), 4, "{lines:?}");
    assert!(lines[0].starts_with("tracetui gen itp "), "{lines:?}");
    let o = run_lines(&dir, &lines);
    assert!(o.status.success(), "{lines:?}: {}", stderr(&o));
    assert!(stdout(&o).contains("policy    mine"), "{}", stdout(&o));
    // A debug line on stderr is shown as the policy's own.
    let script = dir.join("mine.py");
    let text = std::fs::read_to_string(&script).unwrap().replace(
        "        return job.milli",
        "        print('keyed', job.id, file=sys.stderr)\n        return job.milli",
    );
    std::fs::write(&script, text).unwrap();
    let o = run_lines(&dir, &lines[1..2]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.lines().any(|l| l.starts_with("mine: keyed ")), "{err}");
    assert!(!err.contains("warning: mine"), "{err}");
}

/// `policy new --elastic`: a protocol-2 policy that resizes and drops,
/// run as its printed hints say on ElasticFlow's own tables and spec (the
/// artifact's files from ../shared, where the hints clone it).
#[test]
fn a_new_elastic_policy_runs_as_written_and_resizes_and_drops() {
    if !common::python() {
        return;
    }
    let Some(shared) = common::real_traces() else {
        return;
    };
    let dir = common::scratch_dir("policy-new-elastic");
    let out = tracetui_at(&dir, &["policy", "new", "--elastic", "mine"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let lines = tried(&stdout(&out));
    assert!(lines[0].starts_with("git clone "), "{lines:?}");
    // The clone, from the artifact's files here.
    let sched = dir.join("ElasticFlow/ElasticFlow/scheduler");
    std::fs::create_dir_all(&sched).unwrap();
    let artifact = shared.join("elasticflow-artifact");
    for d in ["cluster_specs", "throughputs_A100"] {
        std::os::unix::fs::symlink(
            std::fs::canonicalize(artifact.join(d)).unwrap(),
            sched.join(d),
        )
        .unwrap();
    }
    let o = run_lines(&dir, &lines[1..4]);
    assert!(o.status.success(), "{lines:?}: {}", stderr(&o));
    let table = stdout(&o);
    let count = |what: &str| -> u64 {
        let line = table.lines().find(|l| l.starts_with(what)).unwrap_or("");
        line.split_whitespace()
            .find_map(|w| w.parse().ok())
            .unwrap_or(0)
    };
    assert!(count("resized") > 0, "{table}");
    assert!(table.contains("dropped "), "{table}");
    assert!(
        stderr(&o).contains("200 of 200 jobs run from throughput tables"),
        "{}",
        stderr(&o)
    );
    // The comparison line runs too, beside the built-in elastic policies.
    let o = run_lines(
        &dir,
        &[lines[1].clone(), lines[2].clone(), lines[4].clone()],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("mine"), "{}", stdout(&o));
}
