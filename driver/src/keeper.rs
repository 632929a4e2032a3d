//! A policy's keeper: the process between tracetui and `sh -c CMD` that
//! ends the policy's whole process tree when tracetui is gone, however it
//! went — `kill -9` included, which no handler of tracetui's can hear.
//!
//! tracetui starts its own binary as `tracetui __tracetui-policy-keeper
//! CMD`, in a process group of its own, with the policy's pipes as its
//! stdin, stdout and stderr and the read end of a pipe whose only write
//! end tracetui holds (close-on-exec, so no other program inherits it) as
//! descriptor 3. The keeper adopts its descendants' orphans (a child
//! subreaper: a `setsid` grandchild still has it as an ancestor), starts
//! `sh -c CMD` with those pipes, closes its own copies (so the policy's
//! closing them is seen), and then waits for one of two things:
//! - the policy's shell ends: whatever it left running is ended, and the
//!   keeper ends the same way (its exit code, or its signal), so tracetui
//!   sees the policy's own status;
//! - descriptor 3 reads end-of-file: tracetui closed it (the session is
//!   over) or died (the kernel closed it). Everything below the keeper is
//!   SIGKILLed and the keeper exits. It outlives nothing.
//!
//! Only the binary that calls [`enable`] (tracetui's `main`) starts policies
//! through a keeper; elsewhere (a test harness) they start as before.

use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::sync::OnceLock;

/// The argument that makes tracetui a keeper.
pub const ARG: &str = "__tracetui-policy-keeper";

/// The descriptor the keeper reads tracetui's life from.
const LIFELINE: i32 = 3;

static EXE: OnceLock<PathBuf> = OnceLock::new();

/// Policies start through a keeper, this binary itself (called once at
/// the start of `main`; without it they start as `sh -c` directly).
pub fn enable() {
    // `/proc/self/exe` is read by the child as it execs, where it is still
    // this binary: it runs even after the file was rebuilt or deleted.
    let proc_exe = PathBuf::from("/proc/self/exe");
    let exe = if proc_exe.exists() {
        Some(proc_exe)
    } else {
        std::env::current_exe().ok()
    };
    if let Some(exe) = exe {
        let _ = EXE.set(exe);
    }
}

/// The binary to start keepers from, if [`enable`] was called.
pub(crate) fn exe() -> Option<&'static PathBuf> {
    EXE.get()
}

/// When this process was started as a keeper (`ARG CMD`), runs it and
/// never returns; otherwise returns at once.
pub fn run_if_asked() {
    let mut args = std::env::args_os().skip(1);
    if args.next().is_some_and(|a| a == ARG) {
        let cmd = args.next().unwrap_or_default();
        keep(&cmd);
    }
}

/// A command that starts `cmd` through a keeper (`exe`) holding `lifeline`
/// (the read end of tracetui's pipe) as descriptor 3.
pub(crate) fn command(exe: &PathBuf, cmd: &str, lifeline: i32) -> std::process::Command {
    let mut c = std::process::Command::new(exe);
    // Named as tracetui in `ps`, whatever path started it.
    c.arg0("tracetui").arg(ARG).arg(cmd);
    // SAFETY: between fork and exec only async-signal-safe calls: dup2
    // (which leaves the copy open across exec) or, where the descriptor is
    // 3 already, fcntl clearing its close-on-exec flag.
    unsafe {
        c.pre_exec(move || {
            let r = if lifeline == LIFELINE {
                libc::fcntl(LIFELINE, libc::F_SETFD, 0)
            } else {
                libc::dup2(lifeline, LIFELINE)
            };
            if r < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    c
}

/// The keeper: starts the policy, then ends everything below it when the
/// policy ends or tracetui does.
fn keep(cmd: &std::ffi::OsStr) -> ! {
    // SAFETY: flags on this process and on a descriptor it was given.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
        libc::fcntl(LIFELINE, libc::F_SETFD, libc::FD_CLOEXEC);
    }
    let shell = match std::process::Command::new("sh").arg("-c").arg(cmd).spawn() {
        Ok(c) => c.id() as i32,
        Err(e) => {
            eprintln!("cannot start sh: {e}");
            std::process::exit(127);
        }
    };
    close_own_pipes();
    std::thread::spawn(move || {
        // Blocks until the lifeline is closed (no one ever writes to it).
        let mut p = libc::pollfd {
            fd: LIFELINE,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one pollfd owned by this frame; -1 waits for ever.
        while unsafe { libc::poll(&mut p, 1, -1) } < 0 {}
        end_below();
        std::process::exit(137);
    });
    let status = wait_for(shell);
    end_below();
    end_as(status)
}

/// Points the keeper's stdin, stdout and stderr at `/dev/null`: the
/// policy's pipes are its own, and it closing them must reach tracetui.
fn close_own_pipes() {
    // SAFETY: opens /dev/null and duplicates it over this process's own
    // standard descriptors.
    unsafe {
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC);
        if null >= 0 {
            for fd in 0..3 {
                libc::dup2(null, fd);
            }
            libc::close(null);
        }
    }
}

/// Reaps children (the shell, and orphans it adopted) until the shell
/// ends: its wait status.
fn wait_for(shell: i32) -> i32 {
    loop {
        let mut status = 0;
        // SAFETY: waits for any child of this process.
        let pid = unsafe { libc::waitpid(-1, &mut status, 0) };
        if pid == shell {
            return status;
        }
        if pid < 0 && std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            return 0;
        }
    }
}

/// SIGKILLs everything below the keeper (what the policy left running).
fn end_below() {
    crate::procs::end_descendants(std::process::id() as i32);
}

/// Ends the keeper as the shell ended: its code, or its signal.
fn end_as(status: i32) -> ! {
    if libc::WIFSIGNALED(status) {
        let sig = libc::WTERMSIG(status);
        // SAFETY: the default action for the shell's signal, then that signal.
        unsafe {
            libc::signal(sig, libc::SIG_DFL);
            libc::raise(sig);
        }
        std::process::exit(128 + sig);
    }
    std::process::exit(libc::WEXITSTATUS(status))
}
