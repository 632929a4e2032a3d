//! Without a terminal the replay says what to run instead, and that
//! command works as printed (quoted where it must be).

use std::process::{Command, Stdio};

/// The command the error suggests, run through `sh` from the project root.
fn suggested_works(args: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_tracetui"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    let cmd = err
        .split('`')
        .nth(1)
        .unwrap_or_else(|| panic!("no command in: {err}"));
    let cmd = cmd
        .split(' ')
        .map(|w| {
            if w == "tracetui" {
                env!("CARGO_BIN_EXE_tracetui")
            } else {
                w
            }
        })
        .collect::<Vec<_>>()
        .join(" ");
    // From an empty directory where it names no file of the repository (a
    // binary ships none), else from the project root.
    let dir = if args.is_empty() {
        let d = std::env::temp_dir().join(format!("tracetui-no-terminal-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    } else {
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
    };
    let run = Command::new("sh")
        .arg("-c")
        .arg(&cmd)
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{cmd}: {}",
        String::from_utf8_lossy(&run.stderr)
    );
}

#[test]
fn the_embedded_sample_suggests_a_command_that_runs() {
    suggested_works(&[]);
}

#[test]
fn a_file_with_an_external_policy_suggests_a_quoted_command_that_runs() {
    if Command::new("python3").arg("-V").output().is_err() {
        eprintln!("skipped: python3 is not on PATH");
        return;
    }
    suggested_works(&[
        "itp",
        "sample-traces/itp/sample.csv",
        "--gpus",
        "128",
        "--policy",
        "exec:python3 policies/sjf.py",
    ]);
}

#[test]
fn each_formats_help_describes_its_own_path() {
    for (format, own, others) in [
        ("itp", "ITP cluster's CSV", ["pai", "philly"]),
        ("pai", "PAI 2020 directory", ["itp", "philly"]),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_tracetui"))
            .args([format, "--help"])
            .output()
            .unwrap();
        let help = String::from_utf8_lossy(&out.stdout);
        let path = help
            .lines()
            .skip_while(|l| l.trim() != "<PATH>")
            .nth(1)
            .unwrap_or_default()
            .to_string();
        assert!(path.contains(own), "{format}: {path}");
        for o in others {
            assert!(!path.contains(&format!("({o}")), "{format}: {path}");
        }
    }
}
