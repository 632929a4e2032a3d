//! The openb replay in a real 80×24 terminal with NO_COLOR: GPUs part
//! filled by shares, the cluster's fragmentation in the metrics strip, and
//! `o` to `fgd` moving where the next pods land (the same replay without
//! the switch, side by side). Reads the real trace from ../shared/traces.

use crate::common;

use common::tmux::{available, Tmux};

/// The grid's rows (the left panel's inside) of `screen`.
fn grid(screen: &str) -> Vec<String> {
    screen
        .lines()
        .skip(2)
        .take(14)
        .map(|l| l.chars().skip(1).take(41).collect())
        .collect()
}

/// The screen at day 140 of a fifo replay, switched to `fgd` at day 139 or not.
fn at_day_140(pods: &str, to_fgd: bool) -> String {
    let bin = env!("CARGO_BIN_EXE_tracetui");
    let tag = if to_fgd { "openb-fgd" } else { "openb-stay" };
    let t = Tmux::start(
        tag,
        (80, 24),
        &format!("env NO_COLOR=1 {bin} openb {pods} --policy fifo; sleep 5"),
    );
    t.wait_for("PAUSED");
    let go = |when: &str| {
        t.keys(&["g"]);
        t.type_text(when);
        t.keys(&["Enter"]);
        t.wait_for(&format!("at {when}"));
    };
    go("day 139 00:00:00");
    if to_fgd {
        // consolidate → pack → spread → random → … → fgd.
        for _ in 0..8 {
            t.keys(&["o"]);
        }
        t.wait_for("placement fgd");
    }
    go("day 140 00:00:00");
    let s = t.screen();
    t.keys(&["q"]);
    s
}

#[test]
fn shares_fragmentation_and_o_to_fgd_in_the_openb_replay() {
    let Some(dir) = common::real_traces() else {
        return;
    };
    let pods = dir.join("openb/openb_pod_list_default.csv");
    if !pods.is_file() || !available() {
        eprintln!("skipped: no openb trace or no tmux");
        return;
    }
    let pods = pods.to_str().unwrap();
    let stay = at_day_140(pods, false);
    // Shares show as part-filled GPUs; the strip says the fragmentation.
    let cells: String = grid(&stay).concat();
    assert!(cells.contains(['░', '▒', '▓']), "{stay}");
    assert!(stay.contains("frag ") && stay.contains('%'), "{stay}");
    let fgd = at_day_140(pods, true);
    assert!(fgd.contains("frag "), "{fgd}");
    assert_ne!(
        grid(&stay),
        grid(&fgd),
        "fgd placed the day's pods elsewhere:\n{stay}\n{fgd}"
    );
}
