//! The layering, kept honest: data flows load → model → engine → views.
//! `src/trace` (loading) and `src/sim` (the engine) never reach the terminal
//! or the command line; `src/trace` never reaches the engine; and nothing
//! outside `src/trace` names a format's own tables or modules (the
//! generators in `src/gen`, which write each format's native schema, may
//! name its schema constants).

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

/// (directory under src, what its files must never name, why).
const RULES: &[(&str, &[&str], &str)] = &[
    (
        "sim",
        ABOVE_THE_ENGINE,
        "the engine knows no terminal, command line or report",
    ),
    (
        "trace",
        ABOVE_THE_ENGINE,
        "loading knows only files and the model",
    ),
    (
        "trace",
        &["crate::sim"],
        "loading knows nothing of the engine",
    ),
];

/// Format modules and tables: named only inside src/trace (and src/gen).
const FORMAT_NAMES: &[&str] = &[
    "trace::pai",
    "trace::philly",
    "trace::acme",
    "trace::zeus",
    "trace::itp",
    "PaiTables",
    "PhillyTables",
    "AcmeTables",
    "ZeusTables",
    "Native::",
];

/// Code without comments and string literals, so a doc line that mentions
/// `ratatui` is not an import.
fn code_only(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let mut in_str = false;
        let mut prev = ' ';
        let mut kept = String::new();
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if !in_str && c == '/' && chars.get(i + 1) == Some(&'/') {
                break;
            }
            if c == '"' && prev != '\\' {
                in_str = !in_str;
            } else if !in_str {
                kept.push(c);
            }
            prev = if prev == '\\' && c == '\\' { ' ' } else { c };
            i += 1;
        }
        out.push_str(&kept);
        out.push('\n');
    }
    out
}

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

/// Every breach of the rules in the file `rel` (a path under src) holding `text`.
fn breaches(rel: &Path, text: &str) -> Vec<String> {
    let code = code_only(text);
    let top = rel
        .components()
        .next()
        .and_then(|c| c.as_os_str().to_str())
        .unwrap_or("");
    let mut out = Vec::new();
    for (dir, banned, why) in RULES {
        if top == *dir {
            for b in *banned {
                if let Some(line) = names(&code, b) {
                    out.push(format!("src/{}:{line} names {b}: {why}", rel.display()));
                }
            }
        }
    }
    if top != "trace" && top != "gen" {
        for f in FORMAT_NAMES {
            if let Some(line) = names(&code, f) {
                out.push(format!(
                    "src/{}:{line} names {f}: format specifics stay behind trace's NativeTables",
                    rel.display()
                ));
            }
        }
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src") {
        let p = entry.expect("dir entry").path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn the_source_keeps_its_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    assert!(
        files.len() > 50,
        "found only {} files under src",
        files.len()
    );
    let mut all = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("read a source file");
        all.extend(breaches(f.strip_prefix(&src).expect("under src"), &text));
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
    let trace = Path::new("trace/itp.rs");
    assert_eq!(breaches(trace, "use crate::sim::Engine;").len(), 1);
    let ui = Path::new("ui/draw.rs");
    assert_eq!(
        breaches(ui, "if let Native::Philly(t) = &trace.native {}").len(),
        1
    );
    assert_eq!(breaches(ui, "use crate::trace::pai::PaiTables;").len(), 2);
    // Mentions in comments and strings, and longer names, are not imports.
    assert!(breaches(sim, "// ratatui draws the grid\nlet s = \"crate::ui\";").is_empty());
    assert!(breaches(sim, "use crate::simulator;").is_empty());
    assert!(breaches(trace, "use crate::trace::model::Trace;").is_empty());
    // The loaders may name their own tables.
    assert!(breaches(trace, "use crate::trace::pai::PaiTables;").is_empty());
}
