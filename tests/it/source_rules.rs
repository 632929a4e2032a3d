//! Rules the source keeps beyond its layers: a switch made in one place,
//! errors typed, work on every core going one way, no import circle in
//! the UI, and no file over 500 lines.

use crate::common;

use common::source::{absolute, code_only, imports, module_of, rust_files, workspace_files};
use std::path::{Path, PathBuf};

/// One path for a switch: the policy (or power-limit policy) in force is
/// set (`Seat::policy`), and a switch announced, only in
/// `engine/src/engine/switch.rs`.
#[test]
fn a_switch_is_made_in_one_place() {
    let mut files = Vec::new();
    rust_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("engine/src"),
        &mut files,
    );
    let mut found = Vec::new();
    for f in &files {
        let code = code_only(&std::fs::read_to_string(f).unwrap());
        for what in [
            "seat.policy = ",
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
            ("switch.rs".to_string(), "seat.policy = "),
        ]
    );
}

/// Errors are typed per layer (`trace::input`, `sim::error`,
/// `driver::PolicyError`, `ui::error`, `plot::PlotError`): no function
/// in the library says what went wrong as a bare `String`.
#[test]
fn no_error_is_a_bare_string() {
    let mut found = Vec::new();
    for (_, f) in &workspace_files() {
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

/// Global state is the driver's alone (signal handling: each of its
/// statics says why); every other crate passes what it keeps as a value
/// (the policy registry, the hashes a command made, the log pane's
/// wrapped lines). A `static` whose type can change behind a shared
/// reference (a lock, a cell, an atomic, a lazily made value) anywhere
/// else fails this test, and so does a `set_var`.
#[test]
fn statics_that_change_live_in_the_driver() {
    const MUTABLE: [&str; 8] = [
        "Mutex",
        "RwLock",
        "OnceLock",
        "OnceCell",
        "LazyLock",
        "Cell<",
        "Atomic",
        "static mut",
    ];
    let mut found = Vec::new();
    for (name, f) in &workspace_files() {
        if name.starts_with("driver/") {
            continue;
        }
        let code = code_only(&std::fs::read_to_string(f).unwrap());
        for (i, line) in code.lines().enumerate() {
            let t = line.trim_start();
            let is_static = t.starts_with("static ")
                || t.starts_with("pub static ")
                || t.starts_with("pub(crate) static ")
                || t.starts_with("pub(super) static ");
            if (is_static && MUTABLE.iter().any(|m| line.contains(m))) || line.contains("set_var(")
            {
                found.push(format!("{name}:{}: {}", i + 1, t));
            }
        }
    }
    assert!(
        found.is_empty(),
        "global state outside the driver:\n{}",
        found.join("\n")
    );
    // The rule sees what it looks for: the driver's own statics are there.
    let driver = workspace_files()
        .into_iter()
        .filter(|(n, _)| n.starts_with("driver/"))
        .any(|(_, f)| {
            let code = code_only(&std::fs::read_to_string(f).unwrap());
            code.lines()
                .any(|l| l.trim_start().starts_with("static ") && l.contains("Atomic"))
        });
    assert!(
        driver,
        "the driver's signal flags are statics this test would see"
    );
}

/// Work spread over cores goes one way (`src/par.rs`: scoped threads,
/// results in order); the only other threads are the long-lived ones that
/// stream: decompressors' pumps, the replay's background work, an external
/// policy's pipe readers and the reading of a huge answer, the background
/// what-if, the headless signal watcher, a policy keeper's watch on
/// tracetui's life.
const OWN_THREADS: &[&str] = &[
    "driver/keeper.rs",
    "model/par.rs",
    "driver/procs.rs",
    "model/archive.rs",
    "model/xz.rs",
    "ui/run.rs",
    "driver/signals.rs",
    "driver/child.rs",
    "driver/link.rs",
    "driver/stderr.rs",
    "engine/whatif.rs",
    "driver/cache_writes.rs",
    "driver/slurm_live.rs",
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
    let mut found = Vec::new();
    for (rel_s, f) in &workspace_files() {
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

/// Functions stay under 80 lines (from `fn` to its closing brace), in
/// every crate's source: a longer one is cut into functions that each do
/// one nameable thing.
#[test]
fn no_function_is_over_80_lines() {
    let mut long = Vec::new();
    let mut seen = 0;
    for (name, f) in &workspace_files() {
        let text = std::fs::read_to_string(f).unwrap();
        for (at, fn_name, lines) in functions(&text) {
            seen += 1;
            if lines > 80 {
                long.push(format!("{name}:{at}: {fn_name} has {lines} lines"));
            }
        }
    }
    assert!(seen > 1000, "found only {seen} functions");
    assert!(long.is_empty(), "{}", long.join("\n"));
}

/// Each function of `text` with a body: (line of its `fn`, its name, its
/// lines from `fn` to the closing brace at the `fn`'s indent).
fn functions(text: &str) -> Vec<(usize, String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim_start();
        let indent = l.len() - t.len();
        let head = [
            "pub ",
            "pub(crate) ",
            "pub(super) ",
            "const ",
            "async ",
            "unsafe ",
        ]
        .iter()
        .fold(t, |t, p| t.strip_prefix(p).unwrap_or(t));
        let Some(rest) = head.strip_prefix("fn ") else {
            continue;
        };
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        // Its body opens where the signature's line ends in `{`; a `;`
        // first is a declaration.
        let Some(open) = lines[i..]
            .iter()
            .position(|l| l.trim_end().ends_with('{') || l.trim_end().ends_with(';'))
        else {
            continue;
        };
        if lines[i + open].trim_end().ends_with(';') {
            continue;
        }
        let close = lines[i + open + 1..].iter().position(|l| {
            let t = l.trim_start();
            l.len() - t.len() == indent && t.starts_with('}')
        });
        if let Some(c) = close {
            out.push((i + 1, name, open + c + 2));
        }
    }
    out
}

#[test]
fn a_long_function_is_counted() {
    let body: String = (0..90).map(|i| format!("    let x{i} = {i};\n")).collect();
    let text = format!(
        "fn short() {{\n}}\n\npub(crate) fn long(\n    a: u32,\n) -> u32 {{\n{body}    a\n}}\n"
    );
    let found = functions(&text);
    assert_eq!(found[0], (1, "short".to_string(), 2));
    assert_eq!(found[1], (4, "long".to_string(), 3 + 90 + 2));
}

/// Files stay small (the guide: most under ~300 lines, none over 500):
/// the source, the tests and the benchmarks.
#[test]
fn no_file_is_over_500_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in common::source::SOURCES
        .iter()
        .copied()
        .chain(["tests", "benches"])
    {
        if root.join(dir).is_dir() {
            rust_files(&root.join(dir), &mut files);
        }
    }
    files.sort();
    assert!(files.len() > 100, "found only {} files", files.len());
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let n = std::fs::read_to_string(f).unwrap().lines().count();
            (n > 500).then(|| format!("{} has {n} lines", f.strip_prefix(root).unwrap().display()))
        })
        .collect();
    assert!(long.is_empty(), "{}", long.join("\n"));
}
