//! `e` in the what-if table in a real terminal (tmux), at 80×24 and
//! 120×40, in colour and NO_COLOR (issue 61, item 4): the table is saved
//! whole as CSV beside the screen's text, one row per run under a header,
//! and the flash names the file.

use crate::common;

use common::tmux::Tmux;

fn check(size: (u16, u16), no_color: bool) {
    let bin = env!("CARGO_BIN_EXE_tracetui");
    let env = common::tmux::colour_env(no_color);
    let dir = common::scratch_dir("tmux-export");
    let t = Tmux::start(
        &format!("export-{}x{}-{no_color}", size.0, size.1),
        size,
        &format!(
            "env {env} TRACETUI_EXPORT_DIR={} {bin} --fps 20",
            dir.display()
        ),
    );
    t.wait_for("PAUSED");
    t.keys(&["g"]);
    t.type_text("day 2");
    t.keys(&["Enter"]);
    t.keys(&["w"]);
    // Every run done: "N of N done" under the table.
    let done = |s: &str| {
        s.split(" of ").zip(s.split(" of ").skip(1)).any(|(a, b)| {
            let n: String = a.chars().rev().take_while(char::is_ascii_digit).collect();
            !n.is_empty() && b.starts_with(&format!("{} done", n.chars().rev().collect::<String>()))
        })
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(90);
    while !done(&t.screen()) {
        assert!(
            std::time::Instant::now() < deadline,
            "{size:?}: the runs did not finish:\n{}",
            t.screen()
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    t.keys(&["e"]);
    let s = t.wait_for("what-if.csv");
    let csv = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with("-what-if.csv"))
        .unwrap_or_else(|| panic!("{size:?}: no CSV in {}:\n{s}", dir.display()));
    let text = std::fs::read_to_string(&csv).unwrap();
    assert!(text.starts_with("policy,placement,gpus,"), "{text}");
    assert!(
        text.lines().count() > 2,
        "a row per run under the header:\n{text}"
    );
    t.keys(&["Escape"]);
    t.keys(&["q"]);
}

#[test]
fn e_in_the_what_if_table_writes_a_csv_at_80x24_and_120x40() {
    common::tmux::at_both_sizes(check);
}
