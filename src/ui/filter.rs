//! Sorting (`s`) and filtering (`f`) the side pane's lists, as in k9s and
//! htop: the queue and the running jobs by wait, GPUs, run time or user;
//! only the jobs of a user, group or VC, GPU type or state. The grid dims
//! the machines whose jobs are filtered out.

use super::app::App;
use crate::sim::Phase;

/// The lists' order: the policy's (queue) and most recent first (running),
/// or by one figure for both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Sort {
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
    pub fn next(self) -> Sort {
        match self {
            Sort::Policy => Sort::Wait,
            Sort::Wait => Sort::Gpus,
            Sort::Gpus => Sort::Runtime,
            Sort::Runtime => Sort::User,
            Sort::User => Sort::Policy,
        }
    }

    pub fn name(self) -> &'static str {
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
pub struct Filter {
    pub text: String,
    words: Vec<(Option<String>, String)>,
}

impl Filter {
    /// The filter in `text`, or why it cannot be one.
    pub fn parse(text: &str) -> Result<Filter, super::error::UiError> {
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
            }
            words.push((key, value));
        }
        Ok(Filter {
            text: text.trim().to_string(),
            words,
        })
    }

    /// Whether job `j` passes.
    pub fn matches(&self, app: &App, j: u32) -> bool {
        let trace = app.trace();
        let job = &trace.jobs[j as usize];
        let user = trace.sym(job.user);
        let group = trace.sym(job.group);
        let gpu = job
            .gpu_type
            .map_or("", |t| trace.cluster.gpu_types[t as usize].as_str());
        // A running job is also of the type of the GPUs it holds.
        let on_type = |v: &str| {
            app.engine().running().get(&j).is_some_and(|grants| {
                grants.iter().any(|g| {
                    let t = trace.cluster.machines[g.machine as usize].gpu_type;
                    trace.cluster.gpu_types[t as usize].eq_ignore_ascii_case(v)
                })
            })
        };
        let state = match app.engine().job_state(j).phase {
            Phase::Queued => "queued",
            Phase::Running => "running",
            _ => "",
        };
        self.words.iter().all(|(k, v)| match k.as_deref() {
            Some("user") => user == v,
            Some("group" | "vc") => group == v,
            Some("gpu") => gpu.eq_ignore_ascii_case(v) || on_type(v),
            Some("state") => state.starts_with(v.as_str()),
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
pub struct Lists {
    pub queued: Vec<u32>,
    pub queued_n: usize,
    pub running: Vec<u32>,
    pub running_n: usize,
}

pub fn lists(app: &App, limit: usize) -> Lists {
    let e = app.engine();
    let (sort, filter) = (app.view.sort, app.view.filter.as_ref());
    let mut running = super::queue::running_in_order(app);
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
        queued.retain(|&j| f.matches(app, j));
        running.retain(|&j| f.matches(app, j));
    }
    sort_jobs(app, sort, &mut queued);
    sort_jobs(app, sort, &mut running);
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
fn sort_jobs(app: &App, sort: Sort, jobs: &mut [u32]) {
    let trace = app.trace();
    let e = app.engine();
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
