//! `tracetui policy new NAME`: a runnable policy to start from, and the
//! Python helper beside it (the copy embedded in this binary), so a user
//! who has only the binary can write a policy. Nothing is overwritten.

use clap::{Args, Subcommand, ValueEnum};
use color_eyre::eyre::{bail, Result, WrapErr};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The helper, as this binary speaks the protocol.
pub(crate) const HELPER: &str = include_str!("../../policies/tracetui_policy.py");
const HELPER_FILE: &str = "tracetui_policy.py";
const TEMPLATE: &str = include_str!("policy_template.py");
const ELASTIC: &str = include_str!("policy_template_elastic.py");

#[derive(Debug, Subcommand)]
pub enum PolicyCommand {
    /// Write a runnable policy NAME.py, and the helper it imports beside it.
    New(NewArgs),
}

#[derive(Debug, Args)]
pub struct NewArgs {
    /// The policy's name, or a path ending in it (`policies/mine`): writes
    /// NAME.py there; the name is what results call it.
    pub name: PathBuf,
    /// The language to write it in.
    #[arg(long, value_enum, default_value_t = Lang::Python)]
    pub lang: Lang,
    /// An elastic policy (protocol 2) for traces with throughput tables:
    /// it resizes jobs to the fewest GPUs that meet their deadlines, and
    /// drops those none can.
    #[arg(long)]
    pub elastic: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Lang {
    Python,
}

pub(super) fn run(c: &PolicyCommand) -> Result<()> {
    match c {
        PolicyCommand::New(a) => new(a),
    }
}

fn new(a: &NewArgs) -> Result<()> {
    let Lang::Python = a.lang;
    let (dir, name) = split(&a.name)?;
    let script = dir.join(format!("{name}.py"));
    if !dir.as_os_str().is_empty() && !dir.is_dir() {
        bail!("{}: no such directory", shown(&dir));
    }
    let template = if a.elastic { ELASTIC } else { TEMPLATE };
    let text = template.replace("{{NAME}}", &name);
    create_new(&script, &text, 0o755).wrap_err_with(|| {
        format!(
            "{}: not written (it is never overwritten: choose another name, or move it away)",
            shown(&script)
        )
    })?;
    let helper = dir.join(HELPER_FILE);
    let helper_note = match std::fs::read(&helper) {
        Ok(old) if old == HELPER.as_bytes() => "kept (the same as this tracetui's)".to_string(),
        Ok(_) => format!(
            "kept, but it differs from this tracetui's helper: remove it and run \
             `tracetui policy new` again for this version's (your {name}.py may need it)"
        ),
        Err(_) => {
            create_new(&helper, HELPER, 0o644)
                .wrap_err_with(|| format!("{}: not written", shown(&helper)))?;
            "written".to_string()
        }
    };
    let abs = std::fs::canonicalize(&script).unwrap_or_else(|_| script.clone());
    let (shown, abs_shown, helper_shown) = (shown(&script), shown(&abs), shown(&helper));
    let config = crate::config::file().map_or_else(
        || "~/.config/tracetui/config.toml".to_string(),
        |f| self::shown(&f),
    );
    let try_it = if a.elastic {
        try_elastic(&abs_shown)
    } else {
        try_plain(&abs_shown)
    };
    super::print_out(&format!(
        "wrote {shown}\n\
         {helper_shown}: {helper_note}\n\
         \n\
         {try_it}\
         \n\
         Offer it in the replay's picker (p) and as --policy {name}: add to\n  \
         {config}\n  \
         [policies]\n  \
         {name} = \"python3 {abs_shown}\"\n\
         \n\
         The helper's docstring lists what a policy sees; the protocol is\n  \
         docs/policy-protocol.md in tracetui's repository.\n"
    ));
    Ok(())
}

/// How to run a plain policy: commands that work as printed, on a trace
/// `gen` writes.
fn try_plain(script: &str) -> String {
    format!(
        "Try it (from any directory: it imports the helper from beside itself):\n  \
         tracetui gen itp --jobs 500 --seed 1 --out sample.csv\n  \
         tracetui sim itp sample.csv --policy 'exec:python3 {script}'\n  \
         tracetui compare itp sample.csv --policies 'fifo,sjf,exec:python3 {script}'\n  \
         tracetui sim itp sample.csv --policy 'exec:python3 {script}[age_weight=2]'\n"
    )
}

/// How to run an elastic policy: on a trace in ElasticFlow's schema with
/// ElasticFlow's own tables and cluster spec, from its artifact.
fn try_elastic(script: &str) -> String {
    format!(
        "Try it on a trace with throughput tables (ElasticFlow's, from its artifact):\n  \
         git clone --depth 1 https://github.com/pkusys/ElasticFlow\n  \
         EF=ElasticFlow/ElasticFlow/scheduler\n  \
         tracetui gen itp --jobs 200 --seed 1 --schema elasticflow --out ef.csv\n  \
         tracetui sim itp ef.csv --cluster $EF/cluster_specs/n8g8.csv \\\n      \
         --throughputs $EF/throughputs_A100 --policy 'exec:python3 {script}'\n  \
         tracetui compare itp ef.csv --cluster $EF/cluster_specs/n8g8.csv \\\n      \
         --throughputs $EF/throughputs_A100 \\\n      \
         --policies 'edf-elastic,elasticflow,exec:python3 {script}'\n"
    )
}

/// The directory and the name of `path` (`.py` dropped), the name checked:
/// it is the policy's name in results and config.toml.
fn split(path: &Path) -> Result<(PathBuf, String)> {
    let file = path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = file.strip_suffix(".py").unwrap_or(&file).to_string();
    let ok = name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if !ok {
        bail!(
            "'{}': a policy's name is a letter, then letters, digits, _ or -",
            crate::text::sanitize(&name)
        );
    }
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    Ok((dir, name))
}

/// A path as the terminal may show it.
fn shown(p: &Path) -> String {
    crate::text::sanitize(&p.display().to_string())
}

/// Writes a file that must not exist yet (never follows a link there, never clobbers).
fn create_new(path: &Path, text: &str, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(path)?;
    f.write_all(text.as_bytes())?;
    f.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked_and_lose_their_py() {
        let (d, n) = split(Path::new("policies/mine.py")).unwrap();
        assert_eq!((d, n.as_str()), (PathBuf::from("policies"), "mine"));
        assert_eq!(split(Path::new("sgf-aging")).unwrap().1, "sgf-aging");
        for bad in ["", "1st", "my policy", "a\u{1b}b", ".py"] {
            assert!(split(Path::new(bad)).is_err(), "{bad:?}");
        }
        assert!(TEMPLATE.contains("{{NAME}}") && ELASTIC.contains("{{NAME}}"));
    }
}
