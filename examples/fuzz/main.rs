//! The in-repo fuzzer, with caps: every loader on mutated seeds for a count
//! or a time, executions per second reported, and any input that panics,
//! allocates past the memory cap or runs past the time cap saved under
//! `tests/fuzz-regressions/<loader>/` (replayed by `tests/it/fuzz.rs`).
//!
//! ```sh
//! cargo run --profile fuzz --example fuzz -- [LOADER|all] [--execs N] [--secs S] [--seed S]
//! ```

use std::alloc::{GlobalAlloc, Layout, System};
use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};
/// The fuzzer itself (shared with `tests/it/fuzz.rs`, which includes it by path:
/// it is not part of the library).
mod fuzzer;

use fuzzer::{self as fuzz, Options, TARGETS};

/// Bytes allocated now, and the cap (1 GiB: inputs are a few KB).
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
const MEMORY_CAP: usize = 1 << 30;
/// Seconds one execution may take.
const TIME_CAP: u64 = 10;

/// The current input file and where to save it (C strings, so saving needs
/// no allocation when the cap is hit).
static INPUT: AtomicPtr<i8> = AtomicPtr::new(std::ptr::null_mut());
static SAVE: AtomicPtr<i8> = AtomicPtr::new(std::ptr::null_mut());
static STARTED_MS: AtomicU64 = AtomicU64::new(0);
static RUNNING: AtomicBool = AtomicBool::new(false);

struct Capped;

unsafe impl GlobalAlloc for Capped {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let now = LIVE.fetch_add(l.size(), Ordering::Relaxed) + l.size();
        PEAK.fetch_max(now, Ordering::Relaxed);
        if now > MEMORY_CAP && RUNNING.load(Ordering::Relaxed) {
            give_up(b"memory cap exceeded\n", 3);
        }
        unsafe { System.alloc(l) }
    }

    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static GLOBAL: Capped = Capped;

/// Copies the current input to its save path and exits, without allocating.
fn give_up(why: &[u8], code: i32) -> ! {
    unsafe {
        libc::write(2, why.as_ptr().cast(), why.len());
        let (from, to) = (INPUT.load(Ordering::SeqCst), SAVE.load(Ordering::SeqCst));
        if !from.is_null() && !to.is_null() {
            let src = libc::open(from, libc::O_RDONLY);
            let dst = libc::open(to, libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC, 0o644);
            let mut buf = [0u8; 4096];
            loop {
                let n = libc::read(src, buf.as_mut_ptr().cast(), buf.len());
                if n <= 0 {
                    break;
                }
                libc::write(dst, buf.as_ptr().cast(), n as usize);
            }
            libc::close(src);
            libc::close(dst);
            let msg = b"saved the input: ";
            libc::write(2, msg.as_ptr().cast(), msg.len());
            libc::write(2, to.cast(), libc::strlen(to));
            libc::write(2, b"\n".as_ptr().cast(), 1);
        }
        libc::_exit(code)
    }
}

fn now_ms(t0: Instant) -> u64 {
    t0.elapsed().as_millis() as u64 + 1
}

/// Gives up when one execution runs past `TIME_CAP`.
fn watchdog(t0: Instant) {
    std::thread::spawn(move || loop {
        std::thread::sleep(Duration::from_millis(250));
        let s = STARTED_MS.load(Ordering::SeqCst);
        if s > 0 && now_ms(t0).saturating_sub(s) > TIME_CAP * 1000 {
            give_up(b"time cap exceeded\n", 4);
        }
    });
}

/// Arms the caps around each execution (the mutation before it and the
/// bookkeeping after it are the fuzzer's, not the loader's).
struct Caps {
    t0: Instant,
    keep: Vec<CString>,
}

impl fuzz::Watch for Caps {
    fn start(&mut self, input: &Path, save: &Path) {
        let a = CString::new(input.as_os_str().as_encoded_bytes()).unwrap_or_default();
        let b = CString::new(save.as_os_str().as_encoded_bytes()).unwrap_or_default();
        INPUT.store(a.as_ptr().cast_mut(), Ordering::SeqCst);
        SAVE.store(b.as_ptr().cast_mut(), Ordering::SeqCst);
        // The previous pair is freed only once the new one is in place.
        self.keep = vec![a, b];
        STARTED_MS.store(now_ms(self.t0), Ordering::SeqCst);
        RUNNING.store(true, Ordering::SeqCst);
    }

    fn stop(&mut self) {
        RUNNING.store(false, Ordering::SeqCst);
        STARTED_MS.store(0, Ordering::SeqCst);
    }

    fn progress(&mut self, o: &fuzz::Outcome) {
        println!(
            "  … {} execs in {:.0} s, {} panics, peak heap {:.1} MB",
            o.execs,
            o.secs,
            o.panics.len(),
            PEAK.load(Ordering::Relaxed) as f64 / 1e6
        );
    }
}

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let which = args
        .first()
        .filter(|a| !a.starts_with("--"))
        .cloned()
        .unwrap_or("all".into());
    let execs = arg(&args, "--execs").and_then(|v| v.parse().ok());
    let secs: Option<f64> = arg(&args, "--secs").and_then(|v| v.parse().ok());
    let seed: u64 = arg(&args, "--seed")
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let t0 = Instant::now();
    watchdog(t0);
    let mut failed = false;
    for t in TARGETS.iter().filter(|t| which == "all" || t.name == which) {
        // A RAM disk where there is one: two small writes per execution.
        let tmp = Some(PathBuf::from("/dev/shm"))
            .filter(|p| p.is_dir())
            .unwrap_or_else(std::env::temp_dir);
        let scratch = tmp.join(format!("tracetui-fuzz-{}-{}", t.name, std::process::id()));
        let o = Options {
            target: t,
            root: root.clone(),
            execs: execs.or(if secs.is_none() { Some(10_000) } else { None }),
            secs,
            seed,
            save: root.join("tests/fuzz-regressions").join(t.name),
            scratch: scratch.clone(),
        };
        let mut caps = Caps {
            t0,
            keep: Vec::new(),
        };
        PEAK.store(LIVE.load(Ordering::Relaxed), Ordering::Relaxed);
        let out = fuzz::run(&o, &mut caps).expect("the fuzzer's own files");
        RUNNING.store(false, Ordering::SeqCst);
        STARTED_MS.store(0, Ordering::SeqCst);
        let _ = std::fs::remove_dir_all(&scratch);
        println!(
            "{:<7} {:>10} execs in {:>7.1} s = {:>7.0}/s; {:>5.1} % loaded; {} panics; 0 hangs; peak heap {:.1} MB, {:.1} MB at the end",
            t.name,
            out.execs,
            out.secs,
            out.execs as f64 / out.secs.max(1e-9),
            100.0 * out.loaded as f64 / out.execs.max(1) as f64,
            out.panics.len(),
            PEAK.load(Ordering::Relaxed) as f64 / 1e6,
            LIVE.load(Ordering::Relaxed) as f64 / 1e6,
        );
        for (p, why) in &out.panics {
            println!(
                "  panic saved as {}: {}",
                p.display(),
                why.lines().next().unwrap_or("")
            );
            failed = true;
        }
    }
    if failed {
        std::process::exit(1);
    }
}
