//! The driver's end of one dialogue: its process, and the message out
//! with when it went. Kept in the dialogue (`Dialogue::link`), so it lives
//! as long as some copy of an engine may still ask, on whichever thread.

use super::child::Child;
use super::error::PolicyError;
use crate::sim::policies::exec::{self, Lookup, Question, Reply};
use std::time::{Duration, Instant};

struct Link {
    child: Child,
    /// Sent and not answered yet: the message's key (None: the hello), and when it went.
    asked: Option<(Option<u128>, Instant)>,
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
        Lookup::Said(line) => return Some(Reply::Line(line)),
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
    match link.answer(q, (by, q.timeout)) {
        Ok(line) => {
            d.record(q.pos, q.key, line.clone());
            Some(Reply::Line(line))
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

/// The dialogue's process, started and sent its hello (answered later).
fn start(q: &Question) -> Result<Link, PolicyError> {
    let mut child = Child::spawn(&q.spec.cmd, &q.spec.label)?;
    let hello = exec::hello_message(&q.spec.cmd)?;
    child.send(&hello, Instant::now() + q.timeout)?;
    Ok(Link {
        child,
        asked: Some((None, Instant::now())),
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
