//! `/`: a job by id (exact, else by prefix), a machine by name, or a user
//! or group (their waiting and running jobs; by the whole name, else by
//! its start, as ids are typed). The same text again goes to the next
//! match.
//!
//! The feature's state (`Finder`: the last query and the match shown) and
//! its matching here; what showing a match does to the app in `actions.rs`.

mod actions;

use crate::sim::{Engine, Phase};
use crate::trace::Trace;

/// Matches listed at most (the count said is exact up to it).
const MAX_MATCHES: usize = 10_000;

/// What a query can match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Match {
    Job(u32),
    Machine(usize),
}

/// The last `/` query and which of its matches is shown.
#[derive(Debug, Default)]
pub(crate) struct Finder {
    last: Option<(String, usize)>,
}

impl Finder {
    /// Which of `count` matches of `q` to show: the next after the one
    /// shown if `q` is the last query, else the first.
    fn next(&mut self, q: &str, count: usize) -> usize {
        let i = match &self.last {
            Some((last, i)) if last == q => (i + 1) % count.max(1),
            _ => 0,
        };
        self.last = Some((q.to_string(), i));
        i
    }

    /// Nothing matched: the next query starts from its first match.
    fn forget(&mut self) {
        self.last = None;
    }
}

/// Jobs by exact id, then by prefix; machines by name or prefix; then
/// the waiting and running jobs of a user or group of that name, then of
/// those whose name starts with it.
fn matches((trace, e): (&Trace, &Engine), q: &str) -> Vec<Match> {
    let mut out: Vec<Match> = Vec::new();
    if let Some(j) = trace.jobs.iter().position(|j| j.id == q) {
        out.push(Match::Job(j as u32));
    }
    let by_prefix = trace
        .jobs_with_id_prefix(q)
        .filter(|&i| trace.jobs[i as usize].id != q)
        .map(Match::Job);
    out.extend(by_prefix.take(MAX_MATCHES));
    let machines = trace
        .cluster
        .machines
        .iter()
        .enumerate()
        .filter(|(_, m)| m.name.starts_with(q))
        .map(|(i, _)| Match::Machine(i));
    out.extend(machines.take(MAX_MATCHES));
    // 0: the owner's whole name; 1: its start.
    let owner = |u: &str, g: &str| {
        if u == q || g == q {
            Some(0u8)
        } else if !q.is_empty() && (u.starts_with(q) || g.starts_with(q)) {
            Some(1)
        } else {
            None
        }
    };
    let mut owned: Vec<(u8, u32)> = trace
        .jobs
        .iter()
        .enumerate()
        .filter_map(|(i, j)| owner(trace.sym(j.user), trace.sym(j.group)).map(|r| (r, i as u32)))
        .filter(|&(_, i)| matches!(e.job_state(i).phase, Phase::Queued | Phase::Running))
        .collect();
    owned.sort_by_key(|&(r, _)| r);
    let owned: Vec<Match> = owned.into_iter().map(|(_, i)| Match::Job(i)).collect();
    // A job found by its id too is not listed twice.
    let seen: std::collections::HashSet<Match> = out.iter().copied().collect();
    out.extend(
        owned
            .into_iter()
            .filter(|m| !seen.contains(m))
            .take(MAX_MATCHES),
    );
    out.dedup();
    out.truncate(MAX_MATCHES);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_query_goes_round_its_matches_and_another_starts_over() {
        let mut f = Finder::default();
        assert_eq!([f.next("a", 3), f.next("a", 3), f.next("a", 3)], [0, 1, 2]);
        assert_eq!(f.next("a", 3), 0);
        assert_eq!(f.next("a", 3), 1);
        assert_eq!(f.next("b", 3), 0);
        f.forget();
        assert_eq!(f.next("b", 3), 0);
    }
}
