//! The modules a Python policy script imports from its own folder — the
//! files whose edit changes its runs — found by reading its `import` and
//! `from … import` statements, and theirs, transitively. Modules found
//! elsewhere (the standard library, site-packages, a folder the script
//! puts on `sys.path` itself) and imports made by call
//! (`importlib.import_module`) are not followed; files beside the script
//! that nothing imports are not its inputs.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// The most modules followed from one script: a bound against a hostile
/// folder, far above any policy's (ElasticFlow's port imports 12).
const MOST_MODULES: usize = 10_000;

/// The most bytes read of one module when looking for its imports.
const MOST_BYTES: u64 = 16 << 20;

/// The modules `script` imports from its folder (and its packages there),
/// with theirs, by path.
pub(crate) fn imported_beside(script: &Path) -> Vec<PathBuf> {
    let Some(root) = script.parent() else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = Vec::new();
    let mut seen: HashSet<PathBuf> = HashSet::from([script.to_path_buf()]);
    let mut todo: Vec<PathBuf> = vec![script.to_path_buf()];
    while let Some(module) = todo.pop() {
        let here = module.parent().unwrap_or(root);
        for statement in statements(&read_module(&module)) {
            for f in resolve(root, here, &statement) {
                if found.len() < MOST_MODULES && seen.insert(f.clone()) {
                    found.push(f.clone());
                    todo.push(f);
                }
            }
        }
    }
    found.sort();
    found
}

fn read_module(path: &Path) -> String {
    use std::io::Read;
    let mut bytes = Vec::new();
    if let Ok(f) = std::fs::File::open(path) {
        let _ = f.take(MOST_BYTES).read_to_end(&mut bytes);
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The `import …` and `from … import …` statements of a module's text,
/// each on one line: comments cut, `\` continuations and a `from`'s
/// parenthesised names joined, `;`-separated statements apart.
fn statements(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut depth = 0i64;
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or_default();
        let (body, continued) = match line.trim_end().strip_suffix('\\') {
            Some(b) => (b, true),
            None => (line, false),
        };
        current.push_str(body);
        current.push(' ');
        let start = current.trim_start();
        if start.starts_with("from ") || start.starts_with("import ") {
            depth += body.matches('(').count() as i64 - body.matches(')').count() as i64;
        }
        if (depth > 0 || continued) && current.len() < 1 << 16 {
            continue;
        }
        for s in current.split(';').map(str::trim) {
            if s.starts_with("from ") || s.starts_with("import ") {
                out.push(s.to_string());
            }
        }
        current.clear();
        depth = 0;
    }
    out
}

/// The files of `root` that a statement in a module of the folder `here`
/// imports.
fn resolve(root: &Path, here: &Path, statement: &str) -> Vec<PathBuf> {
    let mut files = Vec::new();
    if let Some(names) = statement.strip_prefix("import ") {
        for name in names.split(',').filter_map(dotted) {
            walk(root, &name, &mut files);
        }
        return files;
    }
    let Some(rest) = statement.strip_prefix("from ") else {
        return files;
    };
    let Some((module, names)) = rest.split_once(" import ") else {
        return files;
    };
    let module = module.trim();
    let level = module.len() - module.trim_start_matches('.').len();
    let Some(base) = relative_base(root, here, level) else {
        return files;
    };
    let parts: Vec<String> = match module.trim_start_matches('.') {
        "" => Vec::new(),
        m => match dotted(m) {
            Some(p) => p,
            None => return files,
        },
    };
    // `from PACKAGE import NAME`: a NAME may be a module of the package.
    if let Some(package) = walk(&base, &parts, &mut files) {
        let names = names.replace(['(', ')'], " ");
        for name in names.split(',').filter_map(dotted) {
            if let [one] = name.as_slice() {
                walk(&package, std::slice::from_ref(one), &mut files);
            }
        }
    }
    files
}

/// Where a relative import of `level` dots from the folder `here` starts
/// (`here` itself for one dot); none above `root`.
fn relative_base(root: &Path, here: &Path, level: usize) -> Option<PathBuf> {
    if level == 0 {
        return Some(root.to_path_buf());
    }
    let mut base = here.to_path_buf();
    for _ in 1..level {
        if base == root {
            return None;
        }
        base = base.parent()?.to_path_buf();
    }
    base.starts_with(root).then_some(base)
}

/// `a.b.c` (or `a.b as c`) as its parts, if each is an identifier.
fn dotted(s: &str) -> Option<Vec<String>> {
    let name = s.split_whitespace().next()?;
    let parts: Vec<String> = name.split('.').map(str::to_string).collect();
    let ident = |p: &String| {
        !p.is_empty()
            && !p.starts_with(|c: char| c.is_ascii_digit())
            && p.chars().all(|c| c.is_alphanumeric() || c == '_')
    };
    parts.iter().all(ident).then_some(parts)
}

/// Imports the dotted `parts` from `base`: the files each step reads
/// (`a/__init__.py`, then `a/b.py`), into `files`; the package directory
/// the last part is, if it is one.
fn walk(base: &Path, parts: &[String], files: &mut Vec<PathBuf>) -> Option<PathBuf> {
    let mut dir = base.to_path_buf();
    for p in parts {
        let package = dir.join(p);
        let init = package.join("__init__.py");
        if init.is_file() {
            files.push(init);
            dir = package;
            continue;
        }
        let module = dir.join(format!("{p}.py"));
        if module.is_file() {
            files.push(module);
            return None;
        }
        // A namespace package: a folder without `__init__.py`.
        if !package.is_dir() {
            return None;
        }
        dir = package;
    }
    Some(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(root: &Path, found: &[PathBuf]) -> Vec<String> {
        found
            .iter()
            .map(|p| p.strip_prefix(root).unwrap().display().to_string())
            .collect()
    }

    #[test]
    fn imports_are_followed_inside_the_folder_only() {
        let dir = std::env::temp_dir().join(format!("py-imports-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("pkg/sub")).unwrap();
        let write = |p: &str, t: &str| std::fs::write(dir.join(p), t).unwrap();
        write(
            "main.py",
            "import os, helper as h  # comment: import nothing\n\
             from pkg import (one,\n    two)\n\
             x = 1; import pkg.sub.deep\n\
             def f():\n    from pkg.sub import *\n\
             print('(')\nimport late\n",
        );
        write("helper.py", "from chained import thing\n");
        write("chained.py", "");
        write("unrelated.py", "");
        write("late.py", "");
        write(
            "pkg/__init__.py",
            "from .inner import x\nfrom .. import helper\n",
        );
        write("pkg/inner.py", "");
        write("pkg/one.py", "");
        write("pkg/two.py", "from . import one\n");
        write("pkg/sub/__init__.py", "");
        write("pkg/sub/deep.py", "from ... import outside\n");
        let found = imported_beside(&dir.join("main.py"));
        assert_eq!(
            names(&dir, &found),
            [
                "chained.py",
                "helper.py",
                "late.py",
                "pkg/__init__.py",
                "pkg/inner.py",
                "pkg/one.py",
                "pkg/sub/__init__.py",
                "pkg/sub/deep.py",
                "pkg/two.py",
            ]
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The ElasticFlow port: its script reaches every module of its
    /// package, and the helper; none of the other policies beside it.
    #[test]
    fn the_elasticflow_script_reaches_its_whole_package() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("policies");
        let found = imported_beside(&root.join("elasticflow.py"));
        let mut want: Vec<String> = std::fs::read_dir(root.join("elasticflow_port"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "py"))
            .map(|p| p.strip_prefix(&root).unwrap().display().to_string())
            .collect();
        want.push("tracetui_policy.py".into());
        want.sort();
        assert_eq!(names(&root, &found), want);
    }

    #[test]
    fn statements_join_continuations_and_split_semicolons() {
        let s = statements("from a import (b,\n c)\nimport d, \\\n e; import f\ny = '#'\n");
        assert_eq!(s, ["from a import (b,  c)", "import d,   e", "import f",]);
    }
}
