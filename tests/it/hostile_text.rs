//! Text that could drive a terminal — in trace fields, paths, config and theme
//! files — never reaches it raw; ids stay exact in the model.

use crate::common;

use common::cli::{stderr, stdout};
use std::process::Command;

const OSC_TITLE: &str = "evil\x1b]0;pwned\x07";

fn run(args: &[&std::ffi::OsStr], env: &[(&str, &std::path::Path)]) -> std::process::Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tracetui"));
    c.args(args).current_dir(env!("CARGO_MANIFEST_DIR"));
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

fn os(s: &str) -> &std::ffi::OsStr {
    std::ffi::OsStr::new(s)
}

/// No escape, bell or other control byte except newline and tab.
fn assert_clean(what: &str, bytes: &[u8]) {
    let bad: Vec<u8> = bytes
        .iter()
        .copied()
        .filter(|&b| (b < 0x20 && b != b'\n' && b != b'\t') || b == 0x7f)
        .collect();
    assert!(
        bad.is_empty(),
        "{what} carries raw control bytes {bad:?}: {}",
        String::from_utf8_lossy(bytes)
    );
}

#[test]
fn ids_that_differ_by_a_control_character_stay_two_exact_jobs() {
    let f = common::write_file(
        "dup.csv",
        b"job_id,submission_time,duration,num_gpu\ndup,0,100,1\ndup\x07,5,50,2\n",
    );
    let path = f.as_os_str();
    let sim = run(&[os("stats"), os("itp"), path], &[]);
    assert!(sim.status.success(), "{}", stderr(&sim));
    let out = stdout(&sim);
    assert!(
        out.lines()
            .any(|l| l.starts_with("jobs") && l.ends_with(" 2 (2 GPU jobs)")),
        "{out}"
    );
    // The real id finds the second job, shown visibly escaped.
    let job = run(&[os("job"), os("itp"), path, os("dup\x07")], &[]);
    assert!(job.status.success(), "{}", stderr(&job));
    let text = stdout(&job);
    assert!(text.contains("dup\\x07"), "{text}");
    assert!(text.contains("duration               50"), "{text}");
    assert_clean("job's text", &job.stdout);
    // JSON keeps the id exact, escaped the JSON way.
    let json = run(
        &[
            os("job"),
            os("itp"),
            path,
            os("dup\x07"),
            os("--format"),
            os("json"),
        ],
        &[],
    );
    assert_clean("job's JSON", &json.stdout);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["job"]["job_id"], "dup\x07");
    // And the plain id is the other job.
    let plain = run(&[os("job"), os("itp"), path, os("dup")], &[]);
    assert!(stdout(&plain).contains("duration               100"));
}

#[test]
fn paths_with_escape_sequences_are_printed_escaped() {
    let dir = common::scratch_dir("osc").join(OSC_TITLE);
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("t.csv");
    std::fs::write(&good, "job_id,submission_time,duration,num_gpu\nj,0,10,1\n").unwrap();
    let ok = run(&[os("sim"), os("itp"), good.as_os_str()], &[]);
    assert!(ok.status.success());
    assert_clean("sim's stderr", &ok.stderr);
    assert!(
        stderr(&ok).contains("evil\\x1b]0;pwned\\x07"),
        "{}",
        stderr(&ok)
    );
    let missing = run(&[os("sim"), os("itp"), dir.join("no.csv").as_os_str()], &[]);
    assert!(!missing.status.success());
    assert_clean("the error", &missing.stderr);
    // A bad argument is quoted back by the argument parser: made safe too.
    let bad = run(
        &[
            os("sim"),
            os("itp"),
            good.as_os_str(),
            os("--policy"),
            os(OSC_TITLE),
        ],
        &[],
    );
    assert_eq!(bad.status.code(), Some(2));
    assert_clean("the usage error", &bad.stderr);
    assert!(stderr(&bad).contains("pwned"));
}

#[test]
fn config_errors_quote_no_raw_escape() {
    let home = common::scratch_dir("cfg");
    std::fs::create_dir_all(home.join("tracetui")).unwrap();
    std::fs::write(
        home.join("tracetui/config.toml"),
        "[keys]\nquit = [\"\x1b]0;pwned\x07\"\n",
    )
    .unwrap();
    let o = run(&[os("keys")], &[("XDG_CONFIG_HOME", &home)]);
    assert_clean("keys' stdout", &o.stdout);
    assert_clean("keys' stderr", &o.stderr);
    let all = format!("{}{}", stdout(&o), stderr(&o));
    assert!(
        all.contains("pwned"),
        "the problem is still reported: {all}"
    );
}

#[test]
fn theme_errors_quote_no_raw_escape() {
    if !common::tmux::available() {
        eprintln!("skipped: needs tmux (the theme is read once a terminal is there)");
        return;
    }
    let dir = common::scratch_dir("theme");
    let theme = dir.join("t.toml");
    std::fs::write(&theme, "[colors]\nbg = \"\x1b]0;pwned\x07\"\n").unwrap();
    let err = dir.join("err.txt");
    let cmd = format!(
        "{} --theme {} itp sample-traces/itp/sample.csv 2>{}; echo done-$?; sleep 20",
        env!("CARGO_BIN_EXE_tracetui"),
        theme.display(),
        err.display()
    );
    let t = common::tmux::Tmux::start(
        "theme",
        (80, 24),
        &format!("cd {} && {cmd}", env!("CARGO_MANIFEST_DIR")),
    );
    t.wait_for("done-1");
    let bytes = std::fs::read(&err).unwrap();
    assert_clean("the theme error", &bytes);
    assert!(String::from_utf8_lossy(&bytes).contains("t.toml"));
}

#[test]
fn the_replay_shows_control_characters_escaped_and_never_raw() {
    use tracetui::sim::Policy;
    let csv = "job_id,submission_time,duration,num_gpu\nclear\x1b[2J,0,500,1\nbell\x07,0,500,1\nrtl\u{202e}x,0,500,1\n";
    let opts = tracetui::trace::LoadOptions {
        gpus: Some(2),
        ..Default::default()
    };
    let (trace, _) = tracetui::trace::load_itp_from(csv.as_bytes(), "t.csv", &opts).unwrap();
    assert_eq!(
        trace.jobs[0].id, "clear\x1b[2J",
        "ids stay exact in the model"
    );
    let trace = std::sync::Arc::new(trace);
    let mut app = common::ui::app_for(trace, Policy::Fifo, (100, 30));
    app.update(tracetui::ui::action::Action::GoTo(10));
    let buf = common::ui::render(&app, 100, 30);
    let text = common::ui::text(&buf);
    assert!(text.contains("bell\\x07"), "{text}");
    assert!(text.contains("clear\\x1b"), "{text}");
    assert!(text.contains("rtl\\u{202"), "{text}");
    for cell in buf.content() {
        assert!(
            !cell.symbol().chars().any(tracetui::text::is_unsafe),
            "a raw control character in a cell: {:?}",
            cell.symbol()
        );
    }
}

#[test]
fn the_last_guard_scrubs_a_raw_cell() {
    use ratatui::buffer::Buffer;
    use ratatui::layout::Rect;
    let mut buf = Buffer::empty(Rect::new(0, 0, 4, 1));
    buf[(1, 0)].set_symbol("\x1b");
    buf[(2, 0)].set_symbol("\u{9b}");
    let area = buf.area;
    tracetui::ui::ascii::scrub(&mut buf, area);
    assert_eq!(common::ui::text(&buf).trim_end(), " ??");
}

#[test]
fn invisible_characters_and_backslashes_show_in_the_replay_and_on_stdout() {
    use tracetui::sim::Policy;
    // `dup` and `dup` + ZERO WIDTH SPACE; an id that is literally
    // `dup\x07` (7 characters) and one with a BEL.
    let csv = "job_id,submission_time,duration,num_gpu\n\
               dup,0,500,1\n\
               dup\u{200b},0,500,1\n\
               dup\\x07,0,500,1\n\
               dup\x07,0,500,1\n";
    let opts = tracetui::trace::LoadOptions {
        gpus: Some(8),
        ..Default::default()
    };
    let (trace, _) = tracetui::trace::load_itp_from(csv.as_bytes(), "t.csv", &opts).unwrap();
    assert_eq!(trace.jobs.len(), 4, "four exact ids");
    let trace = std::sync::Arc::new(trace);
    let mut app = common::ui::app_for(trace, Policy::Fifo, (120, 30));
    app.update(tracetui::ui::action::Action::GoTo(10));
    let text = common::ui::text(&common::ui::render(&app, 120, 30));
    assert!(text.contains("dup\\u{200b}"), "{text}");
    assert!(text.contains("dup\\\\x07"), "the literal backslash: {text}");
    assert!(text.contains("dup\\x07"), "the BEL: {text}");

    let f = common::write_file("invisible.csv", csv.as_bytes());
    let path = f.as_os_str();
    let job = run(&[os("job"), os("itp"), path, os("dup\u{200b}")], &[]);
    assert!(job.status.success(), "{}", stderr(&job));
    assert!(stdout(&job).contains("dup\\u{200b}"), "{}", stdout(&job));
    let job = run(&[os("job"), os("itp"), path, os("dup\\x07")], &[]);
    assert!(stdout(&job).contains("dup\\\\x07"), "{}", stdout(&job));
    // JSON gives the exact ids back, invisible characters JSON-escaped.
    let json = run(
        &[
            os("job"),
            os("itp"),
            path,
            os("dup\u{200b}"),
            os("--format"),
            os("json"),
        ],
        &[],
    );
    let raw = stdout(&json);
    assert!(raw.contains("dup\\u200b"), "{raw}");
    let v: serde_json::Value = serde_json::from_str(&raw).unwrap();
    assert!(v.to_string().contains("dup\u{200b}"), "{v}");
    // An error on stderr and a table on stdout escape alike.
    let missing = run(&[os("job"), os("itp"), path, os("no\x1bpe")], &[]);
    assert!(
        stderr(&missing).contains("no\\x1bpe"),
        "{}",
        stderr(&missing)
    );
    let table = run(&[os("stats"), os("itp"), os("dup\x1b.csv")], &[]);
    assert!(
        stderr(&table).contains("dup\\x1b.csv"),
        "{}",
        stderr(&table)
    );
}

/// The cell column where `needle` starts on the row that holds `row_has`.
fn column_of(buf: &ratatui::buffer::Buffer, row_has: &str, needle: &str) -> Option<u16> {
    let a = buf.area;
    for y in a.top()..a.bottom() {
        let cells: Vec<(u16, String)> = (a.left()..a.right())
            .map(|x| (x, buf[(x, y)].symbol().to_string()))
            .collect();
        let row: String = cells.iter().map(|c| c.1.as_str()).collect();
        if !row.contains(row_has) {
            continue;
        }
        let first = needle.chars().next()?.to_string();
        for (i, (x, s)) in cells.iter().enumerate() {
            let rest: String = cells[i..].iter().map(|c| c.1.as_str()).collect();
            if *s == first && rest.starts_with(needle) {
                return Some(*x);
            }
        }
    }
    None
}

#[test]
fn a_wide_policy_name_keeps_the_picker_s_columns() {
    use tracetui::sim::Policy;
    use tracetui::ui::action::Action;
    use tracetui::ui::keymap::Command as Key;
    let dir = common::scratch_dir("wide-name");
    let script = dir.join("wide.sh");
    std::fs::write(
        &script,
        "while IFS= read -r l; do echo '{\"name\":\"最短作业\",\"walk\":\"greedy\",\"describe\":\"wide-named\"}'; done\n",
    )
    .unwrap();
    let mut registry = tracetui::sim::Policies::new();
    let p = tracetui::driver::register(&format!("sh {}", script.display()), &mut registry).unwrap();
    assert_eq!(p.label(), "最短作业");
    let trace = common::tiny(&[4], &[(0, 100, 1)]);
    let mut app = common::ui::app_for(trace, Policy::Fifo, (120, 40)).with_policies(registry);
    app.update(Action::Command(Key::Policy));
    let buf = common::ui::render(&app, 120, 40);
    // A wide character's second cell holds a space: the row is matched by
    // its ASCII end.
    let wide = column_of(&buf, "wide-named", "external:").expect("the wide row");
    let fifo = column_of(&buf, " fifo ", Policy::Fifo.describe()).expect("fifo's row");
    assert_eq!(wide, fifo, "{}", common::ui::text(&buf));
}

#[test]
fn the_export_path_is_escaped_in_the_log_as_on_the_flash_line() {
    use tracetui::sim::Policy;
    use tracetui::ui::action::{Action, Effect, Exported};
    let trace = common::tiny(&[4], &[(0, 100, 1)]);
    let mut app = common::ui::app_for(trace, Policy::Fifo, (100, 30));
    let dir = std::path::PathBuf::from("/tmp/a\x1b[2Jb\u{202e}c");
    let u = app.update(Action::Exported(Exported::Files {
        txt: dir.join("s.txt"),
        svg: dir.join("s.svg"),
        detail: None,
    }));
    let logged: Vec<String> = u
        .effects
        .iter()
        .filter_map(|e| match e {
            Effect::Log(_, text) => Some(text.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(logged.len(), 1, "{logged:?}");
    assert!(logged[0].contains("a\\x1b[2Jb\\u{202e}c"), "{logged:?}");
    assert!(
        !logged[0].chars().any(tracetui::text::is_unsafe),
        "{logged:?}"
    );
    let screen = common::ui::text(&common::ui::render(&app, 100, 30));
    assert!(screen.contains("a\\x1b[2Jb\\u{202e}c/s.svg"), "{screen}");
}
