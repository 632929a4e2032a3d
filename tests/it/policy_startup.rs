//! Naming an external policy on the command line, as a researcher does:
//! a policy that fails at start-up is the policy's error (exit 1) with its
//! traceback, given up after `--policy-timeout`; a name from config.toml
//! works headless, results label a policy by its name with the command in
//! a field of its own, and `[key=value]` parameters reach the program.

use crate::common;

use common::cli::{stderr, stdout, SAMPLE};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn tracetui_in(config: Option<&Path>, args: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tracetui"));
    c.args(args).current_dir(env!("CARGO_MANIFEST_DIR"));
    // An empty config unless the test gives one: the user's own never counts.
    let empty = common::scratch_dir("noconfig");
    c.env("XDG_CONFIG_HOME", config.unwrap_or(&empty));
    c.output().unwrap()
}

/// A policy keyed by `sign` × run time: sjf, or (with `sign=-1`) the
/// longest job first.
const SIGNED: &str = r#"import sys
sys.path.insert(0, sys.argv[1])
from tracetui_policy import Policy, run

class Signed(Policy):
    name, walk = "signed", "greedy"
    def priority(self, job):
        sign = self.param("sign", 1)
        return sign * (job.runtime if job.runtime is not None else 10**12)

run(Signed())
"#;

fn helper_dir() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("policies")
        .display()
        .to_string()
}

/// A config directory whose config.toml names `signed.py` as `mine`.
fn config_with_mine() -> (PathBuf, String) {
    let dir = common::scratch_dir("config");
    let script = dir.join("signed.py");
    std::fs::write(&script, SIGNED).unwrap();
    let cmd = format!("python3 {} {}", script.display(), helper_dir());
    std::fs::create_dir_all(dir.join("tracetui")).unwrap();
    std::fs::write(
        dir.join("tracetui/config.toml"),
        format!("[policies]\nmine = \"{cmd}\"\n"),
    )
    .unwrap();
    (dir, cmd)
}

/// Asserts the run ended with `code` and said `said` on stderr.
fn refused(o: &Output, code: i32, said: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(code), "{err}");
    assert!(err.contains(said), "expected {said:?} in: {err}");
}

fn json(o: &Output) -> serde_json::Value {
    assert!(o.status.success(), "{}", stderr(o));
    serde_json::from_str(&stdout(o)).unwrap()
}

#[test]
fn a_policy_that_fails_at_start_up_is_its_error_with_its_traceback() {
    if !common::python() {
        return;
    }
    let script = common::write_file("bad_import.py", b"import tracetui_policy_not_here\n");
    let cmd = format!("exec:python3 {}", script.display());
    let policies = format!("fifo,{cmd}");
    let runs: [Vec<&str>; 3] = [
        vec!["sim", "itp", SAMPLE, "--policy", &cmd],
        vec!["compare", "itp", SAMPLE, "--policies", &policies],
        // The replay names its policy before the terminal is taken.
        vec!["itp", SAMPLE, "--policy", &cmd],
    ];
    for args in runs {
        let out = tracetui_in(None, &args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("ModuleNotFoundError"), "{args:?}: {err}");
        assert!(err.contains("policy 'exec:python3 "), "{err}");
        assert!(err.contains("exit status: 1"), "{err}");
        assert!(!err.contains("--help"), "not a usage error: {err}");
    }
    // A misspelt file says so too.
    let out = tracetui_in(
        None,
        &[
            "sim",
            "itp",
            SAMPLE,
            "--policy",
            "exec:python3 no_such_policy.py",
        ],
    );
    refused(&out, 1, "no_such_policy.py");
    assert!(stderr(&out).contains("No such file"), "{}", stderr(&out));
}

#[test]
fn a_silent_or_chatty_policy_is_given_up_after_the_policy_timeout() {
    // The default timeout is 10 s: ending well before it shows the option
    // applies to the hello (the bound is loose: this is no benchmark).
    let start = Instant::now();
    let out = tracetui_in(
        None,
        &[
            "sim",
            "itp",
            SAMPLE,
            "--policy",
            "exec:echo starting >&2; sleep 60",
            "--policy-timeout",
            "1",
        ],
    );
    let took = start.elapsed();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("did not answer within 1.0 s"), "{err}");
    assert!(err.contains("starting"), "its stderr so far: {err}");
    assert!(took < Duration::from_secs(7), "took {took:?}");

    let out = tracetui_in(
        None,
        &["sim", "itp", SAMPLE, "--policy", "exec:echo debug 0"],
    );
    // Read as the hello's answer, whether it came before the hello was
    // sent or after, and whether the program had ended by then.
    refused(&out, 1, "malformed answer to hello");
    refused(&out, 1, "debug 0");
    assert!(
        stderr(&out).contains("stdout is the protocol"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_config_policy_works_headless_by_its_name_with_parameters() {
    if !common::python() {
        return;
    }
    let (config, cmd) = config_with_mine();
    let run = |policy: &str| {
        json(&tracetui_in(
            Some(&config),
            &[
                "sim", "itp", SAMPLE, "--gpus", "64", "--policy", policy, "--format", "json",
            ],
        ))
    };
    let mine = run("mine");
    assert_eq!(mine["policy"], "mine");
    assert_eq!(mine["command"], cmd.as_str());
    // The same figures as the built-in it mirrors; `sign=-1` reverses it.
    let sjf = run("sjf");
    assert!(sjf.get("command").is_none(), "a built-in has no command");
    assert_eq!(mine["jct_s"], sjf["jct_s"]);
    let longest = run("mine[sign=-1]");
    assert_eq!(longest["policy"], "mine[sign=-1]");
    assert!(
        longest["jct_s"]["mean"].as_f64().unwrap() > 2.0 * mine["jct_s"]["mean"].as_f64().unwrap(),
        "{longest} vs {mine}"
    );

    let out = tracetui_in(
        Some(&config),
        &[
            "compare",
            "itp",
            SAMPLE,
            "--gpus",
            "64",
            "--policies",
            "fifo,mine,mine[sign=-1]",
            "--format",
            "csv",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let mut rows = csv::Reader::from_reader(text.as_bytes());
    let header = rows.headers().unwrap().clone();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let rows: Vec<csv::StringRecord> = rows.records().map(Result::unwrap).collect();
    let labels: Vec<&str> = rows.iter().map(|r| &r[col("policy")]).collect();
    assert_eq!(labels, ["fifo", "mine", "mine[sign=-1]"]);
    let commands: Vec<&str> = rows.iter().map(|r| &r[col("command")]).collect();
    assert_eq!(commands, ["", cmd.as_str(), cmd.as_str()]);

    // In a schedule too; and an unknown name lists the config's.
    let out = tracetui_in(
        Some(&config),
        &[
            "sim",
            "itp",
            SAMPLE,
            "--gpus",
            "64",
            "--policy-schedule",
            "0:fifo,2d:mine[sign=2]",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("[sign=2]"), "{}", stdout(&out));
    let out = tracetui_in(Some(&config), &["sim", "itp", SAMPLE, "--policy", "yours"]);
    refused(&out, 2, "from config.toml: mine");
    let out = tracetui_in(
        Some(&config),
        &["sim", "itp", SAMPLE, "--policy", "fifo[x=1]"],
    );
    refused(&out, 2, "takes no [key=value] parameters");
}

#[test]
fn two_programs_that_give_one_name_are_told_apart() {
    if !common::python() {
        return;
    }
    let (config, _) = config_with_mine();
    let script = config.join("signed.py");
    let a = format!("exec:python3 {} {}", script.display(), helper_dir());
    let b = format!("exec:python3 {}  {}", script.display(), helper_dir());
    let out = tracetui_in(
        None,
        &[
            "compare",
            "itp",
            SAMPLE,
            "--gpus",
            "64",
            "--policies",
            &format!("{a},{b}"),
            "--format",
            "json",
        ],
    );
    let v = json(&out);
    let labels: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["policy"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["signed", "signed#2"]);
}

/// A shell policy named `tag` that answers its hello, its snapshot and
/// `points` scheduling points, then does `then` (`exit 4`, `sleep 30`).
fn later(tag: &str, points: usize, then: &str) -> String {
    let dir = common::scratch_dir(tag);
    let script = dir.join("policy.sh");
    let answers = "read line; echo '{}'\n".repeat(points);
    std::fs::write(
        &script,
        format!(
            "read line\necho '{{\"name\": \"{tag}\", \"walk\": \"greedy\"}}'\n\
             read line; echo '{{}}'\n{answers}{then}\n"
        ),
    )
    .unwrap();
    format!("exec:sh {}", script.display())
}

#[test]
fn hostile_policies_end_the_run_soon_after_the_timeout_naming_the_policy() {
    // Dies, writes garbage, stays silent — at start-up and later on. Each
    // run ends with exit 1, the policy named, soon after --policy-timeout
    // (the bound is loose: this is no benchmark; the closing note has the
    // measured times).
    let cases = [
        ("exec:sh -c 'exit 3'".to_string(), "exit 3"),
        ("exec:sh -c 'echo garbage; sleep 30'".to_string(), "garbage"),
        ("exec:sleep 30".to_string(), "did not answer within 2.0 s"),
        (later("dieslater", 3, "exit 4"), "dieslater"),
        (
            later("silentlater", 3, "sleep 30"),
            "did not answer within 2.0 s",
        ),
        (
            later("garbagelater", 3, "echo nonsense; sleep 30"),
            "nonsense",
        ),
    ];
    for (policy, said) in &cases {
        let start = Instant::now();
        let args = [
            "sim",
            "itp",
            SAMPLE,
            "--policy",
            policy,
            "--policy-timeout",
            "2",
        ];
        let out = tracetui_in(None, &args);
        let took = start.elapsed();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{policy}: {err}");
        assert!(err.contains(said), "{policy}: {err}");
        let named = format!("policy '{policy}'");
        assert!(err.contains(&named), "{policy}: the policy is named: {err}");
        assert!(took < Duration::from_secs(8), "{policy}: took {took:?}");
    }
}
