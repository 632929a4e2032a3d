//! One external policy process: `sh -c CMD` with JSON Lines on its stdin
//! and stdout. Every exchange has a deadline: writes and reads never block
//! past it (non-blocking pipes and `poll`), so a policy that hangs, or stops
//! reading, costs at most the timeout. Its stderr goes to the log line by
//! line, made safe and cut to a bounded length. The process is killed when
//! the session ends.

use super::error::PolicyError;
use super::stderr::Stderr;
use std::io::{ErrorKind, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};
use tracetui_model::text::sanitize;

/// The longest reply line read (a priority for every job of a large trace fits).
const MAX_REPLY: usize = 256 << 20;

pub(super) struct Child {
    process: std::process::Child,
    /// The write end of its keeper's lifeline (closed: the keeper ends
    /// everything below it), when it runs under one.
    _lifeline: Option<std::os::fd::OwnedFd>,
    /// Listed as live until the session ends (so any exit ends it).
    _group: crate::procs::Group,
    /// None once closed (the session is ending).
    stdin: Option<ChildStdin>,
    stdout: ChildStdout,
    /// Bytes read past the last reply line.
    pending: Vec<u8>,
    /// How much of `pending` is known to hold no newline.
    scanned: usize,
    /// The message being sent, with its newline.
    line: Vec<u8>,
    /// Whether a message has gone (what comes before the first, the
    /// hello, is read as its answer: a program that writes without being
    /// asked is told its first line is no answer, the same however early
    /// it wrote).
    sent: bool,
    stderr: Stderr,
}

impl Child {
    /// Starts `sh -c cmd` in the current directory; `label` (safe to show)
    /// prefixes its stderr lines, which are logged as they come (held:
    /// kept until `release`, for the probe).
    pub(super) fn spawn(cmd: &str, label: &str, held: bool) -> Result<Child, PolicyError> {
        let ending = || PolicyError::Spawn {
            cmd: cmd.to_string(),
            source: std::io::Error::other("tracetui is ending"),
        };
        let leave = crate::procs::spawning().ok_or_else(ending)?;
        let spawn_error = |source| PolicyError::Spawn {
            cmd: cmd.to_string(),
            source,
        };
        let (mut command, lifeline) = shell(&exec_line(cmd)).map_err(spawn_error)?;
        let mut process = command
            .stdin(Stdio::piped())
            // Its own process group: the terminal's Ctrl-C is the replay's,
            // and ending the session ends every process of a pipeline.
            .process_group(0)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(spawn_error)?;
        // The keeper has its copy of the read end now.
        let lifeline = lifeline.map(|(_, write)| write);
        let group = crate::procs::group(process.id() as i32);
        drop(leave);
        let (Some(stdin), Some(stdout), Some(stderr)) = (
            process.stdin.take(),
            process.stdout.take(),
            process.stderr.take(),
        ) else {
            let _ = process.kill();
            return Err(PolicyError::Pipes);
        };
        nonblocking(stdin.as_raw_fd());
        nonblocking(stdout.as_raw_fd());
        let stderr = Stderr::start(stderr, label, held).map_err(PolicyError::StderrReader)?;
        Ok(Child {
            process,
            _lifeline: lifeline,
            _group: group,
            stdin: Some(stdin),
            stdout,
            pending: Vec::new(),
            scanned: 0,
            line: Vec::new(),
            sent: false,
            stderr,
        })
    }

    /// Logs the stderr lines held so far, and the later ones as they come.
    pub(super) fn release_stderr(&self) {
        self.stderr.release();
    }

    /// Its last stderr lines (waiting up to `wait` for a failing program
    /// to finish writing).
    pub(super) fn stderr_tail(&self, wait: Duration) -> Vec<String> {
        self.stderr.tail(wait)
    }

    /// Sends one message (a JSON object without its newline) and reads one reply line.
    pub(super) fn ask(&mut self, message: &[u8], timeout: Duration) -> Result<String, PolicyError> {
        let deadline = Instant::now() + timeout;
        self.send(message, deadline)?;
        self.reply_by(deadline)?
            .ok_or(PolicyError::Timeout(timeout))
    }

    /// Sends one message, its newline with it (one write: two would wake
    /// the program twice); a program that stops reading fails at `deadline`.
    pub(super) fn send(&mut self, message: &[u8], deadline: Instant) -> Result<(), PolicyError> {
        // Every message is answered by one line: anything read, or waiting
        // to be, before a message goes is a line too many, and every later
        // answer would be taken for the wrong message.
        let first = !self.sent;
        if !first {
            if let Some(extra) = self.ahead() {
                return Err(PolicyError::OutOfStep(extra));
            }
        }
        self.sent = true;
        self.line.clear();
        self.line.extend_from_slice(message);
        self.line.push(b'\n');
        let line = std::mem::take(&mut self.line);
        let wrote = self.write_all(&line, deadline);
        self.line = line;
        match wrote {
            // A program that wrote and ended before it read its first
            // message: what it wrote is read as its answer (the same
            // whichever came first).
            Err(PolicyError::Closed(_) | PolicyError::ClosedInput)
                if first && self.ahead().is_some() =>
            {
                Ok(())
            }
            w => w,
        }
    }

    fn write_all(&mut self, mut bytes: &[u8], deadline: Instant) -> Result<(), PolicyError> {
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(PolicyError::InputClosed);
        };
        while !bytes.is_empty() {
            match stdin.write(bytes) {
                Ok(0) => return Err(PolicyError::StoppedReading(self.ended())),
                Ok(n) => bytes = &bytes[n..],
                Err(e) if e.kind() == ErrorKind::WouldBlock => {
                    wait(stdin.as_raw_fd(), libc::POLLOUT, deadline)
                        .map_err(|_| PolicyError::SlowReader)?;
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                // A program that ended before reading (`exit 3`) is told
                // the same way whichever end of the pipes notices first.
                Err(_) => {
                    return Err(match self.ended() {
                        Some(status) => PolicyError::Closed(Some(status)),
                        None => PolicyError::ClosedInput,
                    })
                }
            }
        }
        Ok(())
    }

    /// The next reply line, if one comes by `until` (None: not yet; the
    /// bytes read so far are kept for the next call).
    pub(super) fn reply_by(&mut self, until: Instant) -> Result<Option<String>, PolicyError> {
        loop {
            if let Some(i) = memchr::memchr(b'\n', &self.pending[self.scanned..]) {
                let end = self.scanned + i;
                // The line is the buffer it was read into (not a copy);
                // what came after it stays pending.
                let mut line = std::mem::take(&mut self.pending);
                self.pending = line.split_off(end + 1);
                line.truncate(end);
                self.scanned = 0;
                return String::from_utf8(line)
                    .map(Some)
                    .map_err(|_| PolicyError::NotUtf8);
            }
            self.scanned = self.pending.len();
            if self.pending.len() > MAX_REPLY {
                return Err(PolicyError::TooLong(MAX_REPLY >> 20));
            }
            let mut buf = [0u8; 64 << 10];
            match self.stdout.read(&mut buf) {
                Ok(0) => return Err(PolicyError::Closed(self.ended())),
                Ok(n) => self.pending.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == ErrorKind::WouldBlock => {
                    if wait(self.stdout.as_raw_fd(), libc::POLLIN, until).is_err() {
                        return Ok(None);
                    }
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(PolicyError::Read(e)),
            }
        }
    }

    /// What the program wrote that no message has asked for yet, if anything.
    fn ahead(&mut self) -> Option<String> {
        if self.pending.is_empty() && readable_now(self.stdout.as_raw_fd()) {
            let mut buf = [0u8; 4096];
            if let Ok(n @ 1..) = self.stdout.read(&mut buf) {
                self.pending.extend_from_slice(&buf[..n]);
            }
        }
        if self.pending.is_empty() {
            return None;
        }
        let line = self
            .pending
            .split(|&b| b == b'\n')
            .next()
            .unwrap_or_default();
        let shown = &line[..line.len().min(80)];
        Some(sanitize(&String::from_utf8_lossy(shown)))
    }

    /// Its exit status, if it ends within a moment (its pipes closing
    /// usually means it is exiting).
    fn ended(&mut self) -> Option<ExitStatus> {
        let until = Instant::now() + Duration::from_millis(200);
        loop {
            match self.process.try_wait() {
                Ok(Some(status)) => return Some(status),
                Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(2)),
                _ => return None,
            }
        }
    }
}

impl Drop for Child {
    /// Closes its input (the end of the conversation), gives it a moment
    /// to exit, then ends its whole process group and everything it
    /// started, also what left the group (`setsid`): those are found
    /// before the input is closed, while the policy is still their ancestor.
    fn drop(&mut self) {
        let pid = self.process.id() as i32;
        let below = crate::procs::descendants(pid);
        self.stdin = None;
        let until = Instant::now() + Duration::from_millis(200);
        while Instant::now() < until {
            if let Ok(Some(_)) = self.process.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        // SAFETY: signals the process group this session started.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
        crate::procs::end_listed(&below);
        crate::procs::end_descendants(pid);
        let _ = self.process.wait();
    }
}

/// The shell's own words (keywords and builtins): a command starting with
/// one runs in the shell as written (`exec exit 3` would look for a
/// program called `exit`).
const SHELL_OWN: &[&str] = &[
    "!", ".", ":", "alias", "bg", "break", "case", "cd", "command", "continue", "do", "done",
    "echo", "elif", "else", "esac", "eval", "exec", "exit", "export", "false", "fc", "fg", "fi",
    "for", "getopts", "hash", "if", "jobs", "kill", "printf", "pwd", "read", "readonly", "return",
    "set", "shift", "test", "then", "trap", "true", "ulimit", "umask", "unset", "in", "let",
    "local", "source", "times", "type", "until", "wait", "while",
];

/// `cmd` for `sh -c`: a simple command (words of letters, digits and
/// `-_./,:+@%`, no quoting, redirection, variable or list) is run with
/// `exec`, so the shell becomes the program: a program that closes its
/// output is then seen to at once (a shell waiting on it would hold the
/// pipe open until the timeout). Anything else runs as written.
pub(crate) fn exec_line(cmd: &str) -> String {
    let first = cmd.split_whitespace().next().unwrap_or_default();
    let simple = !first.is_empty()
        && !SHELL_OWN.contains(&first)
        && cmd
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || " \t-_./,:+@%".contains(c));
    if simple {
        format!("exec {}", cmd.trim())
    } else {
        cmd.to_string()
    }
}

/// The command that starts `cmd`: through a keeper where tracetui's
/// binary enabled them (`keeper`), with the two ends of its lifeline;
/// else `sh -c cmd` itself.
#[allow(clippy::type_complexity)]
fn shell(cmd: &str) -> std::io::Result<(Command, Option<(OwnedFd, OwnedFd)>)> {
    let Some(exe) = crate::keeper::exe() else {
        let mut c = Command::new("sh");
        c.arg("-c").arg(cmd);
        return Ok((c, None));
    };
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills the two descriptors it makes, both close-on-exec
    // (only the keeper gets a copy of the read end, by dup2).
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just made and are owned here alone.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    let c = crate::keeper::command(exe, cmd, read.as_raw_fd());
    Ok((c, Some((read, write))))
}

fn nonblocking(fd: i32) {
    // SAFETY: fcntl on a pipe descriptor this process owns.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags >= 0 {
            libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
        }
    }
}

/// Whether `fd` has bytes to read this instant.
fn readable_now(fd: i32) -> bool {
    let mut p = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one pollfd, owned by this frame; a zero timeout never blocks.
    let r = unsafe { libc::poll(&mut p, 1, 0) };
    r > 0 && p.revents & libc::POLLIN != 0
}

/// Waits until `fd` is ready for `events` (or hung up), or the deadline passes.
fn wait(fd: i32, events: i16, deadline: Instant) -> Result<(), ()> {
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(());
        }
        let mut p = libc::pollfd {
            fd,
            events,
            revents: 0,
        };
        let ms = left.as_millis().clamp(1, i32::MAX as u128) as i32;
        // SAFETY: one pollfd, owned by this frame.
        let r = unsafe { libc::poll(&mut p, 1, ms) };
        if r > 0 {
            return Ok(());
        }
        if r < 0 && std::io::Error::last_os_error().kind() != ErrorKind::Interrupted {
            return Err(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_program_gone_before_its_message_is_told_as_one_that_ended() {
        // Its input closes before the message is written (the race a policy
        // that exits at once can lose): the same error as when the reply
        // side notices first, with how it ended.
        let mut child = Child::spawn("exec 0<&-; sleep 0.2; exit 3", "t", false).unwrap();
        std::thread::sleep(Duration::from_millis(100));
        match child.ask(b"{}", Duration::from_secs(5)) {
            Err(PolicyError::Closed(Some(status))) => assert_eq!(status.code(), Some(3)),
            other => panic!("{other:?}"),
        }
    }
}
