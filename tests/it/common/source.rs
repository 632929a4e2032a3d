//! Reading the project's own source in tests: code without comments and
//! strings, every Rust file under a directory.

use std::path::{Path, PathBuf};

/// Code without comments and string literals, so a doc line that mentions
/// `ratatui` is not an import.
pub fn code_only(text: &str) -> String {
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

/// Every `.rs` file under `dir`, recursively.
pub fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src") {
        let p = entry.expect("dir entry").path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The module a file under src is: `trace/pai/mod.rs` is `crate::trace::pai`.
pub fn module_of(rel: &Path) -> Vec<String> {
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
pub fn use_bodies(code: &str) -> Vec<(usize, String)> {
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
pub fn flatten(prefix: &str, tree: &str, out: &mut Vec<String>) {
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
pub fn absolute(path: &str, at: &[String]) -> String {
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
pub fn imports(rel: &Path, code: &str) -> Vec<(usize, String)> {
    let at = module_of(rel);
    let mut out = Vec::new();
    for (line, body) in use_bodies(code) {
        let mut paths = Vec::new();
        flatten("", &body, &mut paths);
        out.extend(paths.into_iter().map(|p| (line, absolute(&p, &at))));
    }
    out
}

/// The source directories of the workspace's crates, from the root: the
/// application's `src` and each library crate's.
pub const SOURCES: &[&str] = &["src", "model/src", "engine/src", "driver/src"];

/// Every `.rs` file of every crate's source, with its name as the rules
/// give it: under the application's `src` as is (`ui/run.rs`), under a
/// library crate's with the crate's folder first (`model/par.rs`).
pub fn workspace_files() -> Vec<(String, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for dir in SOURCES {
        let src = root.join(dir);
        if !src.is_dir() {
            continue;
        }
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        let krate = dir.strip_suffix("/src").map(|c| format!("{c}/"));
        for f in files {
            let rel = f.strip_prefix(&src).expect("under its src");
            let rel = rel.to_string_lossy().replace('\\', "/");
            out.push((format!("{}{rel}", krate.as_deref().unwrap_or("")), f));
        }
    }
    out.sort();
    out
}
