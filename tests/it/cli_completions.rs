//! `tracetui completions SHELL` and `tracetui man` (issue 62, item 4):
//! generated from the command line's definition, so a shell completes
//! the subcommands and options that exist, and the man page lists them.

use crate::common;

use common::cli::{stderr, stdout, tracetui};
use std::process::Command;

#[test]
fn bash_completes_subcommands_and_options_from_the_script() {
    let o = tracetui(&["completions", "bash"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let dir = common::scratch_dir("completions");
    let script = dir.join("tracetui.bash");
    std::fs::write(&script, stdout(&o)).unwrap();
    let complete = |words: &str| -> String {
        let run = format!(
            "source {}; COMP_WORDS=({words}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); \
             _tracetui tracetui \"${{COMP_WORDS[-1]}}\" \"${{COMP_WORDS[-2]}}\"; echo \"${{COMPREPLY[@]}}\"",
            script.display()
        );
        let out = Command::new("bash")
            .args(["--norc", "-c", &run])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let subs = complete("tracetui st");
    assert!(subs.split_whitespace().any(|w| w == "stats"), "{subs}");
    let opts = complete("tracetui sim --poli");
    assert!(opts.split_whitespace().any(|w| w == "--policy"), "{opts}");
    assert!(
        opts.split_whitespace().any(|w| w == "--policy-schedule"),
        "{opts}"
    );
    let lesson = complete("tracetui lesson --proj");
    assert!(lesson.contains("--projector"), "{lesson}");
}

#[test]
fn zsh_and_fish_scripts_name_every_subcommand() {
    for shell in ["zsh", "fish"] {
        let o = tracetui(&["completions", shell]);
        assert!(o.status.success(), "{shell}: {}", stderr(&o));
        let s = stdout(&o);
        for sub in [
            "sim",
            "compare",
            "sweep",
            "stats",
            "lesson",
            "gen",
            "completions",
            "man",
        ] {
            assert!(s.contains(sub), "{shell}: no {sub}");
        }
    }
    let o = tracetui(&["completions", "tcsh"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn the_man_pages_come_from_the_command_line() {
    let o = tracetui(&["man"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let page = stdout(&o);
    assert!(
        page.starts_with(".ie") || page.contains(".TH tracetui 1"),
        "{page}"
    );
    assert!(page.contains(".TH tracetui 1"), "{page}");
    for sub in ["sim", "stats", "lesson", "completions"] {
        assert!(page.contains(sub), "the page lists no {sub}");
    }
    let sim = stdout(&tracetui(&["man", "sim"]));
    assert!(sim.contains(".TH tracetui-sim 1"), "{sim}");
    assert!(sim.contains("tracetui\\-sim \\- Simulate"), "NAME: {sim}");
    assert!(sim.contains("\\-\\-policy\\-schedule"), "{sim}");
    let o = tracetui(&["man", "nope"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("no subcommand 'nope'"),
        "{}",
        stderr(&o)
    );
    // Rendered as man renders it, where man is installed.
    let mut man = match Command::new("man")
        .args(["-l", "-"])
        .env("MANWIDTH", "80")
        .env("MANPAGER", "cat")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(_) => {
            eprintln!("skipped: man is not installed (the roff above is checked)");
            return;
        }
    };
    use std::io::Write;
    man.stdin.take().unwrap().write_all(sim.as_bytes()).unwrap();
    let shown = String::from_utf8_lossy(&man.wait_with_output().unwrap().stdout).into_owned();
    assert!(shown.contains("tracetui sim"), "{shown}");
}
