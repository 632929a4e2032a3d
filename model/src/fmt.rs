//! Small formatting helpers shared by the tables and the TUI.

/// Seconds as a short human duration: `45s`, `12m05s`, `3h02m`, `4d07h`.
pub fn human_secs(s: f64) -> String {
    if !s.is_finite() {
        return "-".into();
    }
    let neg = s < 0.0;
    let t = s.abs().round() as i64;
    let body = if t < 60 {
        format!("{t}s")
    } else if t < 3600 {
        format!("{}m{:02}s", t / 60, t % 60)
    } else if t < 86_400 {
        format!("{}h{:02}m", t / 3600, (t % 3600) / 60)
    } else {
        format!("{}d{:02}h", t / 86_400, (t % 86_400) / 3600)
    };
    if neg {
        format!("-{body}")
    } else {
        body
    }
}

use serde_json::Value;
use std::fmt::Write as _;

/// A JSON value for people: objects as indented `key  value` lines.
pub fn json_text(v: &Value) -> String {
    let mut out = String::new();
    render_text(v, 0, &mut out);
    out
}

fn render_text(v: &Value, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    match v {
        Value::Object(m) => {
            let width = m.keys().map(|k| k.len()).max().unwrap_or(0);
            for (k, v) in m {
                match v {
                    Value::Object(_) => {
                        let _ = writeln!(out, "{pad}{}:", crate::text::sanitized(k));
                        render_text(v, indent + 2, out);
                    }
                    Value::Array(items)
                        if items.iter().all(|i| !i.is_object() && !i.is_array()) =>
                    {
                        let _ = writeln!(out, "{pad}{}:", crate::text::sanitized(k));
                        for item in items {
                            let _ = writeln!(out, "{pad}  - {}", scalar(item));
                        }
                    }
                    Value::Array(items) => {
                        let _ =
                            writeln!(out, "{pad}{} ({}):", crate::text::sanitized(k), items.len());
                        for (i, item) in items.iter().enumerate() {
                            let _ = writeln!(out, "{pad}  [{}]", i + 1);
                            render_text(item, indent + 4, out);
                        }
                    }
                    _ => {
                        let _ = writeln!(
                            out,
                            "{pad}{:<width$}  {}",
                            crate::text::sanitized(k),
                            scalar(v)
                        );
                    }
                }
            }
        }
        other => {
            let _ = writeln!(out, "{pad}{}", scalar(other));
        }
    }
}

fn scalar(v: &Value) -> String {
    match v {
        Value::Null => "-".into(),
        Value::String(s) => crate::text::sanitize(s),
        other => other.to_string(),
    }
}

/// `1 machine`, `2 machines`: a count with its noun (plural in `s`).
pub fn count(n: impl Into<u64>, noun: &str) -> String {
    let n = n.into();
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_well() {
        assert_eq!(human_secs(45.0), "45s");
        assert_eq!(human_secs(725.0), "12m05s");
        assert_eq!(human_secs(10_920.0), "3h02m");
        assert_eq!(human_secs(370_800.0), "4d07h");
        assert_eq!(human_secs(-60.0), "-1m00s");
    }
}
