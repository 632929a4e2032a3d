//! A tmux session for the real-terminal tests: keys in, the screen out.

use std::process::Command;
use std::thread::sleep;
use std::time::{Duration, Instant};

pub struct Tmux {
    pub session: String,
}

impl Tmux {
    /// A new session of `size` (columns, rows) running `command`.
    pub fn start(tag: &str, size: (u16, u16), command: &str) -> Tmux {
        let t = Tmux {
            session: format!("tracetui-{tag}-{}", std::process::id()),
        };
        let (w, h) = (size.0.to_string(), size.1.to_string());
        // A server still going away (the last session of a test just
        // ended) can refuse the first try: tried again.
        for _ in 0..5 {
            let args = [
                "new-session",
                "-d",
                "-s",
                &t.session,
                "-x",
                &w,
                "-y",
                &h,
                command,
            ];
            let made = Command::new("tmux")
                .args(args)
                .output()
                .is_ok_and(|o| o.status.success());
            if made {
                break;
            }
            sleep(Duration::from_millis(500));
        }
        t
    }

    /// A new session of `size` running `shell`, at its prompt.
    pub fn shell(tag: &str, size: (u16, u16), shell: &str) -> Tmux {
        let t = Tmux::start(tag, size, shell);
        t.keys(&["PS1='ready$ '", "Enter"]);
        t.wait_for("ready$");
        t
    }

    pub fn run(&self, args: &[&str]) -> String {
        let out = Command::new("tmux").args(args).output().expect("tmux runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn keys(&self, keys: &[&str]) {
        for k in keys {
            self.run(&["send-keys", "-t", &self.session, k]);
            sleep(Duration::from_millis(150));
        }
    }

    /// Types `text` literally (no key names).
    pub fn type_text(&self, text: &str) {
        self.run(&["send-keys", "-t", &self.session, "-l", text]);
        sleep(Duration::from_millis(150));
    }

    pub fn screen(&self) -> String {
        self.run(&["capture-pane", "-t", &self.session, "-p"])
    }

    /// Waits until the screen contains `text` (or fails after 10 s).
    pub fn wait_for(&self, text: &str) -> String {
        self.wait_for_within(text, 10)
    }

    /// Waits until the screen contains `text` (or fails after `secs`).
    pub fn wait_for_within(&self, text: &str, secs: u64) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen();
            if s.contains(text) {
                return s;
            }
            assert!(
                start.elapsed() < Duration::from_secs(secs),
                "waited for {text:?}; the screen:\n{s}"
            );
            sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["kill-session", "-t", &self.session])
            .output();
    }
}

/// Whether tmux is here (the test says it is skipped where not).
pub fn available() -> bool {
    let ok = Command::new("tmux").arg("-V").output().is_ok();
    if !ok {
        eprintln!("skipped: tmux is not installed (.ci/run installs it)");
    }
    ok
}

/// Runs `check` at 80×24 and 120×40, each in colour and with NO_COLOR
/// (`check(size, no_color)`); skipped, saying so, without tmux.
pub fn at_both_sizes(check: impl Fn((u16, u16), bool)) {
    if !available() {
        return;
    }
    for size in [(80, 24), (120, 40)] {
        for no_color in [false, true] {
            check(size, no_color);
        }
    }
}

/// The environment a session's command gets: NO_COLOR, or a colour
/// terminal (256 colours).
pub fn colour_env(no_color: bool) -> &'static str {
    if no_color {
        "NO_COLOR=1 TERM=xterm-256color"
    } else {
        "TERM=xterm-256color"
    }
}
