//! The driver's end of one dialogue: its process, and the message out
//! with when it went. Kept in the dialogue (`Dialogue::link`), so it lives
//! as long as some copy of an engine may still ask, on whichever thread.

use super::child::Child;
use super::error::PolicyError;
use crate::sim::policies::exec::{self, Lookup, Question, Reply, Said};
use std::sync::Arc;
use std::time::{Duration, Instant};

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

/// Why the program gave no answer.
enum Miss {
    /// Not by the deadline given (asked again, it waits on).
    Later,
    /// Another message of the dialogue is out.
    Diverged,
    Failed(PolicyError),
}

pub(super) fn ask(q: &Question, by: Option<Instant>) -> Option<Reply> {
    let mut d = exec::lock(&q.dialogue);
    match d.lookup(q.pos, q.key) {
        Lookup::Said(_) => return Some(Reply::Recorded),
        Lookup::Diverged => return Some(Reply::Diverged),
        Lookup::Frontier => {}
    }
    if d.link.is_none() {
        match start(q) {
            Ok(link) => d.link = Some(Box::new(link)),
            Err(why) => {
                d.give_up();
                return Some(Reply::Failed(why.to_string()));
            }
        }
    }
    let link = d
        .link
        .as_mut()
        .and_then(|l| l.downcast_mut::<Link>())
        .expect("a dialogue's link is the driver's");
    if let Some((pos, key, said)) = link.reading.take() {
        if (pos, key) != (q.pos, q.key) || said.is_read() {
            d.record(pos, key, said);
            return Some(if (pos, key) == (q.pos, q.key) {
                Reply::Recorded
            } else {
                Reply::Diverged
            });
        }
        link.reading = Some((pos, key, said));
        return None;
    }
    match link.answer(q, (by, q.timeout)) {
        Ok(line) => {
            let said = Said::new(line);
            if by.is_some() && said.line.len() >= READ_APART && read_apart(&said) {
                link.reading = Some((q.pos, q.key, said));
                return None;
            }
            d.record(q.pos, q.key, said);
            Some(Reply::Recorded)
        }
        Err(Miss::Later) => None,
        Err(Miss::Diverged) => Some(Reply::Diverged),
        Err(Miss::Failed(why)) => {
            // The process is out of step (a late answer may still come):
            // no copy may use it or its answers again.
            d.give_up();
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
    let mut child = Child::spawn(&q.spec.cmd, &q.spec.label, false)?;
    let hello = exec::hello_message(&q.spec.cmd)?;
    child.send(&hello, Instant::now() + q.timeout)?;
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
            exec::check_hello(&q.spec, &line).map_err(|e| Miss::Failed(e.into()))?;
        }
        let since = match self.asked {
            Some((Some(k), _)) if k != q.key => return Err(Miss::Diverged),
            Some((_, since)) => since,
            None => {
                self.child
                    .send(&q.message, Instant::now() + timeout)
                    .map_err(Miss::Failed)?;
                let now = Instant::now();
                self.asked = Some((Some(q.key), now));
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
