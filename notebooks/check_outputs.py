#!/usr/bin/env python3
"""Fails when an executed GoNB notebook hides an error or lacks an output.

nbconvert --execute --allow-errors runs every cell and exits 0 even when a
cell failed; and a Go program's panic, os.Exit(n) or a failing `!` shell
command may only leave a stderr stream behind. This scans every code cell
of the executed notebooks given on the command line and reports, per
failing cell, the notebook, the cell number and the first lines of the
evidence. Exit status 1 if any cell failed.

Expected outputs. Every output that experiments/reproduce shows carries a
mark in its metadata (key "softshape", reproduce.MarkKey): "table NAME",
"figure NAME" (the figure, or the reason it was not drawn), "markdown",
"env-help" or "panel". A cell declares what it must show in a comment line

    // expect: table sparse_ratio, figure sparse_ratio_sweep, markdown

(items separated by commas; each is a kind, optionally followed by a name,
which may hold * wildcards; an item matches one output, so "markdown,
markdown" asks for two). A cell fails when an expected output is missing,
and when it shows marked outputs but declares none.

With --clean it checks instead that the given (committed) notebooks carry no
outputs, that their `// expect:` lines parse, and that every code cell that
calls a display function of experiments/reproduce declares what it shows.
With --self-test it checks itself on small made-up notebooks and its
command line; --help prints the usage.
"""
import argparse
import copy
import fnmatch
import json
import re
import sys

MARKERS = [
    (re.compile(r"^panic: ", re.M), "Go panic"),
    (re.compile(r"^fatal error: ", re.M), "Go fatal error"),
    (re.compile(r"exit status \d+"), "non-zero exit"),
    (re.compile(r"\[\[\[ERROR\]\]\]|^ERROR: ", re.M), "GoNB error"),
    (re.compile(r"^\S+\.go:\d+:\d+: ", re.M), "compile error"),
    (re.compile(r"failed to (run|execute|compile)", re.I), "GoNB failure"),
]
WARN = re.compile(r"Figure \S+ not drawn[^*\n]*|softshape: GoNB did not confirm[^\n]*")

# The output-metadata key of reproduce.MarkKey, and the kinds of marks.
MARK_KEY = "softshape"
KINDS = ("table", "figure", "markdown", "env-help", "panel")
EXPECT = re.compile(r"^\s*//\s*expect:(.*)$", re.M)
# A call of a display function of experiments/reproduce (--clean: such a
# cell must declare what it shows).
DISPLAYS = re.compile(r"\b(?:reproduce\.)?(?:Show\w*|Markdownf?|Slider)\(")


def expectations(source):
    """The (kind, name pattern or None) items of the cell's `// expect:`
    lines, and the errors in them."""
    items, errors = [], []
    for m in EXPECT.finditer(source):
        for raw in m.group(1).split(","):
            item = raw.strip()
            if not item:
                errors.append(f"empty item in {m.group(0).strip()!r}")
                continue
            kind, _, name = item.partition(" ")
            if kind not in KINDS:
                errors.append(f"unknown kind {kind!r} in {m.group(0).strip()!r} (want one of {', '.join(KINDS)})")
                continue
            items.append((kind, name.strip() or None))
    return items, errors


def marks_of(cell):
    """The marks of the cell's outputs, in order."""
    marks = []
    for out in cell.get("outputs", []):
        mark = out.get("metadata", {}).get(MARK_KEY)
        if isinstance(mark, str) and mark:
            marks.append(mark)
    return marks


def missing(items, marks):
    """The expected items that no output matches; each output matches at most
    one item, named items first (a wildcard does not take a named one's)."""
    left = list(marks)
    out = []
    for kind, name in sorted(items, key=lambda it: (it[1] is None, "*" in (it[1] or ""))):
        for i, mark in enumerate(left):
            mkind, _, mname = mark.partition(" ")
            if mkind == kind and (name is None or fnmatch.fnmatchcase(mname, name)):
                del left[i]
                break
        else:
            out.append(kind + (" " + name if name else ""))
    return out


def text_of(out):
    if out.get("output_type") == "stream":
        t = out.get("text", "")
    elif out.get("output_type") == "error":
        t = "\n".join([out.get("ename", ""), out.get("evalue", "")] + out.get("traceback", []))
    else:
        data = out.get("data", {})
        t = data.get("text/plain", "") or data.get("text/markdown", "")
    return "".join(t) if isinstance(t, list) else t


def source_of(cell):
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else s


def first_line(source):
    src = [l for l in source.strip().splitlines() if l.strip() not in ("%%", "") and not EXPECT.match(l)]
    return src[0][:70] if src else ""


def check(path):
    return check_nb(json.load(open(path)))


def check_nb(nb):
    """(failures, warnings, images, code cells, expected outputs, present) of
    an executed notebook; failures and warnings are (cell, first line, why)."""
    failures, warnings, images = [], [], 0
    expected = present = 0
    n = 0
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        n += 1
        source = source_of(cell)
        first = first_line(source)
        items, errors = expectations(source)
        for e in errors:
            failures.append((n, first, "bad `// expect:` line: " + e))
        if cell.get("execution_count") is None and source.strip():
            failures.append((n, first, "cell was not executed"))
            expected += len(items)
            continue
        marks = marks_of(cell)
        gone = missing(items, marks)
        expected += len(items)
        present += len(items) - len(gone)
        for g in gone:
            failures.append((n, first, f"missing output: {g} (declared by `// expect:`; the cell shows "
                             + (", ".join(marks) if marks else "no marked output") + ")"))
        if marks and not items and not errors:
            failures.append((n, first, "shows " + ", ".join(marks) + " but declares no `// expect:` line"))
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if "image/png" in data or "data:image/png" in "".join(data.get("text/html", "")):
                images += 1
            t = text_of(out)
            if out.get("output_type") == "error":
                failures.append((n, first, "error output: " + t.strip()[:400]))
                continue
            for rx, what in MARKERS:
                m = rx.search(t)
                if m and (out.get("output_type") == "stream" or what != "compile error"):
                    start = max(0, m.start() - 200)
                    failures.append((n, first, f"{what}: " + t[start:m.end() + 300].strip()))
                    break
            for m in WARN.finditer(t):
                warnings.append((n, first, m.group(0)))
    return failures, warnings, images, n, expected, present


def report(p, result):
    """Prints the verdict on one notebook; returns whether it failed."""
    failures, warnings, images, cells, expected, present = result
    for n, first, why in failures:
        print(f"FAIL {p}: code cell {n} ({first!r}):\n    " + why.replace("\n", "\n    "))
    for n, first, why in warnings:
        print(f"warn {p}: code cell {n}: {why}")
    failing = len({n for n, _, _ in failures})
    status = "FAIL" if failures else "ok  "
    print(f"{status} {p}: {cells} code cells, {failing} failing, {present}/{expected} expected outputs, "
          f"{images} images, {len(warnings)} warnings")
    return bool(failures)


def main(paths):
    bad = 0
    for p in paths:
        bad += report(p, check(p))
    return 1 if bad else 0


def check_clean(paths):
    """The committed notebooks carry no outputs (see docs/usage.md, "Notebooks"), their
    `// expect:` lines parse, and each cell that displays declares what."""
    bad = 0
    for p in paths:
        nb = json.load(open(p))
        n = sum(1 for c in nb["cells"] if c["cell_type"] == "code" and (c.get("outputs") or c.get("execution_count")))
        if n:
            print(f"FAIL {p}: {n} code cells carry outputs; clear them before committing "
                  f"(Jupyter: Cell > All Output > Clear, or jupyter nbconvert --clear-output --inplace {p})")
            bad += 1
        k = 0
        for c in nb["cells"]:
            if c["cell_type"] != "code":
                continue
            k += 1
            source = source_of(c)
            items, errors = expectations(source)
            for e in errors:
                print(f"FAIL {p}: code cell {k}: bad `// expect:` line: {e}")
                bad += 1
            if not items and not errors and DISPLAYS.search(source):
                print(f"FAIL {p}: code cell {k} ({first_line(source)!r}) displays something but declares no "
                      f"`// expect:` line (e.g. // expect: table NAME, figure NAME, markdown; see check_outputs.py)")
                bad += 1
    return 1 if bad else 0


def self_test():
    """Checks the checker on a made-up executed notebook: it passes as made,
    and fails, naming the cell and the output, for each thing taken away."""
    def out(mark, mime="text/markdown", body="x"):
        o = {"output_type": "display_data", "data": {mime: body}, "metadata": {}}
        if mark:
            o["metadata"][MARK_KEY] = mark
        return o

    def cell(src, *outs):
        return {"cell_type": "code", "execution_count": 1, "metadata": {}, "source": src, "outputs": list(outs)}

    good = {"cells": [
        {"cell_type": "markdown", "metadata": {}, "source": "# t"},
        cell("!*go mod edit\n"),
        cell("%%\n// expect: markdown, env-help\nreproduce.ShowEnvHelp()\n", out("markdown"), out("env-help", "text/html")),
        cell(["%%\n", "// expect: table sparse_ratio\n", "res.ShowTable()\n"],
             out("", "text/html", "<style></style>"), out("table sparse_ratio")),
        cell("%%\n// expect: figure t_sweep, figure t_*\n", out("figure t_ranks", "image/png", "iVBO"), out("figure t_sweep", "image/png", "iVBO")),
    ]}
    cases = [
        ("as made", lambda nb: None, None),
        ("table output removed", lambda nb: nb["cells"][3]["outputs"].pop(1), "code cell 3 ('res.ShowTable()'):\n    missing output: table sparse_ratio"),
        ("all outputs of a cell removed", lambda nb: nb["cells"][2]["outputs"].clear(), "missing output: env-help"),
        ("wildcard left without its own output", lambda nb: nb["cells"][4]["outputs"].pop(0), "missing output: figure t_*"),
        ("undeclared output", lambda nb: nb["cells"][1]["outputs"].append(out("markdown")), "shows markdown but declares no"),
        ("unknown kind", lambda nb: nb["cells"][3].update(source="%%\n// expect: tabel x\n"), "unknown kind 'tabel'"),
        ("cell not executed", lambda nb: nb["cells"][3].update(execution_count=None), "cell was not executed"),
    ]
    import contextlib
    import io
    bad = 0
    for what, change, want in cases:
        nb = copy.deepcopy(good)
        change(nb)
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            failed = report("selftest.ipynb", check_nb(nb))
        text = buf.getvalue()
        ok = (not failed) if want is None else (failed and want in text)
        print(f"{'ok  ' if ok else 'FAIL'} self-test: {what}")
        if not ok:
            bad += 1
            print("    want " + (repr(want) if want else "a pass") + "; got:\n    " + text.replace("\n", "\n    "))
    bad += self_test_command_line()
    return 1 if bad else 0


def self_test_command_line():
    """Checks the command line: --help prints usage and exits 0, the three
    ways run-headless.sh calls this parse as meant, and a wrong one exits 2."""
    import contextlib
    import io

    def run(argv):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
            try:
                return parse(argv), buf.getvalue()
            except SystemExit as e:
                return e.code, buf.getvalue()

    def usage_ok(r):
        return r[0] == 0 and "usage: check_outputs.py" in r[1] and "--self-test" in r[1]

    def parsed(clean, self_test, notebooks):
        return lambda r: (isinstance(r[0], argparse.Namespace) and
                          (r[0].clean, r[0].self_test, r[0].notebooks) == (clean, self_test, notebooks))

    cases = [
        ("--help prints usage", ["--help"], usage_ok),
        ("-h prints usage", ["-h"], usage_ok),
        ("--self-test", ["--self-test"], parsed(False, True, [])),
        ("--clean NB...", ["--clean", "a.ipynb", "b.ipynb"], parsed(True, False, ["a.ipynb", "b.ipynb"])),
        ("executed NB", ["out/a.ipynb"], parsed(False, False, ["out/a.ipynb"])),
        ("no notebooks is a usage error", [], lambda r: r[0] == 2 and "no notebooks given" in r[1]),
        ("unknown option is a usage error", ["--cleam", "a.ipynb"], lambda r: r[0] == 2 and "usage:" in r[1]),
    ]
    bad = 0
    for what, argv, ok in cases:
        r = run(argv)
        good = ok(r)
        print(f"{'ok  ' if good else 'FAIL'} self-test: command line: {what}")
        if not good:
            bad += 1
            print(f"    argv {argv!r} gave {r[0]!r}; output:\n    " + r[1].replace("\n", "\n    "))
    return bad


def parser():
    """The command line: executed notebooks to check, or --clean with the
    committed ones, or --self-test alone."""
    p = argparse.ArgumentParser(
        prog="check_outputs.py",
        description=__doc__.split("\n\n")[0],
        epilog="notebooks/run-headless.sh runs --self-test, then --clean on the committed notebooks, "
               "then this on each executed one.")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--clean", action="store_true",
                      help="check that the given committed notebooks carry no outputs and declare what they show")
    mode.add_argument("--self-test", action="store_true", help="check the checker on small made-up notebooks")
    p.add_argument("notebooks", nargs="*", metavar="NOTEBOOK.ipynb",
                   help="executed notebooks (committed ones with --clean)")
    return p


def parse(argv):
    """The parsed arguments; exits with usage (status 2) on a wrong command line."""
    p = parser()
    args = p.parse_args(argv)
    if args.self_test and args.notebooks:
        p.error("--self-test takes no notebooks")
    if not args.self_test and not args.notebooks:
        p.error("no notebooks given")
    return args


if __name__ == "__main__":
    args = parse(sys.argv[1:])
    if args.self_test:
        sys.exit(self_test())
    if args.clean:
        sys.exit(check_clean(args.notebooks))
    sys.exit(main(args.notebooks))
