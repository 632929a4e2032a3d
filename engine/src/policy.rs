//! Scheduling policies as an open set.
//!
//! A policy is a [`Rule`] (its name, what it is, which walk it uses, whether a
//! trace supports it) that makes fresh [`Books`] for each replay: the state it
//! keeps and the keys it orders jobs by. The built-in rules live one per file
//! in `super::policies`; more can be registered at run time in a
//! `Policies` registry (`registry.rs`), a value the application keeps. A
//! [`Policy`] is a small copyable handle to its rule, so events, schedules
//! and switches stay cheap.

use super::error::ArgError;
pub use super::rule::{Books, KeyMeaning, Rule, Unavailable, Walk};
use std::fmt;
use std::str::FromStr;
use tracetui_model::Trace;

/// A policy: a handle to its rule, small and copyable, so events,
/// schedules and switches stay cheap. The built-ins have named handles
/// (`Policy::Fifo` …, declared with their list in `policies/mod.rs`); others
/// come from a `Policies` registry (`register`). Two handles are the same
/// policy when they name the same rule (names are unique in a registry).
#[derive(Clone, Copy)]
pub struct Policy(&'static dyn Rule);

impl PartialEq for Policy {
    fn eq(&self, other: &Policy) -> bool {
        // By name, not address: the built-in rules are zero-sized, so
        // references to two of them may share an address.
        self.name() == other.name()
    }
}

impl Eq for Policy {}

impl std::hash::Hash for Policy {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.name().hash(h)
    }
}

impl Policy {
    /// The handle of `rule`.
    pub const fn of(rule: &'static dyn Rule) -> Policy {
        Policy(rule)
    }

    /// The rule this handle names.
    pub fn rule(self) -> &'static dyn Rule {
        self.0
    }

    /// The built-ins, in the order lists show them.
    pub fn built_in() -> &'static [Policy] {
        super::policies::BUILT_IN
    }

    /// The rule's name: on the command line and in schedules, unique in a
    /// registry (handles compare by it).
    pub fn name(self) -> &'static str {
        self.rule().name()
    }

    /// One line for the picker and `--help`.
    pub fn describe(self) -> &'static str {
        self.rule().describe()
    }

    /// The name results show: a built-in's name, an external policy's
    /// label (the name its hello gave, unique among the policies).
    pub fn title(self) -> &'static str {
        match self.rule().command() {
            Some(_) => self.rule().label(),
            None => self.rule().name(),
        }
    }

    /// The program behind an external policy.
    pub fn command(self) -> Option<&'static str> {
        self.rule().command()
    }

    /// The name an external policy gave itself (its label may be another,
    /// from config.toml or made unique).
    pub fn hello_name(self) -> Option<&'static str> {
        self.rule().hello_name()
    }

    /// A short name for narrow places (the replay's header, the queue's
    /// title): the name unless the rule has a shorter one.
    pub fn label(self) -> &'static str {
        self.rule().label()
    }

    /// How its scheduling passes walk the queue.
    pub fn walk(self) -> Walk {
        self.rule().walk()
    }

    /// What its queue keys mean, to show a waiting job's key.
    pub fn key_meaning(self) -> KeyMeaning {
        self.rule().key_meaning()
    }

    /// Whether it may take a running job's GPUs.
    pub fn preempts(self) -> bool {
        self.rule().preempts()
    }

    /// Its description under `tuning`: a policy that orders by run time
    /// names the estimate it is told where that is not the truth
    /// (`shortest run time first (run times: lognormal:0.5 (seed 1))`).
    pub fn describe_under(self, tuning: &crate::tuning::Tuning) -> String {
        let about = self.describe();
        if tuning.estimate.is_oracle() || !self.rule().orders_by_runtime() {
            return about.to_string();
        }
        let plain = match about.rfind(" (oracle") {
            Some(i) if about.ends_with(')') => &about[..i],
            _ => about,
        };
        format!("{plain} (run times: {})", tuning.estimate)
    }

    /// Whether it runs only on machines all of one size (gandiva): a
    /// cluster sized by `--load` for it is whole machines.
    pub fn whole_machines(self) -> bool {
        self.rule().whole_machines()
    }

    /// Whether it decides in ElasticFlow's rounds, `--rounds` apart
    /// (elasticflow, ef, edf-elastic).
    pub fn in_rounds(self) -> bool {
        self.rule().in_rounds()
    }

    /// What to know before running it on `trace` (it runs all the same).
    pub fn caveat(self, trace: &Trace, tuning: &crate::tuning::Tuning) -> Option<String> {
        self.rule().caveat(trace, tuning)
    }

    /// Whether `trace` supports it; if not, what the trace lacks (`check`
    /// makes that an error for the command line).
    pub fn available(self, trace: &Trace) -> Result<(), Unavailable> {
        self.rule().available(trace)
    }

    /// Refuses a policy `trace` cannot support, saying what is missing and
    /// what would do instead.
    pub fn check(self, trace: &Trace) -> Result<(), ArgError> {
        let Err(u) = self.available(trace) else {
            return Ok(());
        };
        let cluster_rules = [
            crate::rule::PART_MACHINE,
            crate::rule::MIXED_TYPES,
            crate::rule::NODE_SIZE,
        ];
        if cluster_rules.contains(&u.short.as_str()) {
            return Err(ArgError::PartMachine {
                policy: self.name().to_string(),
                why: u.lacks,
                hint: u.hint.unwrap_or_default(),
            });
        }
        let others: Vec<&str> = Policy::built_in()
            .iter()
            .filter(|p| p.available(trace).is_ok() && p.walk() != Walk::Recorded)
            .map(|p| p.name())
            .collect();
        Err(ArgError::Unavailable {
            policy: self.name().to_string(),
            lacks: u.lacks.to_string(),
            format: trace.format.to_string(),
            hint: u.hint.map(|h| format!(" ({h})")).unwrap_or_default(),
            others: others.join(", "),
        })
    }
}

impl fmt::Debug for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Policy({})", self.name())
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Policy {
    type Err = ArgError;

    /// A built-in's name or alias (a registry's `Policies::parse` knows
    /// the policies registered in it too; parsing starts nothing).
    fn from_str(s: &str) -> Result<Policy, ArgError> {
        named(Policy::built_in(), s)
    }
}

/// The policy of `known` called `s` (trimmed; any case for a built-in's
/// name or alias); `exec:CMD` not among them is a program not started.
pub(crate) fn named(known: &[Policy], s: &str) -> Result<Policy, ArgError> {
    if let Some(&p) = known.iter().find(|p| p.name() == s.trim()) {
        return Ok(p);
    }
    if let Some(cmd) = s.trim().strip_prefix("exec:") {
        return Err(ArgError::NotStarted(cmd.trim().to_string()));
    }
    let s = s.trim().to_ascii_lowercase();
    known
        .iter()
        .copied()
        .find(|p| p.name() == s || p.rule().aliases().contains(&s.as_str()))
        .ok_or_else(|| ArgError::UnknownPolicy {
            name: s.clone(),
            known: known
                .iter()
                .map(|p| p.name())
                .collect::<Vec<_>>()
                .join(", "),
        })
}

/// A comma-separated list of policies, each named by `name` (`str::parse`,
/// or the driver's resolver where programs may be named).
pub fn parse_list(
    s: &str,
    name: &mut dyn FnMut(&str) -> Result<Policy, ArgError>,
) -> Result<Vec<Policy>, ArgError> {
    let v: Result<Vec<Policy>, ArgError> = s
        .split(',')
        .filter(|p| !p.trim().is_empty())
        .map(&mut *name)
        .collect();
    let v = v?;
    if v.is_empty() {
        return Err(ArgError::NoPolicies);
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for &p in Policy::built_in() {
            assert_eq!(p.name().parse::<Policy>().unwrap(), p);
        }
        assert_eq!("backfill".parse::<Policy>().unwrap(), Policy::FifoBackfill);
        assert!("lifo"
            .parse::<Policy>()
            .unwrap_err()
            .to_string()
            .contains("choose from"));
        assert_eq!(
            parse_list("fifo, sjf", &mut |n| n.parse()).unwrap(),
            vec![Policy::Fifo, Policy::Sjf]
        );
        assert!(parse_list(",", &mut |n| n.parse()).is_err());
    }

    #[test]
    fn built_in_handles_name_their_rules() {
        let names: Vec<&str> = Policy::built_in()
            .iter()
            .take(10)
            .map(|p| p.name())
            .collect();
        assert_eq!(
            names,
            [
                "recorded",
                "fifo",
                "first-fit",
                "fifo-backfill",
                "sjf",
                "sgf",
                "srtf",
                "las",
                "fair",
                "edf"
            ]
        );
        assert_eq!(Policy::Las.name(), "las");
        assert!(Policy::Fair.preempts() && !Policy::Sjf.preempts());
    }
}
