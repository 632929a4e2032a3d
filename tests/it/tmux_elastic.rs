//! An elastic replay in a real 80×24 terminal with NO_COLOR: a job that
//! holds all four GPUs shrinks to two when a job due sooner arrives, and
//! the grid, the running list and the log say so.

use crate::common;

use common::tmux::{available, Tmux};

#[test]
fn a_job_shrinking_shows_in_the_grid_and_the_log_at_80x24() {
    if !available() {
        return;
    }
    // a asks for 1 GPU but gets all 4; b (due first, at most 2) arrives at 10.
    let (trace, tables) = common::two_elastic_jobs("tmux-elastic");
    let bin = env!("CARGO_BIN_EXE_tracetui");
    let t = Tmux::start(
        "elastic-80x24",
        (80, 24),
        &format!(
            "env NO_COLOR=1 {bin} itp {} --gpus 4 --gpus-per-node 4 --throughputs {} \
             --policy edf-elastic --fps 20; sleep 5",
            trace.display(),
            tables.display()
        ),
    );
    t.wait_for("PAUSED");
    // The start reads 00:00:00; the first arrival's instant: a runs on
    // all four GPUs, b waits for the next round.
    t.wait_for("day 1 00:00:00");
    t.keys(&["g"]);
    t.type_text("0");
    t.keys(&["Enter"]);
    let s = t.wait_for("4/4 busy");
    assert!(
        s.lines().any(|l| l.contains("a ") && l.contains(" 4 ")),
        "a holds every GPU at first:\n{s}"
    );
    // The next step (to the minute): the round at 60 s shrinks a and
    // starts b.
    t.keys(&["n"]);
    let s = t.wait_for("shrank a");
    assert!(s.contains("shrank a · 4→2 GPUs"), "{s}");
    assert!(s.contains("started b · 2 GPUs"), "{s}");
    assert!(s.contains("4/4 busy"), "a's two and b's two:\n{s}");
    assert!(
        s.lines().any(|l| l.contains("a ") && l.contains(" 2 ")),
        "the running list shows a on 2 GPUs:\n{s}"
    );
    t.keys(&["q"]);
}
