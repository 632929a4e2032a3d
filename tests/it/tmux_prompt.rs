//! A prompt edited as a shell line, in a real terminal (tmux): Ctrl-W
//! cuts a word, ← and → move, ^H (a Backspace that sends it) erases
//! before the cursor, Ctrl-U cuts to the start; Ctrl-C closes the prompt
//! and not the program.

use crate::common;

use common::tmux::Tmux;
use std::process::Command;

#[test]
fn a_prompt_takes_readline_keys_and_ctrl_c_only_closes_it() {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("skipped: tmux is not installed (.ci/run installs it)");
        return;
    }
    let bin = env!("CARGO_BIN_EXE_tracetui");
    let t = Tmux::start(
        "prompt",
        (120, 40),
        &format!("env NO_COLOR=1 {bin} --fps 20"),
    );
    t.wait_for("PAUSED");
    t.keys(&["/"]);
    t.wait_for("find job, machine, user or group:");
    // Typed as words, one cut with Ctrl-W.
    t.type_text("alpha beta");
    t.keys(&["C-w"]);
    t.type_text("gamma");
    t.wait_for("find job, machine, user or group: alpha gamma▏");
    // Two left, ^H erases the m before the cursor, one right, a ! there.
    t.keys(&["Left", "Left", "C-h", "Right"]);
    t.type_text("!");
    let s = t.wait_for("find job, machine, user or group: alpha gam!▏a");
    assert!(!s.contains("gamh"), "^H typed an h:\n{s}");
    // Ctrl-U cuts what is before the cursor.
    t.keys(&["C-u"]);
    t.wait_for("find job, machine, user or group: ▏a");
    // Ctrl-C closes the prompt; the replay goes on.
    t.keys(&["C-c"]);
    std::thread::sleep(std::time::Duration::from_millis(600));
    let s = t.screen();
    assert!(!s.contains("find job, machine, user or group"), "{s}");
    assert!(
        s.contains("PAUSED"),
        "Ctrl-C in a prompt quit the program:\n{s}"
    );
    t.keys(&["q"]);
}

/// Keys typed while a trace loads are not echoed over the loading line,
/// and Ctrl-C during the load gives the shell back its echo.
#[test]
fn keys_typed_during_a_load_are_not_echoed_and_ctrl_c_restores_echo() {
    if !common::tmux::available() {
        return;
    }
    let bin = env!("CARGO_BIN_EXE_tracetui");
    let dir = common::scratch_dir("typeahead");
    let big = dir.join("big.csv");
    let gen = Command::new(bin)
        .args(["gen", "itp", "--jobs", "600000", "--seed", "1", "--out"])
        .arg(&big)
        .output()
        .unwrap();
    assert!(gen.status.success());
    let t = Tmux::shell("typeahead", (100, 24), "bash --norc --noprofile");
    t.keys(&["clear", "Enter"]);
    t.type_text(&format!("{bin} itp {} --fps 20", big.display()));
    t.keys(&["Enter"]);
    t.wait_for("tracetui: loading itp");
    t.type_text("qwzx");
    let s = t.screen();
    if !s.contains("tracetui: loading itp") || s.contains("PAUSED") {
        eprintln!("skipped: the load ended before the keys were typed");
        t.keys(&["q"]);
        return;
    }
    assert!(
        !s.contains("qwzx"),
        "typed keys echoed over the loading line:\n{s}"
    );
    t.keys(&["C-c"]);
    // The load may end between the look above and the Ctrl-C: then the
    // replay is up and `q` ends it; echo must come back either way.
    let mut quit = false;
    let back = common::eventually(30, || {
        let s = t.screen();
        if s.contains("PAUSED") && !quit {
            quit = true;
            eprintln!("note: the load ended before Ctrl-C; quitting the replay with q");
            t.keys(&["q"]);
            return None;
        }
        (s.lines().filter(|l| l.starts_with("ready$")).count() >= 2).then_some(())
    });
    assert!(
        back.is_some(),
        "the shell's prompt is back:\n{}",
        t.screen()
    );
    // The terminal's own echo flag (readline echoes by itself, so ask stty).
    t.keys(&["clear", "Enter"]);
    t.type_text("stty -a | tr ' ' '\\n' | grep -x -- '-\\?echo' | sed 's/^/fl''ag=/'");
    t.keys(&["Enter"]);
    let s = t.wait_for("flag=");
    assert!(
        s.contains("flag=echo") && !s.contains("flag=-echo"),
        "echo is back:\n{s}"
    );
}
