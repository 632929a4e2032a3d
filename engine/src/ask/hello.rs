//! The hello: the first message to a policy program, and what its answer
//! says of the program (its name, its walk, the protocol it speaks). Read
//! when the policy is named (the probe) and again from every process
//! started for a dialogue, which must say the same.

use crate::error::ProtocolError;
use crate::walk::Walk;
use serde::{Deserialize, Serialize};
use tracetui_model::text::{sanitize, take_cols};

/// The newest version tracetui speaks (it speaks every one before too).
pub(crate) const PROTOCOL: u32 = 2;

/// The most arrival times a policy may look ahead at.
pub(crate) const MAX_LOOKAHEAD: u32 = 64;

#[derive(Serialize)]
struct HelloMessage<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    protocol: u32,
    command: &'a str,
}

/// The hello's answer: who the policy is and how the engine walks for it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Identity {
    name: String,
    walk: String,
    #[serde(default)]
    describe: Option<String>,
    #[serde(default)]
    protocol: Option<u32>,
    /// Whether to be told, right after each pass, what it started and preempted.
    #[serde(default)]
    notify: bool,
    /// Which scheduling points to be asked at: `always` (the default) or
    /// `arrivals` (only where jobs arrived, at its wake-ups and when it
    /// takes over; the others' events come with the next message).
    #[serde(default)]
    ask: Option<String>,
    /// Version 2: how many arrival times to come each `schedule` carries.
    #[serde(default)]
    lookahead: Option<u32>,
    /// Version 2: it keeps ElasticFlow's rounds itself (from the start
    /// message's `rounds`), so `--rounds` does not hold it in them.
    #[serde(default)]
    rounds: bool,
}

/// How a program asked to be talked to: what every one of its processes
/// must say again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Terms {
    pub(crate) walk: Walk,
    /// Told right after each pass what it started and preempted.
    pub(crate) notify: bool,
    /// Asked only at points where jobs arrived (and at its wake-ups).
    pub(crate) arrivals_only: bool,
    /// The protocol version it speaks (1 or 2).
    pub(crate) protocol: u32,
    /// Version 2: how many arrival times to come each `schedule` carries.
    pub(crate) lookahead: u32,
    /// Version 2: it keeps ElasticFlow's rounds itself.
    pub(crate) own_rounds: bool,
}

impl Terms {
    fn said(&self) -> String {
        let ask = if self.arrivals_only {
            "arrivals"
        } else {
            "always"
        };
        format!(
            "walk {} (notify {}, ask {ask}, protocol {}, lookahead {}, rounds {})",
            self.walk.name(),
            self.notify,
            self.protocol,
            self.lookahead,
            self.own_rounds
        )
    }
}

/// What a program says of itself in its hello.
pub(crate) struct Hello {
    pub(crate) terms: Terms,
    pub(crate) describe: String,
    pub(crate) label: String,
}

/// The hello tracetui sends first.
pub(crate) fn message(cmd: &str) -> Result<Vec<u8>, ProtocolError> {
    serde_json::to_vec(&HelloMessage {
        kind: "hello",
        protocol: PROTOCOL,
        command: cmd,
    })
    .map_err(|e| ProtocolError::Message(e.to_string()))
}

/// What the program's answer to the hello says of it, checked.
pub(crate) fn read(line: &str, cmd: &str) -> Result<Hello, ProtocolError> {
    let id: Identity = serde_json::from_str(line).map_err(|e| ProtocolError::Hello {
        why: e.to_string(),
        line: line.to_string(),
    })?;
    let protocol = id.protocol.unwrap_or(1);
    if !(1..=PROTOCOL).contains(&protocol) {
        return Err(ProtocolError::Version(protocol, PROTOCOL));
    }
    let lookahead = id.lookahead.unwrap_or(0);
    if lookahead > MAX_LOOKAHEAD || (lookahead > 0 && protocol < 2) {
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
        terms: Terms {
            walk,
            notify: id.notify,
            arrivals_only,
            protocol,
            lookahead,
            own_rounds: id.rounds && protocol >= 2,
        },
        describe: sanitize(&format!(
            "external: {cmd}{}{about}",
            if about.is_empty() { "" } else { " — " }
        )),
        label: take_cols(&sanitize(&id.name), 24).to_string(),
    })
}

/// A process's hello, against the terms the program gave when the policy
/// was named.
pub(crate) fn check(terms: &Terms, cmd: &str, line: &str) -> Result<(), ProtocolError> {
    let now = read(line, cmd)?.terms;
    if now != *terms {
        return Err(ProtocolError::Changed {
            was: terms.said(),
            now: now.said(),
        });
    }
    Ok(())
}
