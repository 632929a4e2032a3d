//! What the probe learned of a program: its command and parameters, and
//! who its hello says it is.

use crate::ask::hello::{Hello, Terms};
use crate::ask::Program;
use std::collections::BTreeMap;
use std::sync::Arc;

/// An external policy's `key=value` parameters, sent in `start`.
pub type Params = BTreeMap<String, String>;

/// What the probe learned: the command, and who the program says it is.
pub(crate) struct Spec {
    /// The program: `exec:CMD[k=v,…]` (its name in tracetui), its command,
    /// the label it is shown by and the terms its hello gave.
    pub(crate) program: Arc<Program>,
    pub(crate) params: Params,
    pub(super) describe: String,
    /// The name the program gave itself in its hello (for provenance).
    pub(super) hello_name: String,
}

impl Spec {
    /// The policy `exec:{cmd}` with `params`, as its hello describes it,
    /// shown by `label`.
    pub(crate) fn new(cmd: &str, params: &Params, hello: Hello, label: String) -> Spec {
        Spec {
            program: Arc::new(Program {
                name: exec_name(cmd, params),
                cmd: cmd.to_string(),
                label,
                terms: hello.terms,
            }),
            params: params.clone(),
            describe: hello.describe,
            hello_name: hello.label,
        }
    }

    pub(crate) fn terms(&self) -> &Terms {
        &self.program.terms
    }

    pub(crate) fn name(&self) -> &str {
        &self.program.name
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
