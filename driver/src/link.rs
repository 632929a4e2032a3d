//! The driver's end of each dialogue: its process, and the message out
//! with when it went, kept by the dialogue's id for as long as some copy
//! of an engine may still ask in it, on whichever thread.

use super::child::Child;
use super::error::PolicyError;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tracetui_engine::{DialogueId, Known, Question, Reply, Said, Watch};

/// An answer this long is read (parsed) on a thread of its own when the
/// replay asks, so a frame never waits on it (a 264 MB answer took 1.9 s).
const READ_APART: usize = 1 << 20;

struct Link {
    child: Child,
    /// Sent and not answered yet: the message's key (None: the hello), and when it went.
    asked: Option<(Option<u128>, Instant)>,
    /// An answer being read apart: its exchange, its key, the answer.
    reading: Option<(usize, u128, Arc<Said>)>,
}

/// One dialogue's process (None until its first question, or after it failed).
struct Entry {
    watch: Watch,
    link: Mutex<Option<Link>>,
}

/// Every dialogue's process. A static because the questions come from
/// every thread that runs an engine (the replay, what-if rows, headless
/// runs) and a dialogue's copies may be asked from any of them; each
/// entry has its own lock, so one slow program holds up no other.
static LINKS: Mutex<Option<HashMap<DialogueId, Arc<Entry>>>> = Mutex::new(None);

fn links() -> MutexGuard<'static, Option<HashMap<DialogueId, Arc<Entry>>>> {
    LINKS.lock().unwrap_or_else(|p| p.into_inner())
}

/// Why the program gave no answer.
enum Miss {
    /// Not by the deadline given (asked again, it waits on).
    Later,
    /// Another message of the dialogue is out.
    Diverged,
    Failed(PolicyError),
}

/// Ends the processes of dialogues no engine can ask in any more. They
/// are dropped (their processes ended) outside the map's lock.
pub(super) fn reap() {
    let gone: Vec<Arc<Entry>> = {
        let mut map = links();
        let Some(m) = map.as_mut() else {
            return;
        };
        let dead: Vec<DialogueId> = m
            .iter()
            .filter(|(_, e)| !e.watch.alive())
            .map(|(id, _)| *id)
            .collect();
        dead.iter().filter_map(|id| m.remove(id)).collect()
    };
    drop(gone);
}

/// The entry of `q`'s dialogue, made if it has none (or if the one under
/// its id was of a dialogue since dropped).
fn entry(q: &Question) -> Arc<Entry> {
    let mut map = links();
    let m = map.get_or_insert_with(HashMap::new);
    let id = q.dialogue();
    match m.get(&id) {
        Some(e) if e.watch.is_of(q) => e.clone(),
        _ => {
            let e = Arc::new(Entry {
                watch: q.watch(),
                link: Mutex::new(None),
            });
            // One it replaces is dropped with the guard's lock released.
            let old = m.insert(id, e.clone());
            drop(map);
            drop(old);
            e
        }
    }
}

/// The dialogue's program failed: no copy may use it or its process again.
fn give_up(q: &Question, link: &mut Option<Link>) {
    q.give_up();
    *link = None;
}

pub(super) fn ask(q: &Question, by: Option<Instant>) -> Option<Reply> {
    reap();
    let entry = entry(q);
    let mut held = entry.link.lock().unwrap_or_else(|p| p.into_inner());
    match q.known() {
        Known::Answered => return Some(Reply::Recorded),
        Known::Diverged => return Some(Reply::Diverged),
        Known::Open => {}
    }
    if held.is_none() {
        match start(q) {
            Ok(link) => *held = Some(link),
            Err(why) => {
                give_up(q, &mut held);
                return Some(Reply::Failed(why.to_string()));
            }
        }
    }
    let link = held.as_mut().expect("started above");
    if let Some((pos, key, said)) = link.reading.take() {
        if (pos, key) != q.exchange() || said.is_read() {
            q.record((pos, key), said);
            return Some(if (pos, key) == q.exchange() {
                Reply::Recorded
            } else {
                Reply::Diverged
            });
        }
        link.reading = Some((pos, key, said));
        return None;
    }
    match link.answer(q, (by, q.timeout())) {
        Ok(line) => {
            let said = Said::new(line);
            if by.is_some() && said.bytes() >= READ_APART && read_apart(&said) {
                let (pos, key) = q.exchange();
                link.reading = Some((pos, key, said));
                return None;
            }
            q.record(q.exchange(), said);
            Some(Reply::Recorded)
        }
        Err(Miss::Later) => None,
        Err(Miss::Diverged) => Some(Reply::Diverged),
        Err(Miss::Failed(why)) => {
            // The process is out of step (a late answer may still come):
            // no copy may use it or its answers again.
            give_up(q, &mut held);
            Some(Reply::Failed(why.to_string()))
        }
    }
}

/// Starts reading `said` on a thread of its own; false if none could start.
fn read_apart(said: &Arc<Said>) -> bool {
    let said = said.clone();
    std::thread::Builder::new()
        .name("policy-answer".into())
        .spawn(move || said.read_now())
        .is_ok()
}

/// The dialogue's process, started and sent its hello (answered later).
fn start(q: &Question) -> Result<Link, PolicyError> {
    let mut child = Child::spawn(q.command(), q.label(), false)?;
    let hello = q.hello()?;
    child.send(&hello, Instant::now() + q.timeout())?;
    Ok(Link {
        child,
        asked: Some((None, Instant::now())),
        reading: None,
    })
}

impl Link {
    /// The program's answer to `q`: its hello checked first if that is
    /// still out, `q`'s message sent unless it is the one already out.
    fn answer(
        &mut self,
        q: &Question,
        (by, timeout): (Option<Instant>, Duration),
    ) -> Result<String, Miss> {
        if let Some((None, since)) = self.asked {
            let line = self.reply(since, (by, timeout))?;
            self.asked = None;
            q.check_hello(&line).map_err(|e| Miss::Failed(e.into()))?;
        }
        let key = q.exchange().1;
        let since = match self.asked {
            Some((Some(k), _)) if k != key => return Err(Miss::Diverged),
            Some((_, since)) => since,
            None => {
                self.child
                    .send(q.message(), Instant::now() + timeout)
                    .map_err(Miss::Failed)?;
                let now = Instant::now();
                self.asked = Some((Some(key), now));
                now
            }
        };
        let line = self.reply(since, (by, timeout))?;
        self.asked = None;
        Ok(line)
    }

    /// The reply to what went at `since`, if it comes by `by` and within the timeout.
    fn reply(
        &mut self,
        since: Instant,
        (by, timeout): (Option<Instant>, Duration),
    ) -> Result<String, Miss> {
        let limit = since + timeout;
        let until = by.map_or(limit, |b| b.min(limit));
        match self.child.reply_by(until) {
            Ok(Some(line)) => Ok(line),
            Ok(None) if Instant::now() >= limit => Err(Miss::Failed(PolicyError::Timeout(timeout))),
            Ok(None) => Err(Miss::Later),
            Err(why) => Err(Miss::Failed(why)),
        }
    }
}
