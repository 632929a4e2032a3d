#!/usr/bin/env python3
"""Import circles among a crate's files: the strongly connected components
of the graph "file A names an item of file B" (through `use` trees, grouped
and nested, and paths written inline: `crate::`, `super::`, `self::`).
A module's `mod` lines do not count; test modules (`#[cfg(test)]` files
named `tests.rs` or `*_tests.rs`) are left out.

usage: .ci/import-circles.py SRC_DIR [--max N] [--why]
Prints each circle of more than one file, largest first; with --max N
exits 1 if any circle has more than N files; with --why prints the
edges inside each circle and a path that makes each.
"""
import os
import re
import sys


def rust_files(root):
    for d, _, fs in os.walk(root):
        for f in fs:
            if f.endswith(".rs"):
                yield os.path.join(d, f)


def module_path(root, path):
    rel = os.path.relpath(path, root)[:-3].split(os.sep)
    if rel[-1] in ("mod", "lib", "main"):
        rel = rel[:-1]
    return rel


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r'"(\\.|[^"\\])*"', '""', text)
    return text


def cut_tests(text):
    # A trailing `#[cfg(test)] mod tests { ... }` names its parent; leave it out.
    m = re.search(r"#\[cfg\(test\)\]\s*(pub(\([^)]*\))?\s*)?mod\s+\w+\s*\{", text)
    return text[: m.start()] if m else text


def expand_use(tree):
    """`a::{b, c::{d, e}}` -> ['a::b', 'a::c::d', 'a::c::e']."""
    tree = tree.strip()
    i = tree.find("{")
    if i < 0:
        return [re.split(r"\s+as\s+", tree)[0].strip()]
    prefix, body = tree[:i], tree[i + 1 : tree.rfind("}")]
    parts, depth, cur = [], 0, ""
    for ch in body:
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += ch == "{"
        depth -= ch == "}"
        cur += ch
    parts.append(cur)
    out = []
    for p in parts:
        if p.strip():
            for e in expand_use(p):
                out.append(prefix + e if e != "self" else prefix.rstrip(":"))
    return out


def paths_in(text):
    for m in re.finditer(r"\buse\s+([^;]+);", text):
        yield from expand_use(m.group(1))
    for m in re.finditer(r"\b((?:crate|super|self)(?:::[A-Za-z_][A-Za-z0-9_]*)+)", text):
        yield m.group(1)
    # A child module named without `self::` (`fifo::Fifo`, `use talk::Talk`).
    for m in re.finditer(r"(?<![:\w])([a-z_][a-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)+)", text):
        yield "self::" + m.group(1)


def resolve(mods, here, path):
    segs = [s.strip() for s in path.split("::") if s.strip()]
    if not segs:
        return None
    if segs[0] == "crate":
        base, segs = [], segs[1:]
    elif segs[0] in ("super", "self"):
        base = list(here)
        while segs and segs[0] in ("super", "self"):
            if segs[0] == "super" and base:
                base = base[:-1]
            segs = segs[1:]
    else:
        return None
    best = None
    cur = list(base)
    if tuple(cur) in mods:
        best = tuple(cur)
    for s in segs:
        cur.append(s)
        if tuple(cur) in mods:
            best = tuple(cur)
        else:
            break
    return best


def sccs(nodes, edges):
    index, low, on, stack, out, n = {}, {}, set(), [], [], [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(comp)

    for v in nodes:
        if v not in index:
            visit(v)
    return out


def main():
    root = sys.argv[1]
    limit = int(sys.argv[sys.argv.index("--max") + 1]) if "--max" in sys.argv else None
    files = {}
    for f in rust_files(root):
        base = os.path.basename(f)
        if base == "tests.rs" or base.endswith("_tests.rs"):
            continue
        files[tuple(module_path(root, f))] = f
    edges, why = {}, {}
    for mod, f in files.items():
        text = cut_tests(strip_comments(open(f, encoding="utf-8").read()))
        for p in paths_in(text):
            t = resolve(files, list(mod), p)
            if t is not None and t != mod:
                edges.setdefault(mod, set()).add(t)
                why.setdefault((mod, t), p)
    comps = sorted((c for c in sccs(list(files), edges) if len(c) > 1), key=len, reverse=True)
    for c in comps:
        names = sorted(os.path.relpath(files[m], root) for m in c)
        print(f"{len(c)} files: " + ", ".join(names))
        if "--why" in sys.argv:
            inside = set(c)
            for a in sorted(c):
                for b in sorted(edges.get(a, ())):
                    if b in inside:
                        print(f"    {os.path.relpath(files[a], root)} -> {os.path.relpath(files[b], root)}  ({why[(a, b)]})")
    if not comps:
        print("no import circles")
    if limit is not None and any(len(c) > limit for c in comps):
        sys.exit(1)


if __name__ == "__main__":
    main()
