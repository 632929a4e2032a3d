//! An in-repo fuzzer on stable Rust: each loader run in-process on mutated
//! seeds (the fixtures and samples), every panic saved as a regression
//! fixture. `examples/fuzz/main.rs` adds the memory and time caps and runs
//! it for a count or a time; `tests/it/fuzz.rs` runs it briefly and replays
//! the saved fixtures. It is not part of the library: both include it (each
//! uses a part, so the rest is unused in one or the other).
#![allow(dead_code)]

pub mod mutate;
mod targets;

pub use targets::{Target, TARGETS};

use std::path::{Path, PathBuf};
use std::time::Instant;
use tracetui::trace::Rng;

/// One fuzzing run.
pub struct Options {
    pub target: &'static Target,
    /// The repository root (seeds are read from it).
    pub root: PathBuf,
    /// Stop after this many executions …
    pub execs: Option<u64>,
    /// … or after this many seconds.
    pub secs: Option<f64>,
    pub seed: u64,
    /// Where a panicking input is saved (`<hash>.<file name>`).
    pub save: PathBuf,
    /// A scratch directory the mutated files are written to.
    pub scratch: PathBuf,
}

/// What a run did.
#[derive(Debug, Default)]
pub struct Outcome {
    pub execs: u64,
    /// Inputs that loaded (the rest were refused with an error).
    pub loaded: u64,
    pub panics: Vec<(PathBuf, String)>,
    pub secs: f64,
}

/// Told when each execution starts (which file holds the input, where it
/// would be saved) and stops: the example's memory and time caps watch only
/// the loaders, not the fuzzer's own work.
pub trait Watch {
    fn start(&mut self, input: &Path, save: &Path);
    fn stop(&mut self);
    /// Every 2^18 executions: how far the run has got.
    fn progress(&mut self, _so_far: &Outcome) {}
}

/// No watch (the tests).
impl Watch for () {
    fn start(&mut self, _: &Path, _: &Path) {}
    fn stop(&mut self) {}
}

/// Runs the fuzzer; panics are caught, saved and counted.
pub fn run(o: &Options, watch: &mut dyn Watch) -> std::io::Result<Outcome> {
    let t = o.target;
    let seeds = t.seeds(&o.root)?;
    t.prepare(&o.root, &o.scratch)?;
    std::fs::create_dir_all(&o.save)?;
    let mut rng = Rng::new(o.seed);
    let began = Instant::now();
    let mut out = Outcome::default();
    let previous = std::panic::take_hook();
    let message = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let m = message.clone();
    std::panic::set_hook(Box::new(move |info| {
        if let Ok(mut s) = m.lock() {
            *s = info.to_string();
        }
    }));
    loop {
        if o.execs.is_some_and(|n| out.execs >= n)
            || o.secs.is_some_and(|s| began.elapsed().as_secs_f64() >= s)
        {
            break;
        }
        let (name, seed) = &seeds[rng.below(seeds.len() as u64) as usize];
        let input = mutate::mutate(seed, &mut rng);
        let file = o.scratch.join(name);
        std::fs::write(&file, &input)?;
        let saved = o
            .save
            .join(format!("{:016x}.{name}", fnv(name.as_bytes(), &input)));
        watch.start(&file, &saved);
        // One input in eight goes the whole way (stats, drill-downs,
        // indexes, a replay); the others stop at the loader.
        let deep = out.execs % 8 == 0;
        let r = std::panic::catch_unwind(|| t.exec(&o.scratch, name, deep));
        watch.stop();
        // The seed back in place for the next input that mutates another file.
        std::fs::write(&file, seed)?;
        out.execs += 1;
        if out.execs % (1 << 18) == 0 {
            out.secs = began.elapsed().as_secs_f64();
            watch.progress(&out);
        }
        match r {
            Ok(true) => out.loaded += 1,
            Ok(false) => {}
            Err(_) => {
                std::fs::write(&saved, &input)?;
                let why = message.lock().map(|s| s.clone()).unwrap_or_default();
                out.panics.push((saved, why));
            }
        }
    }
    std::panic::set_hook(previous);
    out.secs = began.elapsed().as_secs_f64();
    Ok(out)
}

/// Loads a saved input (`<hash>.<file name>`) in the seed directory of
/// `target`; an error says how it panicked.
pub fn replay(target: &Target, root: &Path, saved: &Path, scratch: &Path) -> Result<(), String> {
    target.prepare(root, scratch).map_err(|e| e.to_string())?;
    let name = saved
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.split_once('.'))
        .map(|(_, n)| n.to_string())
        .ok_or("a saved input is named <hash>.<file name>")?;
    std::fs::copy(saved, scratch.join(&name)).map_err(|e| e.to_string())?;
    std::panic::catch_unwind(|| target.exec(scratch, &name, true)).map_err(|e| {
        e.downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default()
    })?;
    Ok(())
}

/// FNV-1a over the file name and the input: a saved input's name.
pub fn fnv(name: &[u8], bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in name.iter().chain(bytes) {
        h ^= b as u64;
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    h
}
