//! The cheapest possible external policy, for measuring the protocol's
//! overhead (benches/protocol.rs): strict arrival order (`fifo`), answering
//! every message without parsing it. With TRIVIAL_POLICY_COUNT=FILE it
//! writes how many scheduling points it answered to FILE when its input closes.
//!
//!     cargo build --release --example trivial_policy
//!     tracetui sim itp trace.csv --policy 'exec:target/x86_64-unknown-linux-gnu/release/examples/trivial_policy'

use std::io::{BufRead, Write};

fn main() {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    let mut points = 0u64;
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let answer = if line.starts_with(r#"{"type":"hello""#) {
            r#"{"name":"trivial-fifo","walk":"strict","protocol":1}"#
        } else {
            points += line.starts_with(r#"{"type":"schedule""#) as u64;
            "{}"
        };
        if writeln!(out, "{answer}").and_then(|_| out.flush()).is_err() {
            break;
        }
    }
    if let Some(path) = std::env::var_os("TRIVIAL_POLICY_COUNT") {
        let _ = std::fs::write(path, points.to_string());
    }
}
