//! Load cache files written on threads of their own once the trace is
//! shown, and waited for before the process exits (a file half written is
//! never read, but then the next open reads the tables again).

use std::path::PathBuf;
use std::sync::Mutex;
use std::thread::JoinHandle;
use tracetui_model::CacheWrite;

/// The writes under way.
static WRITES: Mutex<Vec<JoinHandle<Option<std::io::Result<PathBuf>>>>> = Mutex::new(Vec::new());

/// Starts writing `w` beside whatever runs now.
pub fn start(w: CacheWrite) {
    let spawned = std::thread::Builder::new()
        .name("load cache".into())
        .spawn(move || {
            let done = w.run();
            match &done {
                Some(Ok(path)) => log::info!("load cache written: {}", path.display()),
                Some(Err(e)) => log::warn!(
                    "the load cache could not be written ({e}): the next open reads the tables again"
                ),
                None => {}
            }
            done
        });
    if let (Ok(h), Ok(mut all)) = (spawned, WRITES.lock()) {
        all.push(h);
    }
}

/// Waits for the writes under way: each file written, or why not.
pub fn finish() -> Vec<std::io::Result<PathBuf>> {
    let handles = WRITES
        .lock()
        .map(|mut w| std::mem::take(&mut *w))
        .unwrap_or_default();
    handles
        .into_iter()
        .filter_map(|h| {
            h.join()
                .unwrap_or_else(|_| Some(Err(std::io::Error::other("the writer panicked"))))
        })
        .collect()
}
