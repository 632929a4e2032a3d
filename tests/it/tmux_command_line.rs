//! `:` in a real terminal (tmux) at 80×24 and 120×40, in colour and
//! NO_COLOR (issue 61, item 5): Tab completes `:id` to `:idle`, the
//! suggestions show as typed, and `:idle`'s count and list are what
//! `stats --at` counts at the same moment.

use crate::common;

use common::tmux::Tmux;

fn check(size: (u16, u16), no_color: bool) {
    let bin = env!("CARGO_BIN_EXE_tracetui");
    let env = common::tmux::colour_env(no_color);
    let t = Tmux::start(
        &format!("colon-{}x{}-{no_color}", size.0, size.1),
        size,
        &format!("env {env} {bin} pai {} --fps 20", common::cli::PAI),
    );
    t.wait_for("PAUSED");
    t.keys(&[":"]);
    t.type_text("goto day 1 12:00");
    t.keys(&["Enter"]);
    t.wait_for("at Mon 12:00:00");
    t.keys(&[":"]);
    t.type_text("id");
    t.wait_for("tab: idle");
    t.keys(&["Tab"]);
    t.wait_for(":idle▏");
    t.keys(&["Enter"]);
    let n = common::cli::machines_at("day 1 12:00", None).0;
    let s = t.wait_for(&format!("{n} of 16 machines idle at Mon 12:00:00"));
    assert!(
        s.contains(&format!("of {n} idle machines")),
        "{size:?} the list's foot does not count {n}:\n{s}"
    );
    // The suggestions for a policy, from the replay's policies.
    t.keys(&[":"]);
    t.type_text("policy s");
    t.wait_for("tab: sgf sjf srtf");
    t.keys(&["C-u"]);
    t.type_text("q");
    t.keys(&["Enter"]);
    for _ in 0..20 {
        if !t.screen().contains("PAUSED") {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    panic!(":q did not quit:\n{}", t.screen());
}

#[test]
fn colon_idle_counts_what_stats_counts_at_80x24_and_120x40() {
    common::tmux::at_both_sizes(check);
}
