//! Config and theme files are read only when they are regular files of at
//! most 1 MiB (a FIFO hung the replay on a blank screen; `/dev/zero` grew it
//! to gigabytes), and `[policies]` are asked who they are in the background,
//! all at once, while the replay is already drawn.

use crate::common;

use common::scratch_dir;
use common::tmux::{available, Tmux};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

fn mkfifo(p: &Path) {
    let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
    // SAFETY: a NUL-terminated path; mkfifo only creates the node.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

/// `tracetui keys` with `dir` as `$XDG_CONFIG_HOME`, killed if it takes
/// more than 20 s (a read that blocks forever).
fn keys_with_config(dir: &Path) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tracetui"))
        .arg("keys")
        .env("XDG_CONFIG_HOME", dir)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let until = Instant::now() + Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > until {
            let _ = child.kill();
            panic!("`tracetui keys` still reading its config after 20 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success());
    String::from_utf8(o.stdout).unwrap()
}

#[test]
fn a_config_that_is_a_fifo_or_a_device_is_refused_not_read() {
    let dir = scratch_dir("config-fifo");
    std::fs::create_dir_all(dir.join("tracetui")).unwrap();
    let config = dir.join("tracetui/config.toml");
    mkfifo(&config);
    let out = keys_with_config(&dir);
    assert!(out.contains("config.toml: not a regular file"), "{out}");
    assert!(out.contains("quit"), "the default keys: {out}");

    std::fs::remove_file(&config).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &config).unwrap();
    let out = keys_with_config(&dir);
    assert!(out.contains("config.toml: not a regular file"), "{out}");

    std::fs::remove_file(&config).unwrap();
    let mut big = b"[keys]\n".to_vec();
    big.resize(2 << 20, b'#');
    std::fs::write(&config, big).unwrap();
    let out = keys_with_config(&dir);
    assert!(out.contains("config.toml: over 1 MiB"), "{out}");
}

#[test]
fn silent_config_policies_and_a_fifo_theme_never_hold_the_screen() {
    if !available() {
        return;
    }
    let dir = scratch_dir("config-policies");
    let conf = dir.join("tracetui");
    std::fs::create_dir_all(conf.join("themes")).unwrap();
    mkfifo(&conf.join("themes/stuck.toml"));
    std::fs::write(
        conf.join("config.toml"),
        "[policies]\nmute-a = \"sleep 60\"\nmute-b = \"sleep 60\"\nmute-c = \"sleep 60\"\n",
    )
    .unwrap();
    let shell = format!(
        "env -i PATH=/usr/local/bin:/usr/bin:/bin TERM=xterm-256color HOME=/nonexistent \
         XDG_CONFIG_HOME={} bash --norc --noprofile",
        dir.display()
    );
    let t = Tmux::shell("config-policies", (120, 40), &shell);
    let bin = env!("CARGO_BIN_EXE_tracetui");
    t.keys(&[
        &format!(
            "cd {} && {bin} itp sample-traces/itp/sample.csv --fps 20 --policy-timeout 4",
            env!("CARGO_MANIFEST_DIR")
        ),
        "Enter",
    ]);
    // Drawn at once, though three policies will take their 4 s each to
    // be given up (12 s one after another, as they were asked before).
    let s = t.wait_for("PAUSED");
    assert!(s.contains("stuck.toml: not a regular file"), "{s}");
    // All three given up together, within one timeout.
    let s = t.wait_for_within("mute-c", 8);
    assert!(s.contains("mute-a"), "{s}");
    assert!(
        s.contains("did not answer within 4.0 s"),
        "--policy-timeout holds: {s}"
    );
    t.keys(&["q"]);
    t.wait_for("ready$");
}
