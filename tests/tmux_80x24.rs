//! The replay in a real 80×24 terminal with NO_COLOR, as over SSH: the
//! hint bar reads `? help` and `q quit`, the first screen's log is there
//! without a key, a live switch's log line shows without another key (also
//! after scrolling the log back and leaving it), a bad time gets an error
//! line, and the last running job can be scrolled to.

mod common;

use common::tmux::{available, Tmux};

#[test]
fn a_session_at_80x24() {
    if !available() {
        return;
    }
    let bin = env!("CARGO_BIN_EXE_tracetui");
    let t = Tmux::start(
        "80x24",
        (80, 24),
        &format!("env NO_COLOR=1 {bin} --fps 20; sleep 5"),
    );
    let s = t.wait_for("PAUSED");
    let last = s.lines().last().unwrap_or_default();
    assert!(last.contains("? help") && last.contains("q quit"), "{s}");
    // The first screen's log, without a key.
    t.wait_for("space plays");
    // A live switch: its log line shows by itself.
    t.keys(&["p"]);
    t.wait_for("scheduling policy");
    t.keys(&["Down", "Enter"]);
    t.wait_for("policy fifo → first-fit");
    // Scrolled back in the log and left with Esc, the log follows again:
    // the next switch's line shows.
    t.keys(&["Tab", "Tab", "PageUp", "Escape"]);
    t.keys(&["p"]);
    t.wait_for("scheduling policy");
    t.keys(&["Down", "Enter"]);
    t.wait_for("policy first-fit → fifo-backfill");
    // A time it cannot read: said in the hint bar and the log.
    t.keys(&["g"]);
    t.keys(&["tomorrow", "Enter"]);
    let s = t.wait_for("go to: ");
    assert!(
        s.lines().last().unwrap_or_default().contains("tomorrow"),
        "{s}"
    );
    // A busy moment; then down the running list to its last row.
    t.keys(&["g"]);
    t.keys(&["day 9 00:00", "Enter"]);
    t.wait_for("more (Tab");
    t.keys(&["Tab"]);
    for _ in 0..40 {
        t.keys(&["Down"]);
    }
    let s = t.wait_for("↑ ");
    assert!(!s.contains("↓ "), "the list ends on screen: {s}");
    t.keys(&["q"]);
}
