//! The interpreter an external policy's command runs, when it is Python:
//! its name as the command gives it and the version it says
//! (`python3 --version`), for the run's provenance.

use serde::Serialize;

/// The interpreter of a policy's command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Interpreter {
    /// As the command names it (`python3`, `/usr/bin/python3.11`).
    pub program: String,
    /// What `PROGRAM --version` says (`Python 3.11.2`); empty where it
    /// could not be asked.
    pub version: String,
}

/// The Python interpreter `command` starts, if it starts one: its first
/// word after any `NAME=value` assignments (or after `env` and them),
/// whose file name is `python`, `python3` or `python3.N`. A command that
/// sets `PATH` first names no interpreter: which one runs is not known here.
pub(crate) fn python_of(command: &str) -> Option<String> {
    if command
        .split_whitespace()
        .take_while(|w| is_assignment(w) || *w == "env")
        .any(|w| w.starts_with("PATH="))
    {
        return None;
    }
    let mut words = command
        .split_whitespace()
        .skip_while(|w| is_assignment(w))
        .peekable();
    if words.peek() == Some(&"env") {
        words.next();
    }
    let program = words.find(|w| !is_assignment(w))?;
    let name = program.rsplit('/').next().unwrap_or(program);
    let version = name.strip_prefix("python")?;
    version
        .chars()
        .all(|c| c.is_ascii_digit() || c == '.')
        .then(|| program.to_string())
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// The interpreter of `command` and its version, asked once per program
/// in `seen` (a sweep's runs share it).
pub(crate) fn interpreter_of(
    seen: &std::sync::Mutex<Vec<Interpreter>>,
    command: &str,
) -> Option<Interpreter> {
    let program = python_of(command)?;
    let mut seen = seen.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(i) = seen.iter().find(|i| i.program == program) {
        return Some(i.clone());
    }
    // A shim that never returns must not hold the run: 5 s at most.
    let asked = crate::driver::tool_output_within(
        &program,
        &["--version"],
        std::time::Duration::from_secs(5),
    );
    let version = asked
        .ok()
        .filter(|o| o.status.success())
        .map(|o| {
            // Python 2 said it on stderr.
            let out = if o.stdout.is_empty() {
                o.stderr
            } else {
                o.stdout
            };
            crate::text::sanitize(String::from_utf8_lossy(&out).trim())
        })
        .unwrap_or_default();
    let i = Interpreter { program, version };
    seen.push(i.clone());
    Some(i)
}

#[cfg(test)]
mod tests {
    use super::python_of;

    #[test]
    fn python_is_found_after_assignments_and_env_and_by_file_name() {
        let found = |c: &str| python_of(c);
        assert_eq!(
            found("python3 policies/fifo.py").as_deref(),
            Some("python3")
        );
        assert_eq!(found("A=1 python3 x.py").as_deref(), Some("python3"));
        assert_eq!(
            found("env A=1 /usr/bin/python3.11 x.py").as_deref(),
            Some("/usr/bin/python3.11")
        );
        assert_eq!(found("python x.py").as_deref(), Some("python"));
        assert_eq!(found("PATH=/venv/bin python3 x.py"), None);
        assert_eq!(found("./policy.sh"), None);
        assert_eq!(found("pythonic x"), None);
        assert_eq!(found("sh -c 'python3 x.py'"), None);
        assert_eq!(found(""), None);
    }
}
