//! A policy as the command line names it (`--policy`, `--policies`, a
//! schedule's items): a built-in, `exec:CMD`, or a name from config.toml's
//! `[policies]`, each with optional `[key=value,…]` parameters. The text is
//! checked when the options are read; an external program is started and
//! asked who it is only once every option is read, so `--policy-timeout`
//! applies and a failure is the policy's error (exit 1) with what it wrote
//! on stderr, not a usage error.

use crate::driver::ExecSpec;
use crate::sim::{ArgError, Params, Policies, Policy};
use clap::Args;
use color_eyre::eyre::{eyre, Result};
use std::str::FromStr;
use std::time::Duration;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PolicyArg {
    Known(Policy),
    Exec(ExecSpec),
}

impl FromStr for PolicyArg {
    type Err = ArgError;

    fn from_str(s: &str) -> Result<PolicyArg, ArgError> {
        let (base, params) = split_params(s.trim())?;
        if let Some(cmd) = base.strip_prefix("exec:") {
            if cmd.trim().is_empty() {
                return Err(ArgError::NoCommand);
            }
            return Ok(PolicyArg::Exec(ExecSpec {
                cmd: cmd.trim().to_string(),
                label: None,
                params,
            }));
        }
        let known = match base.parse::<Policy>() {
            Ok(p) if params.is_empty() => return Ok(PolicyArg::Known(p)),
            Ok(p) => return Err(ArgError::BuiltinParams(p.name().to_string())),
            Err(ArgError::UnknownPolicy { known, .. }) => known,
            Err(e) => return Err(e),
        };
        let config = crate::config::user_policies();
        if let Some((name, cmd)) = config.iter().find(|(n, _)| n == base) {
            return Ok(PolicyArg::Exec(ExecSpec {
                cmd: cmd.clone(),
                label: Some(name.clone()),
                params,
            }));
        }
        let mine: Vec<&str> = config.iter().map(|(n, _)| n.as_str()).collect();
        Err(ArgError::UnknownPolicy {
            name: base.to_string(),
            known: if mine.is_empty() {
                known
            } else {
                format!("{known}; from config.toml: {}", mine.join(", "))
            },
        })
    }
}

/// `NAME[k=v,k2=v2]` as the name and its parameters; a bracket that holds
/// no `=` is part of the name (a command may end in one).
fn split_params(s: &str) -> Result<(&str, Params), ArgError> {
    let mut params = Params::new();
    let Some(body) = s.strip_suffix(']') else {
        return Ok((s, params));
    };
    let Some(open) = body.rfind('[') else {
        return Ok((s, params));
    };
    let inside = &body[open + 1..];
    if !inside.contains('=') {
        return Ok((s, params));
    }
    for item in inside
        .split([',', ';'])
        .map(str::trim)
        .filter(|i| !i.is_empty())
    {
        let bad = || ArgError::Param(item.to_string());
        let (k, v) = item.split_once('=').ok_or_else(bad)?;
        let (k, v) = (k.trim(), v.trim());
        let key_ok = k.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && k.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
        if !key_ok || v.is_empty() || v.contains(|c: char| c.is_control()) {
            return Err(bad());
        }
        if params.insert(k.to_string(), v.to_string()).is_some() {
            return Err(ArgError::ParamTwice(k.to_string()));
        }
    }
    Ok((body[..open].trim_end(), params))
}

/// A comma-separated list of policies (`compare --policies`): commas
/// inside a parameter list (`mine[a=1,b=2]`) do not split it.
pub fn parse_list(s: &str) -> Result<Vec<PolicyArg>, ArgError> {
    let mut items = Vec::new();
    let (mut depth, mut from) = (0usize, 0);
    for (i, c) in s.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                items.push(&s[from..i]);
                from = i + 1;
            }
            _ => {}
        }
    }
    items.push(&s[from..]);
    let v = items
        .into_iter()
        .filter(|p| !p.trim().is_empty())
        .map(str::parse)
        .collect::<Result<Vec<PolicyArg>, ArgError>>()?;
    if v.is_empty() {
        return Err(ArgError::NoPolicies);
    }
    Ok(v)
}

/// Every policy named, the external ones started and asked who they are
/// (all at once, each given `timeout`) and registered in `policies`, in the
/// order given.
pub fn resolve_all(
    args: &[PolicyArg],
    timeout: Duration,
    policies: &mut Policies,
) -> Result<Vec<Policy>> {
    let specs: Vec<ExecSpec> = args
        .iter()
        .filter_map(|a| match a {
            PolicyArg::Exec(s) => Some(s.clone()),
            PolicyArg::Known(_) => None,
        })
        .collect();
    let mut named = crate::driver::register_all(&specs, timeout, policies).into_iter();
    args.iter()
        .map(|a| match a {
            PolicyArg::Known(p) => Ok(*p),
            PolicyArg::Exec(_) => match named.next() {
                Some(r) => r.map_err(|e| eyre!(e)),
                None => Err(eyre!(
                    "a policy was not asked who it is (a bug in tracetui)"
                )),
            },
        })
        .collect()
}

/// One policy: a built-in as it is, an external one asked who it is and
/// registered in `policies`.
pub fn resolve(
    arg: &PolicyArg,
    timeout: Duration,
    policies: &mut Policies,
) -> Result<Policy, ArgError> {
    match arg {
        PolicyArg::Known(p) => Ok(*p),
        PolicyArg::Exec(spec) => crate::driver::register_spec(spec, timeout, policies),
    }
}

/// A schedule item's policy: parsed and named as on the command line.
pub fn named(text: &str, timeout: Duration, policies: &mut Policies) -> Result<Policy, ArgError> {
    resolve(&text.parse()?, timeout, policies)
}

/// The preemptive policies' knobs, and a schedule of policy switches.
#[derive(Debug, Args, Clone)]
pub struct PolicyArgs {
    /// Seconds a preempted job pays again when it resumes (srtf, las, fair,
    /// edf), at most a day.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(0..=86_400))]
    pub preempt_cost: u32,
    /// Seconds an elastic job makes no progress after its GPUs change
    /// (edf-elastic; ElasticFlow's simulator charges none under edf), at
    /// most a day.
    #[arg(long, default_value_t = 0, value_name = "SECS", value_parser = clap::value_parser!(u32).range(0..=86_400))]
    pub rescale_cost: u32,
    /// Seconds between ElasticFlow's scheduling rounds (its
    /// --scheduling_slot): elasticflow, ef, edf-accessctrl, edf-elastic,
    /// dlas-gpu, gandiva and themis decide in them (60 when not given, as in its Figure 8; 240 in
    /// Figures 9–11). Given, every other policy, built-in or external,
    /// decides only in those rounds too, each start paying ElasticFlow's
    /// overhead. From 1 s to a day.
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u32).range(1..=86_400))]
    pub rounds: Option<u32>,
    /// las: queue boundaries in GPU-seconds of attained service, ascending.
    #[arg(long, default_value = "3600", value_parser = parse_thresholds)]
    pub las_thresholds: crate::sim::Thresholds,
    /// las: a preempted job waiting longer than this many times its run so
    /// far goes back to the first queue (0 turns the guard off; at most 1000).
    #[arg(long, default_value_t = 2.0)]
    pub las_starve: f64,
    /// fair: share the GPUs between users or groups (PAI group, Philly VC).
    #[arg(long, value_parser = super::choices::fair_by(), default_value = "user")]
    pub fair_by: crate::sim::FairBy,
    /// Policy switches over time, e.g. "0:fifo,2d:sjf,day 5 09:00:las".
    #[arg(long, value_name = "SCHEDULE")]
    pub policy_schedule: Option<String>,
    /// Seconds an external policy (exec:CMD) may take to answer one message.
    #[arg(long, value_name = "SECS", default_value_t = 10.0)]
    pub policy_timeout: f64,
    /// What the policies that order by run time (sjf, srtf, sgf,
    /// fifo-backfill, exec:) are told of it: oracle (the true run time),
    /// requested (the run time the trace records was asked for) or
    /// lognormal:SIGMA (the truth times e^(SIGMA·Z), Z drawn per job from
    /// --estimate-seed). Jobs still run for their true run time.
    #[arg(long, value_name = "ESTIMATE", default_value = "oracle", value_parser = parse_estimate)]
    pub estimate: crate::sim::Estimate,
    /// The seed of lognormal estimates.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub estimate_seed: u64,
}

pub(super) fn parse_estimate(s: &str) -> Result<crate::sim::Estimate, ArgError> {
    s.parse()
}

impl PolicyArgs {
    pub fn tuning(&self) -> color_eyre::eyre::Result<std::sync::Arc<crate::sim::Tuning>> {
        if !(self.las_starve.is_finite() && (0.0..=1000.0).contains(&self.las_starve)) {
            color_eyre::eyre::bail!(
                "--las-starve must be between 0 and 1000, not {:?}",
                self.las_starve
            );
        }
        if !(self.policy_timeout.is_finite() && (0.001..=86_400.0).contains(&self.policy_timeout)) {
            color_eyre::eyre::bail!(
                "--policy-timeout must be between 0.001 and 86400 seconds, not {}",
                self.policy_timeout
            );
        }
        Ok(std::sync::Arc::new(crate::sim::Tuning {
            preempt_cost: self.preempt_cost as i64,
            rescale_cost: self.rescale_cost as i64,
            rounds: self.rounds.unwrap_or(60) as i64,
            rounds_every: self.rounds.is_some(),
            las_thresholds: self.las_thresholds.0.clone(),
            las_starve: self.las_starve,
            fair_by: self.fair_by,
            policy_timeout: std::time::Duration::from_secs_f64(self.policy_timeout),
            estimate: self.estimate.seeded(self.estimate_seed),
            ..crate::cli::logger::logged_tuning()
        }))
    }

    /// The schedule, parsed against the loaded trace.
    pub fn schedule(
        &self,
        trace: &crate::trace::Trace,
        policies: &mut Policies,
    ) -> color_eyre::eyre::Result<Option<crate::sim::Schedule>> {
        self.policy_schedule
            .as_deref()
            .map(|t| {
                self.parse_schedule(trace, t, policies)
                    .map_err(|e| color_eyre::eyre::eyre!("--policy-schedule: {e}"))
            })
            .transpose()
    }

    /// The external policies' timeout, checked.
    pub fn timeout(&self) -> color_eyre::eyre::Result<std::time::Duration> {
        Ok(self.tuning()?.policy_timeout)
    }

    /// A schedule's text against `trace`, its policies named as `--policy`
    /// names them (config.toml names, parameters, `--policy-timeout`) and
    /// programs registered in `policies`.
    pub fn parse_schedule(
        &self,
        trace: &crate::trace::Trace,
        text: &str,
        policies: &mut Policies,
    ) -> color_eyre::eyre::Result<crate::sim::Schedule> {
        let timeout = self.timeout()?;
        let mut named = |w: &str| named(w, timeout, policies);
        Ok(crate::sim::Schedule::parse_with(trace, text, &mut named)?)
    }

    /// The policies named, the external ones asked who they are.
    pub fn resolve(
        &self,
        named: &[PolicyArg],
        policies: &mut Policies,
    ) -> color_eyre::eyre::Result<Vec<Policy>> {
        resolve_all(named, self.timeout()?, policies)
    }
}

/// The external policies' commands among `named` and a schedule's
/// text, each once, in order (config.toml names resolved).
pub(crate) fn exec_commands<'a>(
    named: impl IntoIterator<Item = &'a PolicyArg>,
    schedule: Option<&str>,
) -> Vec<String> {
    let scheduled: Vec<PolicyArg> = schedule
        .map(crate::sim::policy_words)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|w| w.parse().ok())
        .collect();
    let mut out: Vec<String> = Vec::new();
    let mut add = |p: &PolicyArg| {
        if let PolicyArg::Exec(spec) = p {
            if !out.contains(&spec.cmd) {
                out.push(spec.cmd.clone());
            }
        }
    };
    named.into_iter().for_each(&mut add);
    scheduled.iter().for_each(&mut add);
    out
}

pub(super) fn parse_thresholds(s: &str) -> Result<crate::sim::Thresholds, ArgError> {
    s.parse()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(s: &str) -> Vec<(String, String)> {
        split_params(s).unwrap().1.into_iter().collect()
    }

    #[test]
    fn parameters_follow_the_name_in_brackets() {
        assert_eq!(split_params("mine[age=2, w=0.5]").unwrap().0, "mine");
        assert_eq!(
            params("exec:python3 p.py[w=0.5;age=2]"),
            [("age".into(), "2".into()), ("w".into(), "0.5".into())]
        );
        // A bracket without `=` is the command's own.
        assert_eq!(split_params("exec:echo [x]").unwrap().0, "exec:echo [x]");
        assert!(params("exec:echo [x]").is_empty());
        assert!(matches!(split_params("m[=2]"), Err(ArgError::Param(_))));
        assert!(matches!(split_params("m[a=1,b]"), Err(ArgError::Param(_))));
        assert!(matches!(split_params("m[a=]"), Err(ArgError::Param(_))));
        assert!(matches!(
            split_params("m[a=1,a=2]"),
            Err(ArgError::ParamTwice(_))
        ));
    }

    #[test]
    fn a_list_splits_between_policies_not_inside_parameters() {
        let v = parse_list("fifo, exec:python3 p.py[a=1,b=2],sjf").unwrap();
        assert_eq!(v.len(), 3);
        assert_eq!(v[0], PolicyArg::Known(Policy::Fifo));
        match &v[1] {
            PolicyArg::Exec(s) => {
                assert_eq!(s.cmd, "python3 p.py");
                assert_eq!(s.params.len(), 2);
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(parse_list(" , "), Err(ArgError::NoPolicies)));
        assert!(matches!(
            "fifo[a=1]".parse::<PolicyArg>(),
            Err(ArgError::BuiltinParams(_))
        ));
    }
}
