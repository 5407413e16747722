#!/usr/bin/env python3
"""Import circles between the files of a Rust crate folder (issue 28).

    python3 bench/tools/import_graph.py api/src infra/src          # files of whole crates
    python3 bench/tools/import_graph.py --rooms domain/src/bandits  # rooms of one game

A file depends on another when its code names it: a path starting `crate::`, `super::` or
`self::` (in a `use` or inline), a relative path through one of its own `mod` children
(`games::create_game` in `routes/mod.rs`), or a glob `use super::*`. A path is resolved to the
deepest file module it reaches (`crate::application::error::AppError` is
`application/error.rs`; `crate::application::AppError`, a re-export, is `application/mod.rs`).
Comments, string literals and `#[cfg(test)]` modules (inline, or files declared by
`#[cfg(test)] mod tests;`) are left out: tests may reach anywhere.

The folder may be a crate's `src` or any module folder under it (`domain/src/bandits`): only
files inside it are nodes. `--rooms` collapses each file to its room, the first folder or file
under the given folder (`decide/`, `evolve.rs`…), to check circles between rooms.

Prints each circle (strongly connected component of two or more nodes, or a file naming
itself is not one) with one path through it, and exits 1 if there is any; `--graph` prints
the edges.
"""

import os
import re
import sys

PATH = re.compile(r"\b(crate|super|self)((?:\s*::\s*[A-Za-z_][A-Za-z0-9_]*)+)")
SEGMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def strip(text):
    """The code without comments, string and char literals (kept as empty quotes)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
        elif c == "r" and re.match(r'r#*"', text[i:]) and (i == 0 or not text[i - 1].isalnum()):
            hashes = re.match(r'r(#*)"', text[i:]).group(1)
            end = text.find('"' + hashes, i + 2 + len(hashes))
            out.append('""')
            i = n if end < 0 else end + 1 + len(hashes)
        elif c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            out.append('""')
            i += 1
        elif c == "'" and re.match(r"'(\\.|[^\\'])'", text[i:]):
            m = re.match(r"'(\\[^']*|[^\\'])'", text[i:])
            out.append("' '")
            i += len(m.group(0))
        else:
            out.append(c)
            i += 1
    return "".join(out)


def without_tests(code):
    """The code without `#[cfg(test)]` items (a test module's braces, or one item's line)."""
    while True:
        m = re.search(r"#\[cfg\(test\)\]", code)
        if not m:
            return code
        j = m.end()
        brace = code.find("{", j)
        semi = code.find(";", j)
        if semi >= 0 and (brace < 0 or semi < brace):
            code = code[: m.start()] + code[semi + 1 :]
            continue
        depth, k = 0, brace
        while k < len(code):
            if code[k] == "{":
                depth += 1
            elif code[k] == "}":
                depth -= 1
                if depth == 0:
                    break
            k += 1
        code = code[: m.start()] + code[k + 1 :]


def use_paths(code):
    """Every path a `use` item names, its braces expanded: (offset, segments) pairs."""
    paths = []
    for m in re.finditer(r"\buse\s+([^;]+);", code):
        tree = re.sub(r"\s+as\s+[A-Za-z_][A-Za-z0-9_]*", "", m.group(1))
        found = []
        expand(re.sub(r"\s+", "", tree), [], found)
        paths += [(m.start(), segs) for segs in found]
    return paths


def inline_modules(code):
    """The `mod name { … }` blocks written inside a file: (start, end, name) triples."""
    blocks = []
    for m in re.finditer(r"\bmod\s+([A-Za-z_][A-Za-z0-9_]*)\s*\{", code):
        depth, k = 0, m.end() - 1
        while k < len(code):
            if code[k] == "{":
                depth += 1
            elif code[k] == "}":
                depth -= 1
                if depth == 0:
                    break
            k += 1
        blocks.append((m.start(), k, m.group(1)))
    return blocks


def module_at(module, blocks, offset):
    """The module a path written at `offset` is in: `super::` inside an inline `mod` block
    is the file's own module, not its parent."""
    return tuple(module) + tuple(name for start, end, name in blocks if start < offset < end)


def expand(tree, prefix, paths):
    if "{" not in tree:
        paths.append(prefix + [s for s in tree.split("::") if s])
        return
    head, rest = tree.split("{", 1)
    inner = rest[: rest.rfind("}")]
    base = prefix + [s for s in head.split("::") if s]
    depth, start = 0, 0
    for i, c in enumerate(inner + ","):
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == "," and depth == 0:
            part = inner[start:i]
            if part:
                expand(part, base, paths)
            start = i + 1


class Crate:
    def __init__(self, folder):
        folder = os.path.normpath(folder)
        parts = folder.split(os.sep)
        if "src" not in parts:
            sys.exit(f"{folder}: not inside a crate's src folder")
        at = len(parts) - 1 - parts[::-1].index("src")
        self.src = os.sep.join(parts[: at + 1]) or "."
        self.folder = folder
        self.modules = {}  # module path (tuple) -> file
        for root, _, files in os.walk(self.src):
            for name in files:
                if name.endswith(".rs"):
                    path = os.path.join(root, name)
                    self.modules[self.module_of(path)] = path
        # A file declared by `#[cfg(test)] mod name;` is a test module: left out, with its
        # children, like an inline one.
        tests = set()
        for module, path in self.modules.items():
            with open(path, encoding="utf-8") as f:
                code = strip(f.read())
            for name in re.findall(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+([A-Za-z_][A-Za-z0-9_]*)\s*;", code):
                tests.add(module + (name,))
        self.modules = {
            m: p for m, p in self.modules.items() if not any(m[: len(t)] == t for t in tests)
        }
        self.files = {}  # file -> module path
        for module, path in self.modules.items():
            self.files[path] = module

    def module_of(self, path):
        rel = os.path.relpath(path, self.src)[:-3].split(os.sep)
        if rel[-1] in ("lib", "main", "mod"):
            rel = rel[:-1]
        return tuple(rel)

    def owns(self, path):
        return os.path.commonpath([self.folder, path]) == self.folder

    def is_dir_module(self, path):
        return os.path.basename(path) in ("mod.rs", "lib.rs", "main.rs")

    def resolve(self, module, segs):
        """The file a path from `module` reaches, or None when it leaves the crate."""
        here = list(module)
        i = 0
        if segs and segs[0] == "crate":
            here, i = [], 1
        elif segs and segs[0] in ("super", "self"):
            while i < len(segs) and segs[i] in ("super", "self"):
                if segs[i] == "super":
                    if not here:
                        return None
                    here = here[:-1]
                i += 1
        elif not (segs and tuple(module) + (segs[0],) in self.modules):
            return None  # an outside crate, std, or a name in scope
        for s in segs[i:]:
            if tuple(here + [s]) in self.modules:
                here.append(s)
            else:
                break
        return self.modules.get(tuple(here))

    def edges(self):
        graph = {}
        for path, module in self.files.items():
            if not self.owns(path):
                continue
            with open(path, encoding="utf-8") as f:
                code = without_tests(strip(f.read()))
            children = set(re.findall(r"\bmod\s+([A-Za-z_][A-Za-z0-9_]*)\s*;", code))
            blocks = inline_modules(code)
            found = set()
            for at, segs in use_paths(code):
                if segs and (segs[0] in ("crate", "super", "self") or segs[0] in children):
                    found.add(self.resolve(module_at(module, blocks, at), segs))
            for m in PATH.finditer(code):
                segs = [m.group(1)] + SEGMENT.findall(m.group(2))
                found.add(self.resolve(module_at(module, blocks, m.start()), segs))
            for child in children:
                # `child::name` inline (registration, re-exports) reaches the child's file.
                if re.search(rf"(?<![:\w]){child}\s*::\s*[A-Za-z_{{*]", code):
                    found.add(self.resolve(module, [child]))
            graph[path] = {t for t in found if t and t != path and self.owns(t)}
        return graph


def rooms(graph, folder):
    def room(path):
        rel = os.path.relpath(path, folder).split(os.sep)[0]
        return rel[:-3] if rel.endswith(".rs") else rel

    out = {}
    for a, targets in graph.items():
        ra = room(a)
        out.setdefault(ra, set())
        out[ra] |= {room(b) for b in targets if room(b) != ra}
    return out


def circles(graph):
    """Strongly connected components of two or more nodes (Tarjan)."""
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def one_cycle(graph, component):
    """A path through the component that comes back to its start."""
    members = set(component)
    start = component[0]
    parents, queue = {start: None}, [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(graph.get(v, ())):
            if w == start:
                path = [v]
                while parents[path[-1]] is not None:
                    path.append(parents[path[-1]])
                return list(reversed(path)) + [start]
            if w in members and w not in parents:
                parents[w] = v
                queue.append(w)
    return component


def main(argv):
    as_rooms = "--rooms" in argv
    show = "--graph" in argv
    folders = [a for a in argv if not a.startswith("--")]
    if not folders:
        sys.exit(__doc__)
    bad = 0
    for folder in folders:
        graph = Crate(folder).edges()
        if as_rooms:
            graph = rooms(graph, os.path.normpath(folder))
        if show:
            for a in sorted(graph):
                for b in sorted(graph[a]):
                    print(f"{a} -> {b}")
        found = circles(graph)
        for component in found:
            print(f"circle in {folder} ({len(component)} nodes): " + " → ".join(one_cycle(graph, component)))
        if not found:
            print(f"{folder}: no circle ({len(graph)} nodes, {sum(map(len, graph.values()))} edges)")
        bad += len(found)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
