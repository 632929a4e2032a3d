//! Every process an external policy starts ends when tracetui ends, however
//! it ends: a run that finishes, a signal to a headless run (which then
//! dies of that signal, status 128+N), the replay's terminal going away,
//! a signal to the replay. Also what left the policy's process group with
//! `setsid`, which a signal to the group never reaches.

use crate::common;

use common::cli::SAMPLE;
use common::tmux::{available, Tmux};
use common::{alive, eventually, scratch_dir};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// A policy in `sh` that writes its pid, and that of a `sleep` it starts
/// in a new session, to `DIR/pids`, then answers; with `hang`, it sleeps
/// instead of answering its first question.
fn leaver(dir: &Path, hang: bool) -> String {
    let pids = dir.join("pids");
    let script = format!(
        r#"echo "$$" >> '{pids}'
setsid sleep 300 &
echo "$!" >> '{pids}'
while IFS= read -r line; do
  case "$line" in
    *'"hello"'*) echo '{{"name":"leaver","walk":"greedy"}}' ;;
    *) {hang} echo '{{}}' ;;
  esac
done
"#,
        pids = pids.display(),
        hang = if hang { "sleep 300;" } else { "" },
    );
    let p = dir.join("leaver.sh");
    std::fs::write(&p, script).unwrap();
    format!("exec:sh {}", p.display())
}

/// The pids written so far.
fn pids(dir: &Path) -> Vec<i32> {
    std::fs::read_to_string(dir.join("pids"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

/// What a leftover process is: its command line, state and parent, for the
/// failure message.
fn described(pid: i32) -> String {
    let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let rest = stat.rfind(')').map_or("", |i| &stat[i + 1..]);
    let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
    format!(
        "{pid} `{}` (state, parent, group: {})",
        cmd.trim(),
        rest.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    )
}

/// Those of `pids` still alive after waiting up to 20 s for all to go,
/// each described (pid, command, state, parent).
fn left_after_a_while(pids: &[i32]) -> Vec<String> {
    let left = || {
        pids.iter()
            .copied()
            .filter(|&p| alive(p))
            .collect::<Vec<_>>()
    };
    // Generous: under a loaded machine (the whole suite on two cores)
    // ending a process group takes a while; only a process left for good
    // fails.
    eventually(20, || Some(()).filter(|_| left().is_empty()));
    left().into_iter().map(described).collect()
}

/// Waits up to 20 s for `n` pids in `dir/pids`.
fn wait_for_pids(dir: &Path, n: usize) -> Vec<i32> {
    eventually(20, || Some(pids(dir)).filter(|p| p.len() >= n)).unwrap_or_else(|| {
        let p = pids(dir);
        panic!("{} pids written: {p:?}", p.len())
    })
}

fn temporaries(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(".tracetui-tmp"))
        .collect()
}

#[test]
fn what_a_policy_started_ends_with_the_run() {
    let dir = scratch_dir("procs-run");
    let policy = leaver(&dir, false);
    let o = Command::new(env!("CARGO_BIN_EXE_tracetui"))
        .args(["sim", "itp", SAMPLE, "--gpus", "128", "--policy", &policy])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // The hello's process and the run's, each with its sleep.
    let p = pids(&dir);
    assert_eq!(p.len(), 4, "{p:?}");
    assert_eq!(left_after_a_while(&p), Vec::<String>::new());
}

/// A headless `sim` under the hanging leaver `policy` (with `more`
/// options), once its processes (the hello's and the run's, each with its
/// sleep) have written their pids: the run, and those pids.
fn thinking_run(dir: &Path, policy: &str, more: &[&str]) -> (std::process::Child, Vec<i32>) {
    let child = Command::new(env!("CARGO_BIN_EXE_tracetui"))
        .args(["sim", "itp", SAMPLE, "--gpus", "128", "--policy", policy])
        .args(["--policy-timeout", "120"])
        .args(more)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    (child, wait_for_pids(dir, 4))
}

/// A headless run stopped by `sig` while its policy is thinking.
fn stopped_headless(sig: i32) {
    let dir = scratch_dir("procs-signal");
    let policy = leaver(&dir, true);
    let out = dir.join("jobs.csv");
    let (mut child, p) = thinking_run(&dir, &policy, &["--jobs-out", out.to_str().unwrap()]);
    // SAFETY: signals the child this test started.
    unsafe {
        libc::kill(child.id() as i32, sig);
    }
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(sig), "{status:?}");
    assert_eq!(left_after_a_while(&p), Vec::<String>::new());
    assert!(!out.exists());
    assert_eq!(temporaries(&dir), Vec::<PathBuf>::new());
}

#[test]
fn a_signal_to_a_headless_run_ends_its_policy_and_then_the_run_dies_of_it() {
    stopped_headless(libc::SIGTERM);
    stopped_headless(libc::SIGINT);
    stopped_headless(libc::SIGHUP);
}

/// Issue 63 item 9: `kill -9` of a run, which no handler hears, still
/// ends its policy's whole tree (the shell, and the `sleep` it started in
/// a new session): each policy runs under a keeper that ends everything
/// below it when tracetui is gone.
#[test]
fn a_run_killed_with_sigkill_leaves_no_policy_process() {
    let dir = scratch_dir("procs-kill9");
    let policy = leaver(&dir, true);
    let (mut child, p) = thinking_run(&dir, &policy, &[]);
    child.kill().unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(libc::SIGKILL), "{status:?}");
    assert_eq!(left_after_a_while(&p), Vec::<String>::new());
}

/// The replay in tmux under the leaver policy, run from `shell`; with
/// `status`, the shell then writes its exit status to `DIR/status`.
fn replay(tag: &str, dir: &Path, shell: &str, status: bool) -> (Tmux, Vec<i32>) {
    let policy = leaver(dir, false);
    let mut cmd = format!(
        "cd {root} && {bin} itp {SAMPLE} --gpus 128 --policy '{policy}'",
        root = env!("CARGO_MANIFEST_DIR"),
        bin = env!("CARGO_BIN_EXE_tracetui"),
    );
    if status {
        cmd += &format!("; echo $? > {}/status", dir.display());
    }
    let t = Tmux::shell(tag, (100, 30), shell);
    t.keys(&[&cmd, "Enter"]);
    t.wait_for("Queue");
    // Playing asks the policy: its run's process starts (the first frame
    // is drawn a moment before the keys are read).
    std::thread::sleep(Duration::from_millis(700));
    t.keys(&["Space"]);
    (t, wait_for_pids(dir, 4))
}

/// The pid of the replay: the tracetui whose parent is the tmux pane's shell.
fn replay_pid(t: &Tmux) -> i32 {
    let shell: i32 = t
        .run(&["display", "-p", "-t", &t.session, "#{pane_pid}"])
        .trim()
        .parse()
        .unwrap();
    let found = eventually(5, || {
        std::fs::read_dir("/proc").unwrap().flatten().find_map(|e| {
            let pid: i32 = e.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let rest = &stat[stat.rfind(')')? + 1..];
            let ppid: i32 = rest.split_whitespace().nth(1)?.parse().ok()?;
            (ppid == shell && stat.contains("(tracetui)")).then_some(pid)
        })
    });
    found.expect("no tracetui under the pane's shell")
}

fn status_written(dir: &Path) -> String {
    let read = || std::fs::read_to_string(dir.join("status")).ok();
    eventually(10, || read().filter(|s| !s.is_empty()))
        .expect("the shell wrote no exit status")
        .trim()
        .to_string()
}

#[test]
fn a_signal_to_the_replay_restores_the_terminal_ends_the_policy_and_exits_128_plus_n() {
    if !available() {
        return;
    }
    let dir = scratch_dir("procs-tui-term");
    let (t, p) = replay("procs-term", &dir, "sh", true);
    let pid = replay_pid(&t);
    // SAFETY: signals the replay this test started.
    unsafe {
        libc::kill(pid, libc::SIGTERM);
    }
    assert_eq!(status_written(&dir), "143");
    assert_eq!(left_after_a_while(&p), Vec::<String>::new());
    assert!(!t.screen().contains("Queue"), "{}", t.screen());
}

#[test]
fn the_terminal_going_away_ends_every_policy_process() {
    if !available() {
        return;
    }
    let dir = scratch_dir("procs-tui-gone");
    let (t, p) = replay("procs-gone", &dir, "sh", false);
    drop(t); // kills the tmux session: the pane's terminal hangs up
    assert_eq!(left_after_a_while(&p), Vec::<String>::new());
}

#[test]
fn ctrl_z_gives_the_terminal_back_and_fg_takes_it_again() {
    if !available() {
        return;
    }
    let dir = scratch_dir("procs-tui-tstp");
    let (t, p) = replay("procs-tstp", &dir, "bash --norc --noprofile", false);
    t.keys(&["C-z"]);
    let shell = t.wait_for("Stopped");
    assert!(!shell.contains("Queue"), "{shell}");
    t.keys(&[
        "stty -a | grep -o ' -icanon\\| icanon' ; echo typed",
        "Enter",
    ]);
    let cooked = t.wait_for("typed");
    assert!(
        cooked.contains(" icanon"),
        "the shell got a cooked terminal:\n{cooked}"
    );
    t.keys(&["fg", "Enter"]);
    let back = t.wait_for("Queue");
    assert!(back.contains("leaver"), "{back}");
    t.keys(&["q"]);
    t.wait_for("ready$");
    assert_eq!(left_after_a_while(&p), Vec::<String>::new());
}

/// Issue 63 (low): a policy that closes its output after the hello but
/// stays alive is seen to at once, not at the timeout: a simple command
/// runs with `exec`, so no shell holds the pipe open behind it.
#[test]
fn a_policy_that_closes_its_output_is_seen_to_at_once() {
    if !common::python() {
        return;
    }
    let dir = scratch_dir("procs-closer");
    let script = dir.join("closer.py");
    std::fs::write(
        &script,
        "import json, os, sys, time\n\
         for line in sys.stdin:\n\
         \x20   m = json.loads(line)\n\
         \x20   if m['type'] == 'hello':\n\
         \x20       print(json.dumps({'name': 'closer', 'walk': 'greedy'}), flush=True)\n\
         \x20   else:\n\
         \x20       os.close(1)\n\
         \x20       time.sleep(300)\n",
    )
    .unwrap();
    let policy = format!("exec:python3 {}", script.display());
    let o = Command::new(env!("CARGO_BIN_EXE_tracetui"))
        .args(["sim", "itp", SAMPLE, "--gpus", "128", "--policy", &policy])
        .args(["--policy-timeout", "60"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(err.contains("closed its output without answering"), "{err}");
}
