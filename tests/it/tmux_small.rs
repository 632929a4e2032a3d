//! Below the smallest screen (80×24) only a notice is drawn, so no key acts
//! unseen — `?` opened help and `n` stepped the replay behind it — while
//! `q` still quits (issue 61 items 6 and 12).

use crate::common;

use common::tmux::Tmux;

#[test]
fn keys_below_the_smallest_screen_do_nothing_unseen() {
    if !common::tmux::available() {
        return;
    }
    let bin = env!("CARGO_BIN_EXE_tracetui");
    let t = Tmux::start(
        "small",
        (60, 20),
        &format!("env NO_COLOR=1 {bin} --fps 20; echo tracetui-exited; sleep 30"),
    );
    t.wait_for("terminal too small");
    t.keys(&["n", "n", "n", "?"]);
    std::thread::sleep(std::time::Duration::from_millis(500));
    t.run(&["resize-window", "-t", &t.session, "-x", "80", "-y", "24"]);
    let screen = t.wait_for("PAUSED");
    assert!(!screen.contains("terminal too small"), "{screen}");
    // No help, and the clock where the sample starts (no step taken; `n`
    // would have moved it a minute each).
    assert!(
        !screen.contains("esc or ? closes"),
        "help opened unseen: {screen}"
    );
    let first = screen.lines().next().unwrap_or_default().to_string();
    assert!(first.contains("day 1 00:03:43"), "stepped unseen: {first}");
    // Small again: q still quits.
    t.run(&["resize-window", "-t", &t.session, "-x", "60", "-y", "20"]);
    t.wait_for("terminal too small");
    t.keys(&["q"]);
    t.wait_for_within("tracetui-exited", 10);
}
