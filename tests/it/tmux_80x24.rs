//! The replay in a real 80×24 terminal with NO_COLOR, as over SSH: the
//! hint bar reads `? help` and `q quit`, the first screen's log is there
//! without a key, a live switch's log line shows without another key (also
//! after scrolling the log back and leaving it), a bad time gets an error
//! line, and the last running job can be scrolled to.

use crate::common;

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

/// Reads a side's first figures line (`done N · JCT …`) from the screen:
/// the left pane's or the right one's.
fn figures_of(screen: &str, right: bool) -> String {
    let line = screen
        .lines()
        .find(|l| l.contains("│done "))
        .unwrap_or_else(|| panic!("no figures line:\n{screen}"));
    let panes: Vec<&str> = line.split('│').filter(|p| p.starts_with("done ")).collect();
    assert_eq!(panes.len(), 2, "both sides' figures:\n{screen}");
    panes[usize::from(right)].trim().to_string()
}

/// The A/B split in a real 80×24 terminal with NO_COLOR: `A`, pick SJF,
/// go to day 12 and step both sides; both headline figures read from the
/// screen, different, and stepping back moves both.
#[test]
fn a_split_at_80x24() {
    if !available() {
        return;
    }
    let bin = env!("CARGO_BIN_EXE_tracetui");
    let t = Tmux::start(
        "split",
        (80, 24),
        &format!("env NO_COLOR=1 {bin} --fps 20; sleep 5"),
    );
    t.wait_for("PAUSED");
    t.keys(&["A"]);
    t.wait_for("B's policy");
    // The picker starts on the first other policy (first-fit); sjf is two down.
    t.keys(&["Down", "Down", "Enter"]);
    t.wait_for("B · sjf since");
    t.keys(&["g"]);
    t.keys(&["day 12 09:30", "Enter"]);
    let s = t.wait_for("day 12 09:30:00");
    let (a, b) = (figures_of(&s, false), figures_of(&s, true));
    assert!(a.starts_with("done 679 "), "A (fifo): {a}\n{s}");
    assert!(b.starts_with("done 689 "), "B (sjf): {b}\n{s}");
    assert!(s.contains("A · fifo (live)") && s.contains("queue head (sjf order)"));
    // A step: an hour (the tick up three times from a minute).
    t.keys(&["]", "]", "]", "n"]);
    let s = t.wait_for("day 12 10:30:00");
    let (a2, b2) = (figures_of(&s, false), figures_of(&s, true));
    assert_ne!((a2.clone(), b2.clone()), (a.clone(), b.clone()), "{s}");
    // And back: both sides return to what they showed.
    t.keys(&["b"]);
    let s = t.wait_for("day 12 09:30:00");
    assert_eq!((figures_of(&s, false), figures_of(&s, true)), (a, b), "{s}");
    t.keys(&["A"]);
    t.wait_for("one replay again");
    t.keys(&["q"]);
}
