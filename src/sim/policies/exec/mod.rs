//! `exec:CMD`: any program as a policy. The program speaks the policy
//! protocol (docs/policy-protocol.md) on its stdin and stdout. Here are
//! the protocol's messages and books, as data: the driver (`sim::drive`)
//! asks the program who it is when the policy is named (the probe), and
//! answers the questions an engine stands at, one process per dialogue,
//! started at its first scheduling point with a snapshot of the state, so
//! a live switch, a what-if fork or a copy of an engine each get their own.

mod books;
mod dialogue;
mod talk;
mod wire;
mod wire2;

use super::super::policy::{Books, KeyMeaning, Policy, Rule, Walk};
use super::super::view::View;
use crate::sim::error::ProtocolError;
use crate::text::sanitize;
use books::ExecBooks;
pub(crate) use dialogue::{lock, Lookup, Said};
pub use dialogue::{Question, Reply};
use std::collections::BTreeMap;
use std::sync::Arc;

/// An external policy's `key=value` parameters, sent in `start`.
pub(crate) type Params = BTreeMap<String, String>;

/// The longest label an external policy is shown by (its parameters included).
const LABEL_COLS: usize = 32;

/// What the probe learned: the command, and who the program says it is.
pub(crate) struct Spec {
    /// `exec:CMD` (`exec:CMD[k=v,…]` with parameters), the policy's name in tracetui.
    pub(crate) name: String,
    pub(crate) cmd: String,
    pub(crate) params: Params,
    walk: Walk,
    /// Told right after each pass what it started and preempted.
    notify: bool,
    /// Asked only at points where jobs arrived (and at its wake-ups).
    arrivals_only: bool,
    /// The protocol version it speaks (1 or 2).
    protocol: u32,
    /// Version 2: how many arrival times to come each `schedule` carries.
    lookahead: u32,
    describe: String,
    /// The name the program gave itself (or one from config.toml).
    pub(crate) label: String,
    /// The name the program gave itself in its hello (for provenance).
    hello_name: String,
}

impl Spec {
    /// The policy `exec:{cmd}` with `params`, as its hello describes it.
    pub(crate) fn new(cmd: &str, params: &Params, hello: Hello) -> Spec {
        Spec {
            name: exec_name(cmd, params),
            cmd: cmd.to_string(),
            params: params.clone(),
            walk: hello.walk,
            notify: hello.notify,
            arrivals_only: hello.arrivals_only,
            protocol: hello.protocol,
            lookahead: hello.lookahead,
            describe: hello.describe,
            hello_name: hello.label.clone(),
            label: hello.label,
        }
    }
}

struct ExecRule(Arc<Spec>);

impl Rule for ExecRule {
    fn name(&self) -> &str {
        &self.0.name
    }

    fn describe(&self) -> &str {
        &self.0.describe
    }

    fn label(&self) -> &str {
        &self.0.label
    }

    fn walk(&self) -> Walk {
        self.0.walk
    }

    fn key_meaning(&self) -> KeyMeaning {
        KeyMeaning::Signed
    }

    fn command(&self) -> Option<&str> {
        Some(&self.0.cmd)
    }

    fn hello_name(&self) -> Option<&str> {
        Some(&self.0.hello_name)
    }

    fn books(&self, _v: &dyn View) -> Box<dyn Books> {
        Box::new(ExecBooks::new(self.0.clone()))
    }
}

/// `exec:CMD`, and `[k=v,…]` after it when it has parameters: the name
/// it is registered by (one registration per command and parameters).
pub(crate) fn exec_name(cmd: &str, params: &Params) -> String {
    format!("exec:{cmd}{}", params_suffix(params))
}

/// `[k=v,…]`, or nothing without parameters.
pub(crate) fn params_suffix(params: &Params) -> String {
    if params.is_empty() {
        return String::new();
    }
    let kv: Vec<String> = params.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("[{}]", kv.join(","))
}

/// The policy already registered under `name`, if any.
pub(crate) fn registered(name: &str) -> Option<Policy> {
    Policy::all().into_iter().find(|p| p.name() == name)
}

/// Registers the program `spec` describes as a policy, shown by its label
/// with its parameters, made unique: a built-in's name gets `-ext` (a port
/// of `sjf` is `sjf-ext`), and a label another policy has already (one
/// program under two commands) gets `#2`, `#3` ….
pub(crate) fn register(mut spec: Spec) -> Policy {
    if let Some(p) = registered(&spec.name) {
        return p;
    }
    let base = format!("{}{}", spec.label, sanitize(&params_suffix(&spec.params)));
    let mut base = crate::text::take_cols(&base, LABEL_COLS).to_string();
    let built_in = |l: &str| {
        Policy::all()
            .into_iter()
            .any(|p| p.command().is_none() && (p.label() == l || p.name() == l))
    };
    if built_in(&base) {
        base.push_str("-ext");
    }
    let taken = |l: &str| {
        Policy::all()
            .into_iter()
            .any(|p| p.label() == l || p.name() == l)
    };
    let mut label = base.clone();
    let mut n = 2;
    while taken(&label) {
        label = format!("{base}#{n}");
        n += 1;
    }
    spec.label = label;
    Policy::register(Box::new(ExecRule(Arc::new(spec))))
}

/// What a program says of itself in its hello.
pub(crate) struct Hello {
    walk: Walk,
    notify: bool,
    arrivals_only: bool,
    protocol: u32,
    lookahead: u32,
    describe: String,
    label: String,
}

/// The hello tracetui sends first.
pub(crate) fn hello_message(cmd: &str) -> Result<Vec<u8>, ProtocolError> {
    serde_json::to_vec(&wire::Hello {
        kind: "hello",
        protocol: wire::PROTOCOL,
        command: cmd,
    })
    .map_err(|e| ProtocolError::Message(e.to_string()))
}

/// What the program's answer to the hello says of it, checked.
pub(crate) fn read_hello(line: &str, cmd: &str) -> Result<Hello, ProtocolError> {
    let id: wire::Identity = serde_json::from_str(line).map_err(|e| ProtocolError::Hello {
        why: e.to_string(),
        line: line.to_string(),
    })?;
    let protocol = id.protocol.unwrap_or(1);
    if !(1..=wire::PROTOCOL).contains(&protocol) {
        return Err(ProtocolError::Version(protocol, wire::PROTOCOL));
    }
    let lookahead = id.lookahead.unwrap_or(0);
    if lookahead > wire2::MAX_LOOKAHEAD || (lookahead > 0 && protocol < 2) {
        return Err(ProtocolError::Lookahead(lookahead));
    }
    let walk = match id.walk.as_str() {
        "strict" => Walk::Strict,
        "greedy" => Walk::Greedy,
        "preemptive" => Walk::Preemptive,
        "explicit" => Walk::Explicit,
        w => return Err(ProtocolError::Walk(w.to_string())),
    };
    let arrivals_only = match id.ask.as_deref() {
        None | Some("always") => false,
        Some("arrivals") => true,
        Some(a) => return Err(ProtocolError::Ask(a.to_string())),
    };
    let about = id.describe.unwrap_or_default();
    Ok(Hello {
        walk,
        notify: id.notify,
        arrivals_only,
        protocol,
        lookahead,
        describe: sanitize(&format!(
            "external: {cmd}{}{about}",
            if about.is_empty() { "" } else { " — " }
        )),
        label: crate::text::take_cols(&sanitize(&id.name), 24).to_string(),
    })
}

/// The program's hello, as the probe heard it when the policy was named.
pub(crate) fn check_hello(spec: &Spec, line: &str) -> Result<(), ProtocolError> {
    let h = read_hello(line, &spec.cmd)?;
    let now = (h.walk, h.notify, h.arrivals_only, h.protocol, h.lookahead);
    if now
        != (
            spec.walk,
            spec.notify,
            spec.arrivals_only,
            spec.protocol,
            spec.lookahead,
        )
    {
        let said = |walk: Walk, notify, arrivals: bool, protocol, lookahead| {
            let ask = if arrivals { "arrivals" } else { "always" };
            format!(
                "walk {} (notify {notify}, ask {ask}, protocol {protocol}, lookahead {lookahead})",
                walk.name()
            )
        };
        return Err(ProtocolError::Changed {
            was: said(
                spec.walk,
                spec.notify,
                spec.arrivals_only,
                spec.protocol,
                spec.lookahead,
            ),
            now: said(h.walk, h.notify, h.arrivals_only, h.protocol, h.lookahead),
        });
    }
    Ok(())
}
