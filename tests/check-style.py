#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""make check-style: what docs/internals.md says about the code, enforced (issue #43).

Like curl's checksrc and git's check-builtins, it reads the sources, not the build:

  header     every src/ file opens (after its SPDX line) with a comment saying what it owns
  pair       a .c/.h pair is at most PAIR_MAX lines together
  function   a function definition is at most FUNC_MAX lines, signature to closing brace
  prefix     a name with external linkage (from the objects: nm) starts with its file's prefix:
             il_STEM, il_DIR_STEM, or il_DIR_REST when STEM is DIR + REST (labhost: il_lab_host)
  oom        no hand-written "out of memory" string: il_err_oom / il_err_strerror(IL_ENOMEM) say it
  print      library code (src/ outside cli/) never prints: no printf, puts, perror, stdout, stderr
  exit       library code never exits: no exit, _exit, abort
  unchecked  no call whose result says it ran out of memory used as a bare statement (a libc or
             jansson allocator, or one of ours declared IL_MUST_CHECK)
  include    no include circle between .c/.h pairs, and no include of a higher floor

Exceptions are lines of tests/style-allow, `RULE PATH NAME -- reason`: a line without a reason,
or one that no longer matches anything, is itself an error (an exception must keep earning its
place). Exit status 1 and one `PATH:LINE: RULE: what` line per finding.

Usage: tests/check-style.py [--objdir DIR] [--quiet]   (run from the top of the tree)
"""
import os
import re
import subprocess
import sys

PAIR_MAX = 700
FUNC_MAX = 200
FLOORS = [["util"], ["idle", "kernel", "workload"], ["host"], ["lab"], ["run"], ["stats"],
          ["workflow"], ["report"], ["cli"]]
FLOOR_OF = {d: i for i, ds in enumerate(FLOORS) for d in ds}
# allocators whose result is the only word of a failure; ours add IL_MUST_CHECK in a header
ALLOCATORS = {"malloc", "calloc", "realloc", "reallocarray", "strdup", "strndup", "asprintf",
              "vasprintf", "json_object_set_new", "json_object_set", "json_array_append_new",
              "json_array_append", "json_array_insert_new", "json_object_update"}
PRINTERS = re.compile(r"\b(printf|vprintf|puts|putchar|perror|stdout|stderr)\b")
EXITS = re.compile(r"\b(exit|_exit|_Exit|abort|quick_exit)\s*\(")

findings = []


def find(path, line, rule, what):
    findings.append((path, line, rule, what))


def sources():
    out = []
    for root, _dirs, files in os.walk("src"):
        for f in sorted(files):
            if f.endswith((".c", ".h")):
                out.append(os.path.join(root, f))
    return sorted(out)


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read().split("\n")


def strip_code(lines):
    """The lines with comments and string/char literals blanked, so a word in a comment or a
    message is not a call. Keeps the line count and column positions."""
    out = []
    in_comment = False
    for ln in lines:
        res = []
        i = 0
        n = len(ln)
        while i < n:
            if in_comment:
                j = ln.find("*/", i)
                if j < 0:
                    res.append(" " * (n - i))
                    i = n
                else:
                    res.append(" " * (j + 2 - i))
                    i = j + 2
                    in_comment = False
                continue
            c = ln[i]
            if ln.startswith("/*", i):
                in_comment = True
                res.append("  ")
                i += 2
            elif ln.startswith("//", i):
                res.append(" " * (n - i))
                i = n
            elif c in "\"'":
                j = i + 1
                while j < n and ln[j] != c:
                    j += 2 if ln[j] == "\\" else 1
                res.append(c + " " * (min(j, n) - i - 1) + (c if j < n else ""))
                i = j + 1
            else:
                res.append(c)
                i += 1
        out.append("".join(res))
    return out


def check_header(path, lines):
    for i, ln in enumerate(lines):
        s = ln.strip()
        if not s or "SPDX-License-Identifier" in s:
            continue
        if s.startswith("/*") or s.startswith("//"):
            return
        find(path, i + 1, "header", "no comment saying what the file owns before its first code")
        return


def check_pairs(files):
    sizes = {}
    for p in files:
        stem = p[:-2]
        sizes.setdefault(stem, 0)
        sizes[stem] += len(read(p)) - 1
    for stem, n in sorted(sizes.items()):
        if n > PAIR_MAX:
            find(stem + ".c", 1, "pair", "%s.c/.h: %d lines together, at most %d: split it by concern"
                 % (stem, n, PAIR_MAX))


FUNC_NAME = re.compile(r"\b([A-Za-z_]\w*)\s*\(")


def functions(code):
    """(name, first line, last line) of each function definition: the kernel's and git's layout,
    a body opening with `{` alone in column 0 and closing with `}` in column 0."""
    out = []
    i = 0
    while i < len(code):
        if code[i].rstrip() == "{":
            # the signature: back to the line after a blank one or the end of something else
            start = i - 1
            while start > 0 and code[start - 1].strip() and not re.search(r"[;}]\s*$", code[start - 1]) \
                    and not code[start - 1].startswith("#"):
                start -= 1
            sig = " ".join(code[start:i])
            m = None
            for m in FUNC_NAME.finditer(sig.split("(")[0] + "("):
                pass
            name = m.group(1) if m else "?"
            j = i + 1
            while j < len(code) and not code[j].startswith("}"):
                j += 1
            out.append((name, start + 1, j + 1))
            i = j + 1
            continue
        i += 1
    return out


def check_functions(path, code):
    for name, first, last in functions(code):
        n = last - first + 1
        if n > FUNC_MAX:
            find(path, first, "function", "%s: %d lines, at most %d: one function per step" % (name, n, FUNC_MAX))


def check_oom(path, lines):
    for i, ln in enumerate(lines):
        if re.search(r"out of memory", ln, re.I) and path != "src/util/err.h":
            find(path, i + 1, "oom", "a hand-written \"out of memory\": use il_err_oom or il_err_strerror(IL_ENOMEM)")


def check_library_io(path, code, allow):
    if path.startswith("src/cli/"):
        return
    for i, ln in enumerate(code):
        for m in PRINTERS.finditer(ln):
            if ln[:m.start()].rstrip().endswith("format("):
                continue  # __attribute__((format(printf, ...))): a check, not a print
            if not allow.use("print", path, m.group(1)):
                find(path, i + 1, "print", "library code prints (%s): return it to the caller" % m.group(1))
        for m in EXITS.finditer(ln):
            if not allow.use("exit", path, m.group(1)):
                find(path, i + 1, "exit", "library code exits (%s): return an error" % m.group(1))


def must_check_names(files):
    names = set(ALLOCATORS)
    decl = re.compile(r"IL_MUST_CHECK\b[^;]*?\b(\w+)\s*\(")
    for p in files:
        if p.endswith(".h"):
            text = " ".join(strip_code(read(p)))
            for m in decl.finditer(text):
                names.add(m.group(1))
    names = {n for n in names if not n.startswith("__") and n != "IL_MUST_CHECK"}
    return names


def check_unchecked(path, code, names):
    bare = re.compile(r"^\s*(?:\(void\)\s*)?(\w+)\s*\(")
    for i, ln in enumerate(code):
        m = bare.match(ln)
        if not m or m.group(1) not in names:
            continue
        # a bare statement: the call is the whole statement (not `x = f(...)`, `if (f(...))`)
        prev = code[i - 1].rstrip() if i else ""
        if prev.endswith((",", "(", "=", "&&", "||", "|", "?", ":", "return")) or prev.endswith("+"):
            continue
        find(path, i + 1, "unchecked", "%s's result ignored: it is the only word that memory ran out" % m.group(1))


NM_CACHE = {}


def symbols(obj):
    """(defined global names, undefined names) of an object: one nm per object per run."""
    if obj not in NM_CACHE:
        out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
        defined, undefined = set(), set()
        for ln in out.splitlines():
            parts = ln.split()
            if len(parts) == 2 and parts[0] == "U":
                undefined.add(parts[1])
            elif len(parts) == 3 and parts[1] in "TDBRCGSV":
                defined.add(parts[2])
        NM_CACHE[obj] = (defined, undefined)
    return NM_CACHE[obj]


INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def circles(graph):
    """The strongly connected components of more than one node (Tarjan's, iterative)."""
    index, low, stack, on, comps = {}, {}, [], set(), []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        work = [(root, iter(sorted(graph[root])))]
        while work:
            node, it = work[-1]
            pushed = False
            for w in it:
                if w not in graph:
                    continue
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    pushed = True
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            if pushed:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    comps.append(sorted(comp))
    return comps


def check_includes(files, objdir):
    """Floors (a file includes nothing of a higher floor), no circle of headers, and no circle
    of files: a.c using what b.c defines while b.c uses what a.c defines (their objects' symbols,
    so a circle through a header that declares another file's functions counts too)."""
    headers = {}
    for p in files:
        for i, ln in enumerate(read(p)):
            m = INCLUDE.match(ln)
            if not m:
                continue
            target = "src/" + m.group(1)
            if not os.path.exists(target):
                continue
            if p.endswith(".h") and target != p:
                headers.setdefault(p, set()).add(target)
            d_from = p.split("/")[1]
            d_to = target.split("/")[1]
            if d_from in FLOOR_OF and d_to in FLOOR_OF and FLOOR_OF[d_to] > FLOOR_OF[d_from]:
                find(p, i + 1, "include", "%s/ includes %s, a higher floor" % (d_from, m.group(1)))
    for p in files:
        if p.endswith(".h"):
            headers.setdefault(p, set())
    for comp in circles(headers):
        find(comp[0], 1, "include", "headers include each other: " + " -> ".join(c[4:] for c in comp))
    defined, wants = {}, {}
    for p in files:
        if not p.endswith(".c"):
            continue
        obj = os.path.join(objdir, p[:-2] + ".o")
        if not os.path.exists(obj):
            continue
        got, wants[p] = symbols(obj)
        for name in got:
            defined[name] = p
    uses = {p: {defined[x] for x in w if x in defined and defined[x] != p} for p, w in wants.items()}
    for comp in circles(uses):
        find(comp[0], 1, "include", "files use each other (a circle): " + ", ".join(c[4:] for c in comp))


def prefixes(path, files):
    """il_STEM, il_DIR_STEM, il_DIR_REST when STEM is DIR + REST (lab/labhost.c: il_lab_host),
    and il_FAMILY when STEM begins with the stem of another pair of the same directory: a file
    split out of FAMILY by concern keeps FAMILY's names (workflow/historyrun.c: il_history)."""
    d, f = path.split("/")[1], os.path.basename(path)[:-2]
    out = {"il_" + f, "il_%s_%s" % (d, f)}
    if f.startswith(d) and len(f) > len(d):
        out.add("il_%s_%s" % (d, f[len(d):]))
    if d == "cli" and f.startswith("cmd_"):
        out.add("il_cmd")  # a command file may hold a family of commands (compare, report, tested-by)
    for other in files:
        o = os.path.basename(other)[:-2]
        if os.path.dirname(other) == os.path.dirname(path) and o != f and f.startswith(o):
            out.add("il_" + o)
    return out


def check_prefixes(files, objdir, allow):
    for p in files:
        if not p.endswith(".c"):
            continue
        obj = os.path.join(objdir, p[:-2] + ".o")
        if not os.path.exists(obj):
            find(p, 1, "prefix", "no object %s: build first (make), or name --objdir" % obj)
            continue
        pre = prefixes(p, files)
        for name in sorted(symbols(obj)[0]):
            if name == "main":
                continue
            if any(name == x or name.startswith(x + "_") for x in pre):
                continue
            if allow.use("prefix", p, name):
                continue
            find(p, 1, "prefix", "%s is exported without its file's prefix (%s)" % (name, " or ".join(sorted(pre))))


class Allow:
    """tests/style-allow: `RULE PATH NAME -- reason`; NAME may end in * (a prefix)."""

    def __init__(self, path):
        self.rows = []
        self.path = path
        if not os.path.exists(path):
            return
        for i, ln in enumerate(read(path)):
            s = ln.strip()
            if not s or s.startswith("#"):
                continue
            head, _sep, reason = s.partition(" -- ")
            words = head.split()
            if len(words) != 3 or not reason.strip():
                find(path, i + 1, "allow", "expected `RULE PATH NAME -- reason`")
                continue
            self.rows.append({"rule": words[0], "path": words[1], "name": words[2], "line": i + 1, "used": False})

    def use(self, rule, path, name):
        for r in self.rows:
            if r["rule"] != rule or r["path"] != path:
                continue
            pat = r["name"]
            if name == pat or (pat.endswith("*") and name.startswith(pat[:-1])):
                r["used"] = True
                return True
        return False

    def stale(self, ran_prefix):
        for r in self.rows:
            if not r["used"] and (r["rule"] != "prefix" or ran_prefix):
                find(self.path, r["line"], "allow", "%s %s %s matches nothing any more: remove it"
                     % (r["rule"], r["path"], r["name"]))


def main():
    objdir = "build/release"
    quiet = False
    args = sys.argv[1:]
    while args:
        a = args.pop(0)
        if a == "--objdir" and args:
            objdir = args.pop(0)
        elif a == "--quiet":
            quiet = True
        else:
            sys.stderr.write("usage: tests/check-style.py [--objdir DIR] [--quiet]\n")
            return 2
    if not os.path.isdir("src"):
        sys.stderr.write("check-style: run it from the top of the tree (no src/ here)\n")
        return 2
    allow = Allow("tests/style-allow")
    files = sources()
    names = must_check_names(files)
    for p in files:
        lines = read(p)
        code = strip_code(lines)
        check_header(p, lines)
        check_oom(p, lines)
        check_library_io(p, code, allow)
        if p.endswith(".c"):
            check_functions(p, code)
        check_unchecked(p, code, names)
    check_pairs(files)
    check_includes(files, objdir)
    check_prefixes(files, objdir, allow)
    allow.stale(True)
    for path, line, rule, what in sorted(findings):
        print("%s:%d: %s: %s" % (path, line, rule, what))
    if not quiet:
        rules = {}
        for f in findings:
            rules[f[2]] = rules.get(f[2], 0) + 1
        summary = ", ".join("%d %s" % (n, r) for r, n in sorted(rules.items())) or "none"
        sys.stderr.write("check-style: %d files, findings: %s\n" % (len(files), summary))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
