//! Every process tracetui starts ends when tracetui ends, however it ends.
//!
//! External policies run as `sh -c CMD` in a process group of their own (so
//! the terminal's Ctrl-C is the replay's). Live groups are listed here; on
//! Linux tracetui also adopts the orphans of what it started (a child
//! subreaper), so a grandchild that left the group with `setsid` still has
//! tracetui as an ancestor and is found by walking `/proc`. `end_all` ends
//! them all: a headless run's signal handler calls it, as do the replay's
//! exits (a quit, a signal, the terminal gone) and the end of every run.
//! Temporary output files are listed too, so a signal leaves none behind.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicUsize, Ordering};
use std::sync::Mutex;

// The process table is statics: a signal handler and the exit path end
// what it lists, and they can reach nothing else (atomics where a handler
// reads them; the temporaries' list is read outside handlers only).

/// Live process groups, at most this many at once (the rest are still
/// ended by their owners and by the walk of descendants).
const SLOTS: usize = 512;
static GROUPS: [AtomicI32; SLOTS] = [const { AtomicI32::new(0) }; SLOTS];
/// Whether any process was started (nothing to end otherwise).
static STARTED: AtomicBool = AtomicBool::new(false);
/// Temporary output files being written.
static TEMPS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
/// Set once everything started is being ended: no process starts after.
static ENDING_ALL: AtomicBool = AtomicBool::new(false);
/// Processes being started this instant (between the check of
/// `ENDING_ALL` and the listing of their group).
static SPAWNING: AtomicUsize = AtomicUsize::new(0);
/// The ending signal being handled (0: none).
static DYING: AtomicI32 = AtomicI32::new(0);

/// A live process group, listed until dropped.
pub(crate) struct Group(Option<usize>);

/// Lists the process group `pgid` (a policy just started) as live.
pub(crate) fn group(pgid: i32) -> Group {
    adopt_orphans();
    STARTED.store(true, Ordering::SeqCst);
    let slot = GROUPS.iter().position(|g| {
        g.compare_exchange(0, pgid, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    });
    Group(slot)
}

impl Drop for Group {
    fn drop(&mut self) {
        if let Some(i) = self.0 {
            GROUPS[i].store(0, Ordering::SeqCst);
        }
    }
}

/// Leave to start a process, held until its group is listed; None once
/// everything is being ended (a process started then would outlive it).
pub(crate) fn spawning() -> Option<Spawning> {
    SPAWNING.fetch_add(1, Ordering::SeqCst);
    if ENDING_ALL.load(Ordering::SeqCst) {
        SPAWNING.fetch_sub(1, Ordering::SeqCst);
        return None;
    }
    adopt_orphans();
    Some(Spawning)
}

pub(crate) struct Spawning;

impl Drop for Spawning {
    fn drop(&mut self) {
        SPAWNING.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Makes this process the parent of its descendants' orphans (Linux).
fn adopt_orphans() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        #[cfg(target_os = "linux")]
        // SAFETY: prctl with an integer option changes only this process's flag.
        unsafe {
            libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
        }
    });
}

/// Ends every listed group and every descendant of this process.
pub fn end_all() {
    // No process starts from here on; one being started is waited for
    // (a moment at most), so the walk below finds it.
    ENDING_ALL.store(true, Ordering::SeqCst);
    let until = std::time::Instant::now() + std::time::Duration::from_secs(1);
    while SPAWNING.load(Ordering::SeqCst) > 0 && std::time::Instant::now() < until {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    if !STARTED.load(Ordering::SeqCst) {
        return;
    }
    // Listed before anything is killed: a grandchild is found through its
    // parent while that parent lives (once the parent is a zombie the walk
    // cannot reach it, were its pid read first).
    let me = std::process::id() as i32;
    let below = descendants(me);
    for g in &GROUPS {
        let pgid = g.load(Ordering::SeqCst);
        if pgid > 0 {
            // SAFETY: signals a process group this process started.
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
    }
    end_listed(&below);
    end_descendants(me);
}

/// SIGKILLs every descendant of `root` (not `root` itself), as many rounds
/// as it takes for none to be left (a process forking as it is ended adds
/// one), at most a few.
pub(crate) fn end_descendants(root: i32) {
    // A round that killed something is followed by another walk: the
    // orphans of what it killed reach this process only as their parents
    // die, and a walk that met a dying parent may have missed them.
    for _ in 0..6 {
        let found = descendants(root);
        if found.is_empty() {
            return;
        }
        end_listed(&found);
    }
}

/// SIGKILLs each of `pids` (found below a process being ended) and
/// reaps those that became this process's children.
pub(crate) fn end_listed(pids: &[i32]) {
    for pid in pids {
        // SAFETY: signals a process found below one this process started.
        unsafe {
            libc::kill(*pid, libc::SIGKILL);
        }
    }
    reap(pids);
}

/// Waits a moment (at most 200 ms) for each of `pids` to be gone: those
/// that are this process's children (orphans it adopted) are reaped so none
/// stays a zombie; the others are waited for until `/proc` shows them dead
/// (a SIGKILL is delivered asynchronously, and a loaded machine may take a
/// while to act on it).
fn reap(pids: &[i32]) {
    let until = std::time::Instant::now() + std::time::Duration::from_millis(200);
    let mut left: Vec<i32> = pids.to_vec();
    while !left.is_empty() && std::time::Instant::now() < until {
        left.retain(|&pid| {
            let mut status = 0;
            // SAFETY: waits only for `pid`, without blocking.
            let r = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
            match r {
                0 => true,
                -1 => parent_of(pid).is_some(),
                _ => false,
            }
        });
        if !left.is_empty() {
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    }
}

/// Every live process below `root`, by the parent links in `/proc`.
pub(crate) fn descendants(root: i32) -> Vec<i32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let links: Vec<(i32, i32)> = dir
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|pid| Some((pid, parent_of(pid)?)))
        .collect();
    let mut found = vec![root];
    let mut i = 0;
    while i < found.len() {
        let p = found[i];
        found.extend(links.iter().filter(|l| l.1 == p).map(|l| l.0));
        i += 1;
    }
    found.remove(0);
    found
}

/// The parent of `pid` (the fourth field of `/proc/PID/stat`, after the
/// command name in parentheses, which may itself hold parentheses).
fn parent_of(pid: i32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = &stat[stat.rfind(')')? + 1..];
    let mut f = after.split_whitespace();
    let state = f.next()?;
    if state == "Z" || state == "X" {
        return None;
    }
    f.next()?.parse().ok()
}

/// Lists `path` as a temporary file being written (removed on a signal).
pub fn temp_file(path: &Path) {
    if let Ok(mut t) = TEMPS.lock() {
        t.push(path.to_path_buf());
    }
}

/// Directories an output was written into by this process.
static WRITTEN_IN: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Whether this is the first output this process writes into `dir` (the
/// moment to clear what a killed writer left there).
pub fn first_write_in(dir: &Path) -> bool {
    let Ok(mut seen) = WRITTEN_IN.lock() else {
        return false;
    };
    if seen.iter().any(|d| d == dir) {
        return false;
    }
    seen.push(dir.to_path_buf());
    true
}

/// `path` is no longer temporary (renamed into place or removed).
pub fn temp_done(path: &Path) {
    if let Ok(mut t) = TEMPS.lock() {
        t.retain(|p| p != path);
    }
}

fn remove_temps() {
    if let Ok(t) = TEMPS.lock() {
        for p in t.iter() {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// The signals that end a run.
pub(crate) const ENDING: [i32; 4] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT];

/// For a headless run: on any of `ENDING`, ends every process started,
/// removes temporary outputs, and dies of the signal (status 128+N).
pub fn end_on_signals() {
    let Ok(mut signals) = signal_hook::iterator::Signals::new(ENDING) else {
        return;
    };
    let _ = std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            if let Some(sig) = signals.forever().next() {
                DYING.store(sig, Ordering::SeqCst);
                end_all();
                remove_temps();
                die_of(sig);
            }
        });
}

/// When an ending signal arrived, ends this process of it now (its
/// temporary outputs removed): a run whose policy the signal ended must not
/// exit 1 with the policy's failure before the signal's thread is done.
pub fn die_if_signalled() {
    let sig = DYING.load(Ordering::SeqCst);
    if sig != 0 {
        end_all();
        remove_temps();
        die_of(sig);
    }
}

/// Ends this process as `sig` would have: INT, TERM and HUP are raised
/// again with their default action (the parent sees the signal); QUIT,
/// whose default dumps core, exits 128+N.
pub fn die_of(sig: i32) -> ! {
    if sig != libc::SIGQUIT {
        let _ = signal_hook::low_level::emulate_default_handler(sig);
    }
    std::process::exit(128 + sig)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descendants_are_found_through_a_new_session() {
        let mut sh = std::process::Command::new("sh")
            .arg("-c")
            .arg("setsid sleep 30 & sleep 30 & wait")
            .spawn()
            .unwrap();
        let root = sh.id() as i32;
        let until = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while descendants(root).len() < 2 && std::time::Instant::now() < until {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let found = descendants(root);
        assert_eq!(found.len(), 2, "{found:?}");
        end_descendants(root);
        assert!(descendants(root).is_empty());
        let _ = sh.kill();
        let _ = sh.wait();
    }

    #[test]
    fn a_group_is_listed_until_dropped() {
        let g = group(999_999);
        assert!(GROUPS.iter().any(|s| s.load(Ordering::SeqCst) == 999_999));
        drop(g);
        assert!(!GROUPS.iter().any(|s| s.load(Ordering::SeqCst) == 999_999));
    }

    #[test]
    fn a_parent_is_read_past_parentheses_in_the_name() {
        assert_eq!(
            parent_of(std::process::id() as i32),
            Some(unsafe { libc::getppid() })
        );
    }
}
