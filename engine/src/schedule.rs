//! Policy schedules: `--policy-schedule "0:fifo,2d:sjf,day 5 09:00:las"`.
//!
//! Each item is `TIME:POLICY` (or `TIME:power=max|zeus`), split at the last
//! colon. TIME is `start`, trace seconds (`4553000`), an offset from the
//! first submission (`2d`, `90m`, `1d12h`, `+2h`), or a clock time as the
//! replay's go-to prompt takes it (`day 5 09:00`). An item at or before the
//! first submission sets the policy the replay starts with (so `0:fifo`
//! means "fifo from the start"). At a later time the switch happens after
//! that instant's scheduling pass, exactly like a live switch in the replay.
//! `@T` is trace second T exactly, even at the first submission: that is how
//! `S` in the replay writes a session's switches, so that running them
//! headless gives the same result.

use super::answered::{advance_to, settle};
use super::ask::Answers;
use super::engine::{Engine, Switch};
use super::metrics::Report;
use super::policy::Policy;
use crate::energy::PowerPolicy;
use crate::error::ArgError;
use std::ops::ControlFlow;
use tracetui_model::{parse_duration, parse_when, Secs, Trace};

/// A parsed policy schedule: what the replay starts with, and the
/// switches to make after.
#[derive(Debug, Clone, PartialEq)]
pub struct Schedule {
    /// The policy the replay starts with, and its power policy if one is set.
    pub start: Option<Policy>,
    /// The power-limit policy the replay starts with (`power=` at or
    /// before the first submission).
    pub start_power: Option<PowerPolicy>,
    /// Later switches, in time order.
    pub switches: Vec<(Secs, Switch)>,
}

/// The items of a schedule's text, trimmed, empty ones left out.
fn items(text: &str) -> impl Iterator<Item = &str> {
    text.split(',').map(str::trim).filter(|i| !i.is_empty())
}

/// An item as its time and what it switches to (trimmed). A time may hold
/// colons (day 5 09:00), and so may an external policy's command: that
/// one starts at `:exec:`.
fn split_item(item: &str) -> Option<(&str, &str)> {
    let (when, what) = match item.find(":exec:") {
        Some(i) => (&item[..i], &item[i + 1..]),
        None => item.rsplit_once(':')?,
    };
    Some((when, what.trim()))
}

/// The policies a schedule's text names (`sjf`, `exec:CMD[k=v]`), in its
/// order, without parsing its times: what a sweep checks its inputs by.
pub fn policy_words(text: &str) -> Vec<&str> {
    items(text)
        .filter_map(split_item)
        .map(|(_, what)| what)
        .filter(|w| !w.starts_with("power=") && !w.starts_with("placement="))
        .collect()
}

impl Schedule {
    /// Parses a schedule against a trace (its zone and first submission).
    pub fn parse(trace: &Trace, text: &str) -> Result<Schedule, ArgError> {
        Schedule::parse_with(trace, text, &mut |w| w.parse())
    }

    /// As `parse`, each item's policy named by `policy` (the command line's
    /// rules: config.toml names, parameters, the policy timeout).
    pub fn parse_with(
        trace: &Trace,
        text: &str,
        policy: &mut dyn FnMut(&str) -> Result<Policy, ArgError>,
    ) -> Result<Schedule, ArgError> {
        let first = trace.first_submit().unwrap_or(0);
        let mut s = Schedule {
            start: None,
            start_power: None,
            switches: Vec::new(),
        };
        let mut last = Secs::MIN;
        for item in items(text) {
            let (when, what) =
                split_item(item).ok_or_else(|| ArgError::NoColon(item.to_string()))?;
            let switch = if let Some(p) = what.strip_prefix("power=") {
                Switch::Power(parse_power(p)?)
            } else if let Some(p) = what.strip_prefix("placement=") {
                Switch::Placement(parse_placement(p)?)
            } else {
                Switch::Policy(policy(what).map_err(|e| ArgError::item(item, e))?)
            };
            let (t, exact) =
                parse_time(trace, first, when.trim()).map_err(|e| ArgError::item(item, e))?;
            if t < last {
                return Err(ArgError::OutOfOrder(item.to_string()));
            }
            last = t;
            match switch {
                Switch::Policy(p) if t <= first && !exact => s.start = Some(p),
                Switch::Power(p) if t <= first && !exact => s.start_power = Some(p),
                _ => s.switches.push((t, switch)),
            }
        }
        if s.start.is_none() && s.start_power.is_none() && s.switches.is_empty() {
            return Err(ArgError::EmptySchedule);
        }
        Ok(s)
    }

    /// The schedule as text that parses back to itself (trace seconds).
    pub fn text(&self) -> String {
        let mut items = Vec::new();
        if let Some(p) = self.start {
            items.push(format!("start:{p}"));
        }
        if let Some(p) = self.start_power {
            items.push(format!("start:power={}", p.name()));
        }
        for &(t, s) in &self.switches {
            items.push(match s {
                Switch::Policy(p) => format!("@{t}:{p}"),
                Switch::Power(p) => format!("@{t}:power={}", p.name()),
                Switch::Placement(p) => format!("@{t}:placement={}", p.name()),
            });
        }
        items.join(",")
    }

    /// A name for the schedule's row in `compare`.
    pub fn label(&self) -> String {
        format!("schedule {}", self.text())
    }

    /// Switches that change something, given the policies a replay starts
    /// with (a switch to the policy already in force does nothing).
    pub fn effective(
        &self,
        mut policy: Policy,
        mut power: Option<PowerPolicy>,
    ) -> Vec<(Secs, Switch)> {
        let mut out = Vec::new();
        for &(t, s) in &self.switches {
            let changes = match s {
                Switch::Policy(p) => std::mem::replace(&mut policy, p) != p,
                Switch::Power(p) => power.is_some() && power.replace(p) != Some(p),
                // Made as a switch at its time (a start placement is the run's own).
                Switch::Placement(_) => true,
            };
            if changes {
                out.push((t, s));
            }
        }
        out
    }

    /// Runs `engine` (already started with the schedule's start policies) to
    /// the end, switching as scheduled, its questions answered by `answers`.
    pub fn run(&self, mut engine: Engine, answers: &dyn Answers) -> Report {
        self.run_on(&mut engine, answers)
    }

    /// `run`, leaving the engine to be asked (e.g. for failures); a halted
    /// engine takes no further switches.
    pub fn run_on(&self, engine: &mut Engine, answers: &dyn Answers) -> Report {
        let switches = self.effective(engine.policy(), engine.power_policy());
        let _: ControlFlow<()> = drive(engine, &switches, None, answers, |_, _| {
            ControlFlow::Continue(None)
        });
        let mut r = engine.report();
        r.policy = self.label();
        r
    }
}

/// Runs `e` to the end, one event at a time, applying `switches` as their
/// times come (one after the last event too: it may start what waits) and
/// stopping also at `stop`, a time of the caller's. After every step
/// `visit` sees the engine and the stop reached, if any, and answers with
/// the next stop (kept only when one was reached), or breaks off. Stops
/// when nothing is left or a failing policy halted the engine. Questions
/// are answered by `answers` as they come.
pub fn drive<B>(
    e: &mut Engine,
    switches: &[(Secs, Switch)],
    mut stop: Option<Secs>,
    answers: &dyn Answers,
    mut visit: impl FnMut(&Engine, Option<Secs>) -> ControlFlow<B, Option<Secs>>,
) -> ControlFlow<B> {
    loop {
        let due = e.next_switch(switches).map(|s| s.0);
        let Some(event) = e.next_event_time().or(due.filter(|_| !e.halted())) else {
            return ControlFlow::Continue(());
        };
        let t = [Some(event), due, stop]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(event);
        advance_to(e, t, answers);
        while e.next_switch(switches).is_some_and(|s| s.0 <= e.now()) && !e.halted() {
            e.make_due(switches);
            settle(e, answers);
        }
        if e.halted() {
            return ControlFlow::Continue(());
        }
        let reached = stop.filter(|&s| s <= e.now());
        let then = visit(e, reached)?;
        if reached.is_some() {
            stop = then;
        }
    }
}

/// A time as a schedule item takes it (`2d`, `day 5 09:00`, `@4553000`, trace seconds).
pub fn parse_at(trace: &Trace, s: &str) -> Result<Secs, ArgError> {
    let first = trace.first_submit().unwrap_or(0);
    parse_time(trace, first, s.trim()).map(|(t, _)| t)
}

/// "The start" of the trace: just before its first submission.
const START: &str = "start";

/// The time of an item, and whether it is exact (`@T`).
fn parse_time(trace: &Trace, first: Secs, s: &str) -> Result<(Secs, bool), ArgError> {
    if s.eq_ignore_ascii_case(START) {
        return Ok((first - 1, false));
    }
    if let Some(t) = s.strip_prefix('@') {
        return t
            .trim()
            .parse::<i64>()
            .map(|t| (t, true))
            .map_err(|_| ArgError::AtSeconds);
    }
    // Bare numbers are trace seconds; `2d`, `+2h` offsets from the first
    // submission; `day 5 09:00` a clock time.
    if s.parse::<i64>().is_err() {
        let rest = s.strip_prefix('+').unwrap_or(s);
        if let Some(t) = parse_duration(rest.trim()).and_then(|d| first.checked_add(d)) {
            return Ok((t, false));
        }
    }
    Ok((parse_when(trace.zone, first, first, s)?, false))
}

fn parse_power(s: &str) -> Result<PowerPolicy, ArgError> {
    match s.trim() {
        "max" => Ok(PowerPolicy::Max),
        "zeus" => Ok(PowerPolicy::Zeus),
        other => Err(ArgError::Power(other.to_string())),
    }
}

/// A placement rule's name in a schedule (`placement=pack`).
fn parse_placement(name: &str) -> Result<crate::placement::Placement, ArgError> {
    crate::placement::Placement::from_name(&name.trim().to_ascii_lowercase())
        .ok_or_else(|| ArgError::Placement(name.trim().to_string()))
}
