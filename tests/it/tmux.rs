//! The binary in a real terminal (tmux): step, switch policy, open help,
//! quit; then the screen text, and that the terminal came back (the
//! alternate screen left, echo on).

use crate::common;

use common::tmux::Tmux;
use std::path::Path;
use std::process::Command;
use std::thread::sleep;
use std::time::{Duration, Instant};

#[test]
fn a_session_in_a_real_terminal() {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("skipped: tmux is not installed (.ci/run installs it)");
        return;
    }
    let t = Tmux::shell(
        "test",
        (120, 40),
        "env -i PATH=/usr/bin:/bin TERM=xterm-256color HOME=/nonexistent bash --norc --noprofile",
    );
    let bin = env!("CARGO_BIN_EXE_tracetui");
    t.keys(&[&format!("{bin} --fps 20"), "Enter"]);
    let s = t.wait_for("PAUSED");
    assert!(
        s.contains("tracetui · FIFO · sample itp (2000 jobs)"),
        "{s}"
    );
    // The start reads as the first submission's instant.
    assert!(s.contains("day 1 00:03:43"), "{s}");
    // Step one tick: from the start, to the clock's next minute.
    t.keys(&["n"]);
    t.wait_for("day 1 00:04:00");
    // Switch policy: the picker opens on fifo; three down is sjf.
    t.keys(&["p"]);
    t.wait_for("scheduling policy");
    t.keys(&["Down", "Down", "Down", "Enter"]);
    let s = t.wait_for("SJF since");
    assert!(s.contains("order sjf"), "{s}");
    // Help, then close it.
    t.keys(&["?"]);
    t.wait_for("quit, leaving the last frame on screen");
    sleep(Duration::from_millis(300));
    t.keys(&["Escape"]);
    sleep(Duration::from_millis(600));
    assert!(
        !t.screen().contains("leaving the last frame"),
        "help closed"
    );
    t.keys(&["q"]);
    let s = t.wait_for("ready$");
    assert!(!s.contains("PAUSED"), "the alternate screen was left:\n{s}");
    t.keys(&[
        "stty -a | tr ' ' '\\n' | grep -x -e echo -e -echo -e icanon -e -icanon",
        "Enter",
    ]);
    // The output's own line, not the command's echo, which names it too.
    let start = std::time::Instant::now();
    let s = loop {
        let s = t.screen();
        if s.lines().any(|l| matches!(l.trim(), "icanon" | "-icanon")) {
            break s;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "no stty output:\n{s}"
        );
        sleep(Duration::from_millis(100));
    };
    assert!(
        s.lines().any(|l| l.trim() == "echo"),
        "echo is back on:\n{s}"
    );
    assert!(
        s.lines().any(|l| l.trim() == "icanon"),
        "canonical mode is back:\n{s}"
    );
}

/// Whether `pid` is still running (not gone, not a zombie).
fn alive(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| {
            s.rsplit(')')
                .next()
                .is_some_and(|r| !r.trim_start().starts_with('Z'))
        })
        .unwrap_or(false)
}

fn wait_gone(pid: &str) {
    let start = Instant::now();
    while alive(pid) {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "tracetui (pid {pid}) is still running after its terminal went away"
        );
        sleep(Duration::from_millis(100));
    }
}

#[test]
fn the_replay_exits_on_sigterm_and_when_its_terminal_goes_away() {
    if Command::new("tmux").arg("-V").output().is_err() || !Path::new("/proc/self/stat").exists() {
        eprintln!("skipped: needs tmux and /proc");
        return;
    }
    let bin = env!("CARGO_BIN_EXE_tracetui");
    let dir = std::env::temp_dir().join(format!("tracetui-hup-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (k, how) in ["sigterm", "sigint", "sigquit", "hangup"]
        .iter()
        .enumerate()
    {
        let pidfile = dir.join(how);
        let cmd = format!(
            "sh -c 'echo $$ > {}; exec {bin} --fps 20'; echo exited $?; sleep 30",
            pidfile.display()
        );
        let t = Tmux::start(&format!("hup-{k}"), (100, 30), &cmd);
        t.wait_for("PAUSED");
        t.keys(&[" "]); // playing: drawing every frame
        let pid = std::fs::read_to_string(&pidfile)
            .unwrap()
            .trim()
            .to_string();
        assert!(alive(&pid));
        if let Some(sig) = how.strip_prefix("sig") {
            let flag = format!("-{}", sig.to_uppercase());
            Command::new("kill")
                .args([flag.as_str(), &pid])
                .status()
                .unwrap();
            // And it ends of the signal, as a shell or a script expects.
            let code = match sig {
                "term" => 143,
                "int" => 130,
                _ => 131,
            };
            t.wait_for(&format!("exited {code}"));
            // The terminal is restored: main screen, cursor shown.
            let state = t.run(&[
                "display",
                "-p",
                "-t",
                &t.session,
                "#{alternate_on} #{cursor_flag}",
            ]);
            assert_eq!(state.trim(), "0 1", "after {how}: alternate screen, cursor");
        } else {
            t.run(&["kill-session", "-t", &t.session]);
        }
        wait_gone(&pid);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
