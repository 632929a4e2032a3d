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

/// What code that must do no I/O and read no clock may not name: the
/// driver (`sim::drive`) is where processes, pipes and deadlines live.
const NO_IO: &[&str] = &[
    "std::process",
    "libc",
    "Instant",
    "SystemTime",
    "std::fs",
    "std::thread",
    "crate::sim::drive",
];

/// The UI's files that perform effects or read configuration at start-up
/// (the runner, its effects, the key map and themes): every other UI file
/// is `update` and the draw functions, and does no I/O.
const UI_RUNNER: &[&str] = &[
    "ui/run.rs",
    "ui/signals.rs",
    "ui/effects.rs",
    "ui/keymap.rs",
    "ui/theme.rs",
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
    (
        "fmt.rs",
        &["crate::trace"],
        "formatting for people knows nothing of loading",
    ),
    (
        "text.rs",
        &["crate::"],
        "terminal safety is a leaf every layer takes from",
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
    "ItpTables",
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

/// The module a file under src is: `trace/pai/mod.rs` is `crate::trace::pai`.
fn module_of(rel: &Path) -> Vec<String> {
    let mut parts = vec!["crate".to_string()];
    for c in rel.components() {
        let c = c.as_os_str().to_string_lossy();
        let c = c.strip_suffix(".rs").unwrap_or(&c);
        if c != "mod" && c != "lib" && c != "main" {
            parts.push(c.to_string());
        }
    }
    parts
}

/// Every `use` statement's body (what follows `use`, up to its `;`).
fn use_bodies(code: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = code[from..].find("use") {
        let at = from + i;
        from = at + 3;
        let before = code[..at].chars().next_back();
        let after = code[at + 3..].chars().next();
        let word = before.is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
            && after.is_some_and(char::is_whitespace);
        if !word {
            continue;
        }
        if let Some(end) = code[at..].find(';') {
            let line = code[..at].lines().count().max(1);
            let words: Vec<&str> = code[at + 3..at + end].split_whitespace().collect();
            let mut body = words.join(" ");
            for p in ["::", "{", "}", ","] {
                body = body
                    .replace(&format!(" {p}"), p)
                    .replace(&format!("{p} "), p);
            }
            out.push((line, body));
        }
    }
    out
}

/// A use tree flattened into its paths: `a::{b, c::{d, self}}` is `a::b`,
/// `a::c::d` and `a::c`; renames (`as x`) are dropped.
fn flatten(prefix: &str, tree: &str, out: &mut Vec<String>) {
    let join = |a: &str, b: &str| {
        if a.is_empty() {
            b.to_string()
        } else if b == "self" {
            a.to_string()
        } else {
            format!("{a}::{b}")
        }
    };
    let tree = tree.trim_start_matches("::");
    let Some(open) = tree.find('{') else {
        out.push(join(prefix, tree.split(" as ").next().unwrap_or(tree)));
        return;
    };
    let head = tree[..open].trim_end_matches("::");
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let base = join(prefix, head);
    let mut depth = 0;
    let mut start = 0;
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                flatten(&base, &inner[start..i], out);
                start = i + 1;
            }
            _ => {}
        }
    }
    if !inner[start..].is_empty() {
        flatten(&base, &inner[start..], out);
    }
}

/// `super::` and `self::` made absolute from the module `at`.
fn absolute(path: &str, at: &[String]) -> String {
    let mut module = at.to_vec();
    let mut rest = path;
    let mut relative = false;
    loop {
        if let Some(r) = rest.strip_prefix("super::") {
            module.pop();
            rest = r;
            relative = true;
        } else if let Some(r) = rest.strip_prefix("self::") {
            rest = r;
            relative = true;
        } else {
            break;
        }
    }
    if relative {
        format!("{}::{rest}", module.join("::"))
    } else {
        path.to_string()
    }
}

/// Every path the file's `use` statements import, made absolute, with its line.
fn imports(rel: &Path, code: &str) -> Vec<(usize, String)> {
    let at = module_of(rel);
    let mut out = Vec::new();
    for (line, body) in use_bodies(code) {
        let mut paths = Vec::new();
        flatten("", &body, &mut paths);
        out.extend(paths.into_iter().map(|p| (line, absolute(&p, &at))));
    }
    out
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
        breaches(ui, "let t = native.as_any().downcast_ref::<ItpTables>();").len(),
        1
    );
    assert_eq!(breaches(ui, "use crate::trace::pai::PaiTables;").len(), 2);
    // Mentions in comments and strings, and longer names, are not imports.
    assert!(breaches(sim, "// ratatui draws the grid\nlet s = \"crate::ui\";").is_empty());
    assert!(breaches(sim, "use crate::simulator;").is_empty());
    assert!(breaches(trace, "use crate::trace::model::Trace;").is_empty());
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
    let fmt = Path::new("fmt.rs");
    assert_eq!(
        breaches(fmt, "use crate::{text, trace::input::x};").len(),
        1
    );
    assert!(breaches(fmt, "use crate::text::sanitized;").is_empty());
    let text = Path::new("text.rs");
    assert_eq!(breaches(text, "use crate::fmt::human_secs;").len(), 1);
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
    assert_eq!(
        breaches(sim, "fn f() { let t = std::time::Instant::now(); }").len(),
        1,
        "the engine reading the wall clock"
    );
    assert_eq!(
        breaches(sim, "use std::process::{Command, Stdio};").len(),
        1
    );
    // Policies, the replay and the UI's update talk to no program.
    let books = Path::new("sim/policies/exec/books.rs");
    assert_eq!(
        breaches(books, "use crate::sim::drive::{ask, settle};").len(),
        1
    );
    assert_eq!(
        breaches(Path::new("sim/replay.rs"), "use std::{time::Instant, fs};").len(),
        2,
        "the wall clock and the file system, each named"
    );
    let play = Path::new("ui/play.rs");
    assert_eq!(breaches(play, "use crate::sim::{drive, Engine};").len(), 1);
    assert!(breaches(Path::new("ui/effects.rs"), "use crate::sim::drive;").is_empty());
    // The loaders may name their own tables.
    assert!(breaches(trace, "use crate::trace::pai::PaiTables;").is_empty());
}

/// One path for a switch: the policy (or power-limit policy) in force is
/// set, and a switch announced, only in `src/sim/engine/switch.rs`.
#[test]
fn a_switch_is_made_in_one_place() {
    let mut files = Vec::new();
    rust_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src/sim"),
        &mut files,
    );
    let mut found = Vec::new();
    for f in &files {
        let code = code_only(&std::fs::read_to_string(f).unwrap());
        for what in [
            "self.policy = ",
            "power.policy = ",
            "emit(Event::PolicySwitched",
            "emit(Event::PowerSwitched",
        ] {
            if code.contains(what) {
                found.push((f.file_name().unwrap().to_string_lossy().into_owned(), what));
            }
        }
    }
    found.sort();
    assert_eq!(
        found,
        vec![
            ("switch.rs".to_string(), "emit(Event::PolicySwitched"),
            ("switch.rs".to_string(), "emit(Event::PowerSwitched"),
            ("switch.rs".to_string(), "power.policy = "),
            ("switch.rs".to_string(), "self.policy = "),
        ]
    );
}

/// Errors are typed per layer (`trace::input`, `sim::error`,
/// `sim::drive::PolicyError`, `ui::error`, `plot::PlotError`): no function
/// in the library says what went wrong as a bare `String`.
#[test]
fn no_error_is_a_bare_string() {
    let mut files = Vec::new();
    rust_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    let mut found = Vec::new();
    for f in &files {
        let code = code_only(&std::fs::read_to_string(f).unwrap());
        for (i, line) in code.lines().enumerate() {
            let bare = line.find("Result<").is_some_and(|at| {
                let rest = &line[at..];
                rest.contains(", String>") && !rest.contains("Map<")
            });
            if bare || line.contains("type Err = String") {
                found.push(format!("{}:{}: {}", f.display(), i + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "errors as bare strings:\n{}",
        found.join("\n")
    );
}

/// Work spread over cores goes one way (`src/par.rs`: scoped threads,
/// results in order); the only other threads are the long-lived ones that
/// stream: decompressors' pumps, the replay's background work, an external
/// policy's pipe readers and the reading of a huge answer, the background
/// what-if, the headless signal watcher.
const OWN_THREADS: &[&str] = &[
    "par.rs",
    "procs.rs",
    "trace/archive.rs",
    "trace/xz.rs",
    "ui/run.rs",
    "ui/signals.rs",
    "sim/drive/child.rs",
    "sim/drive/link.rs",
    "sim/drive/stderr.rs",
    "sim/whatif.rs",
];

/// The lines of `code` (comments and strings left out) that make threads.
fn thread_makers(code: &str) -> Vec<usize> {
    let makers = [
        "thread::scope",
        "thread::spawn",
        "thread::Builder",
        "available_parallelism",
        "spawn_scoped",
    ];
    let code = code_only(code);
    code.lines()
        .enumerate()
        .filter(|(_, l)| makers.iter().any(|m| l.contains(m)))
        .map(|(i, _)| i + 1)
        .collect()
}

#[test]
fn work_on_every_core_goes_one_way() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut found = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&src).expect("under src");
        let rel_s = rel.to_string_lossy().replace('\\', "/");
        // Tests may make threads to race the code they test.
        if OWN_THREADS.contains(&rel_s.as_str()) || rel_s.ends_with("tests.rs") {
            continue;
        }
        let code = std::fs::read_to_string(f).expect("read a source file");
        let code = code.split("#[cfg(test)]").next().unwrap_or("");
        for line in thread_makers(code) {
            found.push(format!("{rel_s}:{line}"));
        }
    }
    assert!(
        found.is_empty(),
        "threads made outside src/par.rs (use par::each, par::pool or par::both):\n{}",
        found.join("\n")
    );
    assert_eq!(
        thread_makers("fn f() {\n    std::thread::scope(|s| {});\n}"),
        vec![2]
    );
    assert!(thread_makers("// std::thread::scope\nlet s = \"thread::spawn\";").is_empty());
}

/// Every module a file names, by `use` or by an inline path (`super::x::f`,
/// `crate::ui::x::T`), made absolute.
fn named_modules(rel: &Path, code: &str) -> Vec<String> {
    let at = module_of(rel);
    let mut out: Vec<String> = imports(rel, code).into_iter().map(|p| p.1).collect();
    for start in ["super::", "crate::"] {
        let mut from = 0;
        while let Some(i) = code[from..].find(start) {
            let at_i = from + i;
            from = at_i + start.len();
            let before = code[..at_i].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let end = code[at_i..]
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .map_or(code.len(), |e| at_i + e);
            out.push(absolute(&code[at_i..end], &at));
        }
    }
    out
}

/// A circle of imports among `files` (module path, code), if there is one.
fn import_circle(files: &[(PathBuf, String)]) -> Option<Vec<String>> {
    let modules: Vec<String> = files.iter().map(|(r, _)| module_of(r).join("::")).collect();
    let deps: Vec<Vec<usize>> = files
        .iter()
        .enumerate()
        .map(|(me, (rel, code))| {
            let mut d: Vec<usize> = named_modules(rel, code)
                .iter()
                .filter_map(|p| {
                    // The longest module the path starts with.
                    (0..modules.len())
                        .filter(|&k| {
                            p == &modules[k] || p.starts_with(&format!("{}::", modules[k]))
                        })
                        .max_by_key(|&k| modules[k].len())
                })
                .filter(|&k| k != me)
                .collect();
            d.sort_unstable();
            d.dedup();
            d
        })
        .collect();
    // Depth-first, with the path kept: a module met again on it closes a circle.
    fn visit(
        v: usize,
        deps: &[Vec<usize>],
        state: &mut [u8],
        path: &mut Vec<usize>,
    ) -> Option<Vec<usize>> {
        state[v] = 1;
        path.push(v);
        for &w in &deps[v] {
            if state[w] == 1 {
                let from = path.iter().position(|&x| x == w).unwrap_or(0);
                return Some(path[from..].to_vec());
            }
            if state[w] == 0 {
                if let Some(c) = visit(w, deps, state, path) {
                    return Some(c);
                }
            }
        }
        path.pop();
        state[v] = 2;
        None
    }
    let mut state = vec![0u8; files.len()];
    for v in 0..files.len() {
        if state[v] == 0 {
            if let Some(c) = visit(v, &deps, &mut state, &mut Vec::new()) {
                return Some(c.into_iter().map(|k| modules[k].clone()).collect());
            }
        }
    }
    None
}

/// The UI's files import one another without a circle: a feature's state
/// (which `state.rs` holds) never imports the app; its actions (`impl App`)
/// and its view do, and nothing the app holds imports them.
#[test]
fn the_ui_has_no_import_circle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    rust_files(&src.join("ui"), &mut paths);
    paths.sort();
    let files: Vec<(PathBuf, String)> = paths
        .iter()
        .filter(|p| !p.ends_with("ui/mod.rs"))
        .map(|p| {
            let code = code_only(&std::fs::read_to_string(p).unwrap());
            (p.strip_prefix(&src).unwrap().to_path_buf(), code)
        })
        .collect();
    assert!(files.len() > 30, "found only {} UI files", files.len());
    assert_eq!(import_circle(&files), None);
    // The check itself: two files that name each other are a circle,
    // by a grouped `use` one way and an inline path the other.
    let toy = vec![
        (
            PathBuf::from("ui/a.rs"),
            "use super::{b::B, c};".to_string(),
        ),
        (
            PathBuf::from("ui/b.rs"),
            "fn f() { super::a::g(); }".to_string(),
        ),
        (PathBuf::from("ui/c.rs"), String::new()),
    ];
    assert_eq!(
        import_circle(&toy),
        Some(vec!["crate::ui::a".to_string(), "crate::ui::b".to_string()])
    );
}

#[test]
fn every_format_is_guarded() {
    // A format added without its names here could be named anywhere.
    for f in tracetui::trace::FORMATS.iter() {
        let module = format!("trace::{}", f.name());
        assert!(
            FORMAT_NAMES.contains(&module.as_str()),
            "{module} is not in tests/layering.rs's FORMAT_NAMES"
        );
    }
}
