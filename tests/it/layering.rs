//! The layering, kept honest: data flows load → model → engine → views.
//! `src/trace` (loading) and `src/sim` (the engine) never reach the terminal
//! or the command line; `src/trace` never reaches the engine; and nothing
//! outside `src/trace` names a format's own tables or modules (the
//! generators in `src/gen`, which write each format's native schema, may
//! name its schema constants).

use crate::common;

use common::source::{code_only, imports, workspace_files};
use std::path::{Path, PathBuf};

/// What neither the engine nor the loaders may name: the terminal, the
/// command line, the reports built on them.
const ABOVE_THE_ENGINE: &[&str] = &[
    "crate::ui",
    "crate::cli",
    "crate::gen",
    "crate::lesson",
    "crate::stats",
    "ratatui",
    "crossterm",
    "tui_logger",
    "color_eyre",
];

/// What code that must do no I/O and read no clock may not name: the
/// driver (`crate::driver`) is where processes, pipes and deadlines live.
const NO_IO: &[&str] = &[
    "std::process",
    "libc",
    "Instant",
    "SystemTime",
    "std::fs",
    "std::thread",
    "crate::driver",
];

/// The UI's files that perform effects or read configuration at start-up
/// (the runner, its effects, the key map and themes): every other UI file
/// is `update` and the draw functions, and does no I/O.
const UI_RUNNER: &[&str] = &[
    "ui/run.rs",
    "ui/build.rs",
    "ui/signals.rs",
    "ui/effects.rs",
    "ui/keymap.rs",
    "ui/theme.rs",
];

/// (directory under src, what its files must never name, why). The model
/// (`model/`: loading, `text`, `fmt`, `par`) is a crate of its own that
/// depends on none of these: Cargo keeps its walls.
const RULES: &[(&str, &[&str], &str)] = &[
    (
        "sim",
        ABOVE_THE_ENGINE,
        "the engine knows no terminal, command line or report",
    ),
    (
        "sim/policies",
        &["Engine", "crate::sim::engine"],
        "policies see a simulation only through sim::view (View, Acts)",
    ),
    (
        "sim/policy.rs",
        &["Engine", "crate::sim::engine"],
        "the policy interface names the view, not the engine",
    ),
    (
        "sim/view.rs",
        &["Engine", "crate::sim::engine"],
        "the view is what the engine implements, not what it is",
    ),
    (
        "sim/job.rs",
        &["Engine", "crate::sim::engine"],
        "a job's state is read by policies and kept by the engine",
    ),
    (
        "sim/backfill.rs",
        &["crate::sim::engine"],
        "the engine uses backfill's reservation; backfill does not reach back",
    ),
    (
        "sim/running.rs",
        &["crate::sim::engine"],
        "the engine uses the grants slab; the slab does not reach back",
    ),
    (
        "sim",
        &["crate::driver", "std::process", "libc"],
        "the engine starts no process: it asks with data, the driver answers",
    ),
    (
        "sim/engine",
        NO_IO,
        "the engine does no I/O and reads no clock: it stands at a question, the driver answers",
    ),
    (
        "sim/policies",
        NO_IO,
        "a policy's books build messages and read answers; the driver talks to programs",
    ),
    (
        "sim/replay.rs",
        NO_IO,
        "the replay stands at its engine's question; its runner answers",
    ),
    ("sim/view.rs", NO_IO, "the view is data and checks"),
];

/// Format modules and tables: named only inside the model crate (which this
/// rule does not read) and src/gen.
/// The modules are the model's own (private to its crate); what of them
/// the model re-exports at its root is named for its format (each
/// format's loader `load_NAME`, and the rest).
const FORMAT_NAMES: &[&str] = &[
    "trace::pai",
    "trace::philly",
    "trace::acme",
    "trace::zeus",
    "trace::itp",
    "trace::swf",
    "trace::slurm",
    "trace::openb",
    "PaiTables",
    "PhillyTables",
    "AcmeTables",
    "ZeusTables",
    "ItpTables",
    "SwfTables",
    "SlurmTables",
    "OpenbTables",
    "load_pai",
    "load_philly",
    "load_acme",
    "load_zeus",
    "load_itp",
    "load_swf",
    "load_slurm",
    "load_openb",
    "load_itp_from",
    "PAI_TABLES",
    "pai_job_detail",
    "pai_side_rows",
    "pai_workers_of",
    "pai_side_index",
    "philly_job_detail",
    "PhillyUtilFile",
    "PHILLY_JOB_LOG",
    "PHILLY_MACHINES",
    "PHILLY_GPU_UTIL",
    "PHILLY_CPU_UTIL",
    "PHILLY_MEM_UTIL",
    "parse_zoned",
    "parse_local",
    "format_local",
    "KALOS",
    "SEREN",
];

/// Whether `code` names `what` as a path (`what` followed by `::`, `;`,
/// `,`, `}` or a space, and not inside a longer identifier).
fn names(code: &str, what: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = code[from..].find(what) {
        let at = from + i;
        let before = code[..at].chars().next_back();
        let after = code[at + what.len()..].chars().next();
        let starts = before.is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        let ends = what.ends_with("::") || after.is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        if starts && ends {
            return Some(code[..at].lines().count().max(1));
        }
        from = at + what.len();
    }
    None
}

/// Where the file names `what`: in code (any path), or in an import once
/// its groups are spread out (`use crate::trace::{itp, Trace}` names
/// `trace::itp`).
fn named_at(rel: &Path, code: &str, what: &str) -> Option<usize> {
    names(code, what).or_else(|| {
        imports(rel, code)
            .into_iter()
            .find(|(_, p)| names(p, what).is_some())
            .map(|(line, _)| line)
    })
}

/// Every breach of the rules in the file `rel` (a path under src) holding `text`.
fn breaches(rel: &Path, text: &str) -> Vec<String> {
    // A file's own unit tests (`#[cfg(test)] mod tests`, at its end) are
    // not part of the layering, and their `super::` is the file's module.
    let text = match text.find("#[cfg(test)]\nmod ") {
        Some(at) => &text[..at],
        None => text,
    };
    let code = code_only(text);
    let top = rel
        .components()
        .next()
        .and_then(|c| c.as_os_str().to_str())
        .unwrap_or("");
    let mut out = Vec::new();
    for (dir, banned, why) in RULES {
        let applies = rel.starts_with(dir);
        if applies {
            for b in *banned {
                if let Some(line) = named_at(rel, &code, b) {
                    out.push(format!("src/{}:{line} names {b}: {why}", rel.display()));
                }
            }
        }
    }
    if top == "ui" && !UI_RUNNER.iter().any(|f| rel == Path::new(f)) {
        for b in NO_IO {
            if let Some(line) = named_at(rel, &code, b) {
                out.push(format!(
                    "src/{}:{line} names {b}: update and drawing do no I/O (they return effects)",
                    rel.display()
                ));
            }
        }
    }
    if top != "trace" && top != "gen" {
        for f in FORMAT_NAMES {
            if let Some(line) = named_at(rel, &code, f) {
                out.push(format!(
                    "src/{}:{line} names {f}: format specifics stay behind trace's NativeTables",
                    rel.display()
                ));
            }
        }
    }
    out
}

/// The files the rules read, each named as the rules name it: the
/// application's under `src` as they are, the engine crate's (`engine/src`)
/// as `sim/…`, the module the engine was (its crate keeps it from naming
/// the terminal, the command line or the driver at all: it depends on none
/// of them; these rules keep its walls inside).
fn layered_files() -> Vec<(PathBuf, PathBuf)> {
    workspace_files()
        .into_iter()
        .filter_map(|(name, f)| {
            let rel = match name.split_once('/') {
                Some(("engine", rest)) => Path::new("sim").join(rest),
                Some(("model" | "driver", _)) => return None,
                _ => PathBuf::from(name),
            };
            Some((rel, f))
        })
        .collect()
}

#[test]
fn the_source_keeps_its_layers() {
    let files = layered_files();
    assert!(files.len() > 50, "found only {} files", files.len());
    let mut all = Vec::new();
    for (rel, f) in &files {
        let text = std::fs::read_to_string(f).expect("read a source file");
        all.extend(breaches(rel, &text));
    }
    assert!(all.is_empty(), "layering broken:\n{}", all.join("\n"));
}

#[test]
fn a_forbidden_import_is_caught() {
    let sim = Path::new("sim/engine/mod.rs");
    assert_eq!(
        breaches(sim, "use ratatui::style::Color;\n").len(),
        1,
        "an engine file importing ratatui"
    );
    assert_eq!(
        breaches(sim, "fn f() { crate::ui::app::App::new(); }").len(),
        1
    );
    let ui = Path::new("ui/draw.rs");
    assert_eq!(
        breaches(ui, "let t = native.as_any().downcast_ref::<ItpTables>();").len(),
        1
    );
    assert_eq!(breaches(ui, "use crate::trace::pai::PaiTables;").len(), 2);
    // A format's specifics re-exported at the model's root, by their names.
    assert_eq!(
        breaches(ui, "use crate::trace::{load_pai, LoadOptions};").len(),
        1
    );
    assert_eq!(
        breaches(ui, "let d = trace::philly_job_detail(t, r);").len(),
        1
    );
    // Mentions in comments and strings, and longer names, are not imports.
    assert!(breaches(sim, "// ratatui draws the grid\nlet s = \"crate::ui\";").is_empty());
    assert!(breaches(sim, "use crate::simulator;").is_empty());
    assert!(breaches(sim, "use crate::trace::model::Trace;").is_empty());
}

#[test]
fn a_grouped_or_relative_import_is_caught() {
    let sim = Path::new("sim/engine/mod.rs");
    let ui = Path::new("ui/draw.rs");
    // Grouped imports count, spread out, and `super::` is made absolute.
    assert_eq!(
        breaches(sim, "use crate::{trace::Trace, ui::app::App};").len(),
        1,
        "a grouped import of the UI from the engine"
    );
    assert_eq!(
        breaches(sim, "use super::super::{cli::{self, output}};").len(),
        1,
        "the CLI reached through super from sim/engine"
    );
    assert_eq!(
        breaches(ui, "use crate::trace::{itp, LoadOptions};").len(),
        1
    );
    assert_eq!(
        breaches(
            ui,
            "use crate::{\n    sim::Engine,\n    trace::{model::Trace, pai as p},\n};"
        )
        .len(),
        1,
        "a format module renamed inside a nested group"
    );
    assert!(breaches(ui, "use crate::trace::{model::Trace, Format};").is_empty());
    assert!(breaches(sim, "use super::{books, clock as c};").is_empty());
    // Policies see the view: a grouped or relative import of the engine is caught.
    let las = Path::new("sim/policies/las.rs");
    assert_eq!(
        breaches(las, "use crate::sim::{view::View, engine::Engine};").len(),
        2
    );
    assert_eq!(breaches(las, "use super::super::engine::Resume;").len(), 1);
    assert!(breaches(las, "use crate::sim::view::{Acts, View};").is_empty());
    let exec = Path::new("sim/policies/exec/books.rs");
    assert_eq!(
        breaches(exec, "use crate::sim::{engine::{Checked}};").len(),
        1
    );
}

#[test]
fn io_a_clock_or_a_program_is_caught_where_forbidden() {
    let sim = Path::new("sim/engine/mod.rs");
    assert_eq!(
        breaches(sim, "fn f() { let t = std::time::Instant::now(); }").len(),
        1,
        "the engine reading the wall clock"
    );
    assert_eq!(
        breaches(sim, "use std::process::{Command, Stdio};").len(),
        2,
        "no I/O in the engine, and no process anywhere in sim"
    );
    // Policies, the replay and the UI's update talk to no program.
    let books = Path::new("sim/policies/exec/books.rs");
    assert_eq!(
        breaches(books, "use crate::driver::{ask, settle};").len(),
        2,
        "a policy's books do no I/O, and nothing in sim names the driver"
    );
    assert_eq!(
        breaches(Path::new("sim/replay.rs"), "use std::{time::Instant, fs};").len(),
        2,
        "the wall clock and the file system, each named"
    );
    let play = Path::new("ui/play.rs");
    assert_eq!(breaches(play, "use crate::{driver, sim::Engine};").len(), 1);
    assert!(breaches(Path::new("ui/effects.rs"), "use crate::driver;").is_empty());
    // The generators may name a format's own tables.
    let gen = Path::new("gen/pai/write.rs");
    assert!(breaches(gen, "use crate::trace::pai::PaiTables;").is_empty());
}

#[test]
fn every_format_is_guarded() {
    // A format added without its names here could be named anywhere.
    for f in tracetui::trace::FORMATS.iter() {
        let module = format!("trace::{}", f.name());
        let loader = format!("load_{}", f.name());
        for name in [module, loader] {
            assert!(
                FORMAT_NAMES.contains(&name.as_str()),
                "{name} is not in tests/it/layering.rs's FORMAT_NAMES"
            );
        }
    }
}
