//! Sorting (`s`) and filtering (`f`) the side pane's lists, as in k9s and
//! htop: the queue and the running jobs by wait, GPUs, run time or user;
//! only the jobs of a user, group or VC, GPU type or state. The grid dims
//! the machines whose jobs are filtered out.

use crate::sim::{Engine, Phase};
use crate::trace::Trace;

/// The lists' order: the policy's (queue) and most recent first (running),
/// or by one figure for both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Sort {
    #[default]
    Policy,
    /// Longest waiting (queue) or running (running) first.
    Wait,
    /// Most GPUs first.
    Gpus,
    /// Longest run time first (unknown last).
    Runtime,
    /// By user name.
    User,
}

impl Sort {
    pub(crate) fn next(self) -> Sort {
        match self {
            Sort::Policy => Sort::Wait,
            Sort::Wait => Sort::Gpus,
            Sort::Gpus => Sort::Runtime,
            Sort::Runtime => Sort::User,
            Sort::User => Sort::Policy,
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Sort::Policy => "policy order",
            Sort::Wait => "wait",
            Sort::Gpus => "GPUs",
            Sort::Runtime => "run time",
            Sort::User => "user",
        }
    }
}

/// A filter as typed: words, each `user=…`, `group=…`, `gpu=…`, `state=…`
/// or a bare word matching any of them; a job must match every word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Filter {
    pub text: String,
    words: Vec<(Option<String>, String)>,
}

impl Filter {
    /// The filter in `text`, or why it cannot be one.
    pub(crate) fn parse(text: &str) -> Result<Filter, super::error::UiError> {
        let mut words = Vec::new();
        for w in text.split_whitespace() {
            let (key, value) = match w.split_once('=') {
                Some((k, v)) => (Some(k.to_lowercase()), v.to_string()),
                None => (None, w.to_string()),
            };
            if let Some(k) = &key {
                if !["user", "group", "vc", "gpu", "state"].contains(&k.as_str()) {
                    return Err(super::error::UiError::FilterKey(k.clone()));
                }
                // Only what a job can be (`state=idle` matched nothing, silently).
                let known = ["queued", "running", "waiting"];
                if k == "state"
                    && (value.is_empty()
                        || !known.iter().any(|s| s.starts_with(&value.to_lowercase())))
                {
                    return Err(super::error::UiError::FilterState(value));
                }
            }
            words.push((key, value));
        }
        Ok(Filter {
            text: text.trim().to_string(),
            words,
        })
    }

    /// Whether job `j` passes.
    pub(crate) fn matches(&self, trace: &Trace, e: &Engine, j: u32) -> bool {
        let job = &trace.jobs[j as usize];
        let user = trace.sym(job.user);
        let group = trace.sym(job.group);
        let gpu = job
            .gpu_type
            .map_or("", |t| trace.cluster.gpu_types[t as usize].as_str());
        // A running job is also of the type of the GPUs it holds.
        let on_type = |v: &str| {
            e.running().get(&j).is_some_and(|grants| {
                grants.iter().filter(|g| g.has_gpu()).any(|g| {
                    let t = trace.cluster.machines[g.machine as usize].gpu_type;
                    trace.cluster.gpu_types[t as usize].eq_ignore_ascii_case(v)
                })
            })
        };
        let state = match e.job_state(j).phase {
            Phase::Queued => "queued",
            Phase::Running => "running",
            _ => "",
        };
        self.words.iter().all(|(k, v)| match k.as_deref() {
            Some("user") => user == v,
            Some("group" | "vc") => group == v,
            Some("gpu") => gpu.eq_ignore_ascii_case(v) || on_type(v),
            // `waiting` is what the queue's jobs do: the same as queued.
            Some("state") => {
                let v = v.to_lowercase();
                state.starts_with(&v) || (state == "queued" && "waiting".starts_with(&v))
            }
            _ => {
                user == v
                    || group == v
                    || gpu.eq_ignore_ascii_case(v)
                    || on_type(v)
                    || (!state.is_empty() && state.starts_with(v.as_str()))
            }
        })
    }
}

/// The side pane's two lists, as shown: the queue and the running jobs,
/// filtered and sorted, each with its whole length; at most `limit` of each.
pub(crate) struct Lists {
    pub queued: Vec<u32>,
    pub queued_n: usize,
    pub running: Vec<u32>,
    pub running_n: usize,
}

/// The running jobs, most recently started first.
fn running_in_order(e: &Engine) -> Vec<u32> {
    let mut running: Vec<(i64, u32)> = e
        .running()
        .keys()
        .map(|&j| (e.job_state(j).start, j))
        .collect();
    running.sort_unstable_by(|a, b| b.cmp(a));
    running.into_iter().map(|r| r.1).collect()
}

/// The lists in `e` under `sort` and `filter`, at most `limit` of each.
pub(crate) fn lists(
    (trace, e): (&Trace, &Engine),
    sort: Sort,
    filter: Option<&Filter>,
    limit: usize,
) -> Lists {
    let mut running = running_in_order(e);
    if sort == Sort::Policy && filter.is_none() {
        let running_n = running.len();
        running.truncate(limit);
        return Lists {
            queued: e.queue_in_order(limit),
            queued_n: e.queue_len(),
            running,
            running_n,
        };
    }
    let mut queued = e.queue_in_order(usize::MAX);
    if let Some(f) = filter {
        queued.retain(|&j| f.matches(trace, e, j));
        running.retain(|&j| f.matches(trace, e, j));
    }
    sort_jobs((trace, e), sort, &mut queued);
    sort_jobs((trace, e), sort, &mut running);
    let (queued_n, running_n) = (queued.len(), running.len());
    queued.truncate(limit);
    running.truncate(limit);
    Lists {
        queued,
        queued_n,
        running,
        running_n,
    }
}

/// Sorts a list (kept in its own order among equals).
fn sort_jobs((trace, e): (&Trace, &Engine), sort: Sort, jobs: &mut [u32]) {
    let now = e.now();
    match sort {
        Sort::Policy => {}
        Sort::Wait => jobs.sort_by_key(|&j| {
            let st = e.job_state(j);
            let since = if st.phase == Phase::Running {
                st.start
            } else {
                trace.jobs[j as usize].submit
            };
            since - now
        }),
        Sort::Gpus => jobs.sort_by(|&a, &b| {
            let g = |j: u32| trace.jobs[j as usize].gpus_display();
            g(b).total_cmp(&g(a))
        }),
        Sort::Runtime => jobs.sort_by_key(|&j| std::cmp::Reverse(trace.jobs[j as usize].runtime)),
        Sort::User => jobs.sort_by(|&a, &b| {
            let u = |j: u32| trace.sym(trace.jobs[j as usize].user);
            u(a).cmp(u(b))
        }),
    }
}
