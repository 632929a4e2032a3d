//! A policy program made a registered policy: what its hello said (read
//! by `ask::hello`), shown by a label unique among the policies. The
//! driver starts the program and asks; this is what it does with the
//! answer, and nothing here starts anything.

use super::ask::hello::{self, Hello};
use super::error::ProtocolError;
pub use super::policies::exec::Params;
use super::policies::exec::{exec_name, params_suffix, ExecRule, Spec};
use super::policy::Policy;
use super::registry::Policies;
use std::sync::Arc;
use tracetui_model::text::{sanitize, take_cols};

/// The longest label an external policy is shown by (its parameters included).
const LABEL_COLS: usize = 32;

/// A program as its hello described it, not registered yet.
pub struct Heard {
    cmd: String,
    params: Params,
    hello: Hello,
}

/// `exec:CMD`, and `[k=v,…]` after it when it has parameters: the name a
/// program with `params` is registered by.
pub fn name(cmd: &str, params: &Params) -> String {
    exec_name(cmd, params)
}

/// The policy already registered in `policies` under `name`, if any.
pub fn registered(policies: &Policies, name: &str) -> Option<Policy> {
    policies.find(name)
}

/// The hello a program is sent first.
pub fn hello_message(cmd: &str) -> Result<Vec<u8>, ProtocolError> {
    hello::message(cmd)
}

/// What the program `cmd` answered to the hello, checked.
pub fn hear(cmd: &str, params: &Params, line: &str) -> Result<Heard, ProtocolError> {
    Ok(Heard {
        cmd: cmd.to_string(),
        params: params.clone(),
        hello: hello::read(line, cmd)?,
    })
}

impl Heard {
    /// Shown by `label` (a name from config.toml) instead of the name its
    /// hello gave; an empty one changes nothing.
    pub fn relabel(&mut self, label: &str) {
        let l = sanitize(label);
        if !l.is_empty() {
            self.hello.label = take_cols(&l, 24).to_string();
        }
    }
}

/// Registers the program `heard` describes in `policies`, shown by its label
/// with its parameters, made unique: a built-in's name gets `-ext` (a port
/// of `sjf` is `sjf-ext`), and a label another policy has already (one
/// program under two commands) gets `#2`, `#3` ….
pub fn register(heard: Heard, policies: &mut Policies) -> Policy {
    let name = exec_name(&heard.cmd, &heard.params);
    if let Some(p) = policies.find(&name) {
        return p;
    }
    let base = format!(
        "{}{}",
        heard.hello.label,
        sanitize(&params_suffix(&heard.params))
    );
    let mut base = take_cols(&base, LABEL_COLS).to_string();
    let built_in = |l: &str| {
        policies
            .iter()
            .any(|p| p.command().is_none() && (p.label() == l || p.name() == l))
    };
    if built_in(&base) {
        base.push_str("-ext");
    }
    let taken = |l: &str| policies.iter().any(|p| p.label() == l || p.name() == l);
    let mut label = base.clone();
    let mut n = 2;
    while taken(&label) {
        label = format!("{base}#{n}");
        n += 1;
    }
    let spec = Spec::new(&heard.cmd, &heard.params, heard.hello, label);
    policies.register(Box::new(ExecRule(Arc::new(spec))))
}
