//! An external policy in the replay, in a real terminal at 80×24: named in
//! config.toml's `[policies]`, offered by that name in the picker, switched
//! to live, forked in the what-if table, its stderr in the log; stepping
//! back and forward comes back to the same figures; quitting leaves no
//! policy process behind.

use crate::common;

use common::tmux::{available, Tmux};
use std::process::Command;

const POLICY: &str = r#"import sys
sys.path.insert(0, sys.argv[1])
from tracetui_policy import Policy, run

class Loud(Policy):
    name, walk = "loud-sjf", "greedy"
    def priority(self, job):
        print("keyed " + job.id[:6], file=sys.stderr, flush=True)
        return job.runtime if job.runtime is not None else 2**63 - 1

run(Loud())
"#;

fn python() -> bool {
    let ok = Command::new("python3").arg("-V").output().is_ok();
    if !ok {
        eprintln!("skipped: python3 is not on PATH");
    }
    ok
}

/// A what-if row's figures: the words after the policy's name.
fn figures_of(screen: &str, policy: &str) -> Vec<String> {
    let row = screen
        .lines()
        .find(|l| {
            !l.contains("Queue")
                && l.split_whitespace()
                    .any(|w| w.trim_start_matches(['▸', '●']) == policy)
        })
        .unwrap_or_else(|| panic!("no row for {policy}"));
    row.split_whitespace()
        .skip_while(|w| w.trim_start_matches(['▸', '●']) != policy)
        .skip(1)
        .take(6)
        .map(str::to_string)
        .collect()
}

/// The "done N" figure of the metrics line.
fn done(screen: &str) -> String {
    let at = screen.find("done ").expect("a done figure");
    screen[at..]
        .split_whitespace()
        .take(2)
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn an_external_policy_live_in_the_replay() {
    if !available() || !python() {
        return;
    }
    let dir = common::scratch_dir("tmux-exec");
    let policies = concat!(env!("CARGO_MANIFEST_DIR"), "/policies");
    std::fs::write(dir.join("loud.py"), POLICY).unwrap();
    std::fs::create_dir_all(dir.join("tracetui")).unwrap();
    std::fs::write(
        dir.join("tracetui/config.toml"),
        format!(
            "[policies]\nmy-sjf = \"python3 {} {policies}\"\n",
            dir.join("loud.py").display()
        ),
    )
    .unwrap();
    let shell = format!(
        "env -i PATH=/usr/local/bin:/usr/bin:/bin:{} TERM=xterm-256color HOME=/nonexistent \
         XDG_CONFIG_HOME={} NO_COLOR=1 bash --norc --noprofile",
        std::env::var("PATH").unwrap_or_default(),
        dir.display()
    );
    let t = Tmux::shell("exec", (80, 24), &shell);
    let bin = env!("CARGO_BIN_EXE_tracetui");
    t.keys(&[
        &format!("cd {} && {bin} --fps 20", env!("CARGO_MANIFEST_DIR")),
        "Enter",
    ]);
    t.wait_for("PAUSED");
    t.keys(&["g"]);
    t.keys(&["day 2 10:00", "Enter"]);
    t.wait_for("day 2 10:00");
    // The picker offers it by its config name, after the built-ins (the
    // cursor starts on fifo, the second).
    t.keys(&["p"]);
    let s = t.wait_for("my-sjf");
    assert!(s.contains("external: python3"), "{s}");
    t.keys(&vec!["Down"; tracetui::sim::Policy::built_in().len() - 1]);
    t.keys(&["Enter"]);
    let s = t.wait_for("MY-SJF · sample itp");
    assert!(s.contains("· my-sjf ·"), "the queue's order: {s}");
    // The what-if fork runs it too (its own process): the same figures as
    // the built-in sjf it mirrors.
    t.keys(&["w"]);
    // (The table says the later of two rows with the very same results is
    // the earlier's, rather than repeating its figures.)
    let s = all_done(&t);
    let (mine, sjf) = (figures_of(&s, "my-sjf"), figures_of(&s, "sjf"));
    let said = |row: &[String], other: &str| row.join(" ").starts_with(&format!("= {other}:"));
    assert!(said(&mine, "sjf") || said(&sjf, "my-sjf"), "{s}");
    t.keys(&["Escape"]);
    // Six hours on: jobs arrive, the policy keys them and says so on stderr.
    t.keys(&["g"]);
    t.keys(&["+6h", "Enter"]);
    t.wait_for("day 2 16:00");
    t.keys(&["n"]);
    // Its stderr line, "W exec:python3 …loud.py …: keyed 3c1661", wraps
    // at 80 columns: the end of it is what shows.
    t.wait_for(": keyed ");
    // Back one tick and forward again: the same figures.
    let before = done(&t.wait_for("done "));
    t.keys(&["b"]);
    t.wait_for("day 2 16:00");
    t.keys(&["n"]);
    let s = t.wait_for("day 2 16:01");
    assert_eq!(done(&s), before, "{s}");
    t.keys(&["q"]);
    t.wait_for("ready$");
    let left = Command::new("pgrep").args(["-f", "loud.py"]).output();
    if let Ok(o) = left {
        assert!(
            String::from_utf8_lossy(&o.stdout).trim().is_empty(),
            "a policy process was left behind"
        );
    }
}

/// A lesson played under a schedule of one's own that switches to an
/// external policy: the header names the lesson and says whose schedule,
/// and the switch happens on time.
#[test]
fn a_lesson_under_a_schedule_with_an_external_policy() {
    if !available() || !python() {
        return;
    }
    let bin = env!("CARGO_BIN_EXE_tracetui");
    let t = Tmux::start(
        "exec-lesson",
        (80, 24),
        &format!(
            "cd {} && {bin} --fps 20 lesson hol --policy-schedule \
             'start:fifo,2h:exec:python3 policies/sjf.py'",
            env!("CARGO_MANIFEST_DIR")
        ),
    );
    let s = t.wait_for("PAUSED");
    assert!(s.contains("your schedule"), "{s}");
    assert!(s.contains("Under your schedule"), "{s}");
    t.keys(&["g"]);
    t.keys(&["+3h", "Enter"]);
    let s = t.wait_for("SJF-EXT · ");
    assert!(s.contains("sjf-ext ·"), "{s}");
}

/// A policy that takes two seconds over each answer: the replay stands at
/// the scheduling point, says it waits, and keys still work meanwhile.
#[test]
fn the_replay_answers_keys_while_a_slow_policy_decides() {
    if !available() || !python() {
        return;
    }
    let dir = common::scratch_dir("tmux-slow");
    let policies = concat!(env!("CARGO_MANIFEST_DIR"), "/policies");
    let script = dir.join("slow.py");
    std::fs::write(
        &script,
        format!(
            "import sys, time\nsys.path.insert(0, {policies:?})\n\
             from tracetui_policy import Policy, run\n\
             class Slow(Policy):\n    name, walk = 'slow', 'greedy'\n\
             \x20   def priority(self, job):\n        time.sleep(2)\n        return 0\n\
             run(Slow())\n"
        ),
    )
    .unwrap();
    let bin = env!("CARGO_BIN_EXE_tracetui");
    let t = Tmux::start(
        "exec-slow",
        (80, 24),
        &format!(
            "cd {} && {bin} --fps 20 itp sample-traces/itp/sample.csv --policy 'exec:python3 {}'",
            env!("CARGO_MANIFEST_DIR"),
            script.display()
        ),
    );
    t.wait_for("PAUSED");
    // The first job arrives within the first minute of the sample.
    t.keys(&["n"]);
    t.wait_for("WAIT");
    t.keys(&["?"]);
    t.wait_for("step one tick");
    t.keys(&["Escape"]);
    t.wait_for("PAUSED");
}

/// The what-if table's screen once every row's run is done ("N of N done").
fn all_done(t: &Tmux) -> String {
    let start = std::time::Instant::now();
    loop {
        let s = t.screen();
        let done = s.split_once(" done").and_then(|(head, _)| {
            let words: Vec<&str> = head
                .split_whitespace()
                .rev()
                .take(3)
                .map(|w| w.trim_matches(|c: char| !c.is_ascii_alphanumeric()))
                .collect();
            match words.as_slice() {
                [n, "of", k] => Some(n == k),
                _ => None,
            }
        });
        if done == Some(true) {
            return s;
        }
        assert!(
            start.elapsed().as_secs() < 10,
            "waited for every run; the screen:\n{s}"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}
