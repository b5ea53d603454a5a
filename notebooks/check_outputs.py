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
"figure NAME", "markdown", "env-help" or "panel"; a line shown in place of
one of them (why a figure was not drawn, "Not run: ...", "no committed
runs") is marked "missing " + that mark, e.g. "missing figure main_cd". A
cell declares what it must show in comment lines

    // expect: table sparse_ratio, markdown           (both modes)
    // expect-quick: figure sparse_ratio_sweep, missing figure sparse_ratio_ranks
    // expect-full: figure sparse_ratio_sweep, figure sparse_ratio_ranks_* ×2

one item per comma; `// expect:` holds in both modes, `// expect-quick:`
and `// expect-full:` only when this is run with --mode quick or --mode full
(how the notebook was executed: SOFTSHAPE_QUICK). An item is

    [missing] KIND [NAME] [×N[+]] [or missing]

KIND is one of the kinds above; NAME may hold * wildcards; ×N asks
for N outputs (×, the multiplication sign; default 1), each matched by one output,
and ×N+ for N or more (a cell that shows one output per dataset present on the
machine, e.g. `figure *_tsne ×1+ or missing`). A plain item is
satisfied only by the output itself, never by the line saying why it is
missing; "missing KIND NAME" only by that line; "KIND NAME or missing" by
either (for a cell whose output depends on state the notebook does not fix,
e.g. a model saved by an earlier run). Named items are matched first, then
wildcards, then bare kinds. A cell fails when an item lacks outputs, when it
shows a "missing ..." line that no item declares, and when it shows marked
outputs but declares nothing for the mode.

With --clean it checks instead that the given (committed) notebooks carry no
outputs, that their `// expect` lines parse, and that every code cell that
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
    # A table that experiments/reproduce rendered in part, writing its error
    # into the Markdown (Committed.Markdown, TableResult.Markdown).
    (re.compile(r"^\(markdown error: ", re.M), "table rendered in part"),
]
WARN = re.compile(r"Figure \S+ not drawn[^*\n]*|softshape: GoNB did not confirm[^\n]*")

# The output-metadata key of reproduce.MarkKey, the kinds of marks, and the
# word before a mark of a line shown in place of its output.
MARK_KEY = "softshape"
KINDS = ("table", "figure", "markdown", "env-help", "panel")
MISSING = "missing"
MODES = ("quick", "full")
# An `// expect` line: `// expect:` (both modes) or `// expect-MODE:`; the
# mode is checked by expectations, so a misspelt one is an error, not
# ignored.
EXPECT = re.compile(r"^\s*//\s*expect(?:-(\S*?))?:(.*)$", re.M)
# A count: ×N, or ×N+ for N or more (the multiplication sign; "x2" would be
# a name).
COUNT = re.compile(r"^×(\d+)(\+?)$")
# A call of a display function of experiments/reproduce (--clean: such a
# cell must declare what it shows).
DISPLAYS = re.compile(r"\b(?:reproduce\.)?(?:Show\w*|Markdownf?|Slider)\(")


class Item:
    """One item of an `// expect` line: count outputs of kind (or more, when
    more), named by the pattern name (None: any), that are shown (state
    "shown"), lines saying why they are missing ("missing"), or either
    ("either")."""

    def __init__(self, line, state, kind, name, count, text, more=False):
        self.line, self.state, self.kind, self.name, self.count, self.text = line, state, kind, name, count, text
        self.more = more

    def takes(self, mark):
        """Whether this item is satisfied by an output marked mark."""
        missing = mark.startswith(MISSING + " ")
        if missing and self.state == "shown" or not missing and self.state == "missing":
            return False
        kind, _, name = (mark[len(MISSING) + 1:] if missing else mark).partition(" ")
        return kind == self.kind and (self.name is None or fnmatch.fnmatchcase(name, self.name))


def parse_item(text):
    """The Item of one `// expect` item's text (without its line), or the
    error in it."""
    words = text.split()
    state = "shown"
    if words[:1] == [MISSING]:
        state, words = "missing", words[1:]
    if words[-2:] == ["or", MISSING]:
        if state == "missing":
            return None, f"{text!r}: \"missing ... or missing\" says nothing; write one of them"
        state, words = "either", words[:-2]
    count, more = 1, False
    if len(words) > 1 and COUNT.match(words[-1]):
        m = COUNT.match(words[-1])
        count, more = int(m.group(1)), m.group(2) == "+"
        words = words[:-1]
        if count < 1:
            return None, f"{text!r}: a count must be at least 1"
    if not words or words[0] not in KINDS:
        return None, (f"unknown kind {words[0] if words else ''!r} in {text!r} (want [missing] KIND [NAME] [×N[+]] "
                      f"[or missing], KIND one of {', '.join(KINDS)})")
    if len(words) > 2:
        hint = " (a count is ×N)" if re.match(r"^[xX*]\d+$", words[-1]) else ""
        return None, f"{text!r}: want [missing] KIND [NAME] [×N[+]] [or missing]; {' '.join(words[2:])!r} is none of them{hint}"
    return Item(None, state, words[0], words[1] if len(words) == 2 else None, count, text, more), None


def expectations(source, mode=None):
    """The Items of the cell's `// expect` lines that hold in mode (None: all
    modes), and the errors in all its lines."""
    items, errors = [], []
    for m in EXPECT.finditer(source):
        line = m.group(0).strip()
        lmode = m.group(1)
        if lmode is not None and lmode not in MODES:
            errors.append(f"unknown mode {lmode!r} in {line!r} (want // expect:, // expect-quick: or // expect-full:)")
            continue
        for raw in m.group(2).split(","):
            if not raw.strip():
                errors.append(f"empty item in {line!r}")
                continue
            item, err = parse_item(raw.strip())
            if err:
                errors.append(err)
                continue
            item.line = "// expect" + (f"-{lmode}" if lmode else "") + ":"
            if mode is None or lmode in (None, mode):
                items.append(item)
    return items, errors


def marks_of(cell):
    """The marks of the cell's outputs, in order."""
    marks = []
    for out in cell.get("outputs", []):
        mark = out.get("metadata", {}).get(MARK_KEY)
        if isinstance(mark, str) and mark:
            marks.append(mark)
    return marks


def match(items, marks):
    """Pairs items with outputs: each output satisfies at most one item;
    named items first, then wildcards, then bare kinds (a wildcard does not
    take a named item's output), plain or "missing" items before "or
    missing" ones, and an item of N or more (×N+) last, taking every output
    it matches that is left. Returns [(item, outputs found)] of the items
    short of their count, and the marks of "missing" lines that no item
    took."""
    left = list(marks)
    short = []
    for it in sorted(items, key=lambda it: (it.more, it.name is None, "*" in (it.name or ""), it.state == "either")):
        found = 0
        while found < it.count or it.more:
            # An "or missing" item takes the output itself before the line.
            i = next((i for i, m in enumerate(left) if it.takes(m) and not m.startswith(MISSING + " ")), None)
            if i is None:
                i = next((i for i, m in enumerate(left) if it.takes(m)), None)
            if i is None:
                break
            del left[i]
            found += 1
        if found < it.count:
            short.append((it, found))
    return short, [m for m in left if m.startswith(MISSING + " ")]


def text_of(out):
    if out.get("output_type") == "stream":
        t = out.get("text", "")
    elif out.get("output_type") == "error":
        t = "\n".join([out.get("ename", ""), out.get("evalue", "")] + out.get("traceback", []))
    else:
        data = out.get("data", {})
        t = data.get("text/plain", "") or data.get("text/markdown", "")
    return "".join(t) if isinstance(t, list) else t


def code_cells(nb):
    """The notebook's code cells, numbered from 1 as the messages name them."""
    return enumerate((c for c in nb["cells"] if c["cell_type"] == "code"), 1)


def source_of(cell):
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else s


def first_line(source):
    src = [l for l in source.strip().splitlines() if l.strip() not in ("%%", "") and not EXPECT.match(l)]
    return src[0][:70] if src else ""


def check(path, mode):
    return check_nb(json.load(open(path)), mode)


def check_nb(nb, mode):
    """(failures, warnings, images, code cells, expected outputs, present) of
    a notebook executed in mode ("quick" or "full"); failures and warnings
    are (cell, first line, why)."""
    failures, warnings, images = [], [], 0
    expected = present = 0
    n = 0
    for n, cell in code_cells(nb):
        source = source_of(cell)
        first = first_line(source)
        items, errors = expectations(source, mode)
        for e in errors:
            failures.append((n, first, "bad `// expect` line: " + e))
        want = sum(it.count for it in items)
        expected += want
        if cell.get("execution_count") is None and source.strip():
            failures.append((n, first, "cell was not executed"))
            continue
        marks = marks_of(cell)
        short, undeclared = match(items, marks)
        present += want - sum(it.count - found for it, found in short)
        shows = ", ".join(marks) if marks else "no marked output"
        for it, found in short:
            failures.append((n, first, f"missing output: {it.text} ({found} of {it.count} found; declared by `{it.line}` "
                             f"in {mode} mode; the cell shows {shows})"))
        if marks and not items and not errors:
            failures.append((n, first, f"shows {shows} but declares nothing for {mode} mode "
                             "(`// expect:` or `// expect-" + mode + ":` line)"))
        elif undeclared:
            failures.append((n, first, "shows " + ", ".join(undeclared) + " (a line saying why the output is missing) "
                             f"that no `// expect` item of {mode} mode declares (\"missing KIND NAME\" or "
                             "\"KIND NAME or missing\"): an output turned into its reason"))
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


def main(paths, mode):
    bad = 0
    for p in paths:
        bad += report(p, check(p, mode))
    return 1 if bad else 0


def check_clean(paths):
    """The committed notebooks carry no outputs (see docs/usage.md, "Notebooks"), their
    `// expect` lines parse, and each cell that displays declares what, in both modes."""
    bad = 0
    for p in paths:
        for msg in clean_failures(p, json.load(open(p))):
            print(msg)
            bad += 1
    return 1 if bad else 0


def clean_failures(p, nb):
    """check_clean's messages about the committed notebook nb, read from p."""
    out = []
    n = sum(1 for c in nb["cells"] if c["cell_type"] == "code" and (c.get("outputs") or c.get("execution_count")))
    if n:
        out.append(f"FAIL {p}: {n} code cells carry outputs; clear them before committing "
                   f"(Jupyter: Cell > All Output > Clear, or jupyter nbconvert --clear-output --inplace {p})")
    for k, c in code_cells(nb):
        source = source_of(c)
        _, errors = expectations(source)
        for e in errors:
            out.append(f"FAIL {p}: code cell {k}: bad `// expect` line: {e}")
        if errors or not DISPLAYS.search(source):
            continue
        for mode in MODES:
            if not expectations(source, mode)[0]:
                out.append(f"FAIL {p}: code cell {k} ({first_line(source)!r}) displays something but declares nothing "
                           f"for {mode} mode (e.g. // expect: table NAME, figure NAME, markdown; see check_outputs.py)")
    return out


def self_test():
    """Checks the checker on made-up executed notebooks, one per mode: each
    passes as made, and fails, naming the cell and the output, for each
    thing taken away or replaced by the line saying why it is missing; then
    the parsing of `// expect` lines, --clean and the command line."""
    def out(mark, mime="text/markdown", body="x"):
        o = {"output_type": "display_data", "data": {mime: body}, "metadata": {}}
        if mark:
            o["metadata"][MARK_KEY] = mark
        return o

    def fig(name):
        return out("figure " + name, "image/png", "iVBO")

    def cell(src, *outs):
        return {"cell_type": "code", "execution_count": 1, "metadata": {}, "source": src, "outputs": list(outs)}

    def made(mode):
        """A notebook executed in mode: code cells 1-4 alike, 5-7 as
        run-headless.sh shows a committed sweep table's figures, a model's
        curves and an uncommitted table in that mode."""
        quick = mode == "quick"
        return {"cells": [
            {"cell_type": "markdown", "metadata": {}, "source": "# t"},
            cell("!*go mod edit\n"),
            cell("%%\n// expect: markdown, env-help\nreproduce.ShowEnvHelp()\n", out("markdown"), out("env-help", "text/html")),
            cell(["%%\n", "// expect: table sparse_ratio\n", "res.ShowTable()\n"],
                 out("", "text/html", "<style></style>"), out("table sparse_ratio")),
            cell("%%\n// expect: figure t_sweep, figure t_*\n", fig("t_ranks"), fig("t_sweep")),
            cell("%%\n// expect-quick: figure s_sweep, missing figure s_ranks\n"
                 "// expect-full: figure s_sweep, figure s_ranks_* ×2\nreproduce.ShowFigures()\n",
                 *([fig("s_sweep"), out("missing figure s_ranks")] if quick else
                   [fig("s_sweep"), fig("s_ranks_reference_compat"), fig("s_ranks_reference_fresh")])),
            cell("%%\n// expect: markdown\n// expect-quick: figure m_curves\n// expect-full: figure m_curves or missing\n",
                 out("markdown"), fig("m_curves") if quick else out("missing figure m_curves")),
            cell("%%\n// expect-quick: table main\n// expect-full: missing table main\n",
                 out("table main") if quick else out("missing table main")),
        ]}

    def swap(c, i, o):
        c["outputs"][i] = o

    def per_dataset(nb, count, n):
        """Makes cell 6 a loop over n datasets that shows, in full mode, a
        summary and a not-drawn line for each, declaring the figure with
        count ("" or " ×1+")."""
        nb["cells"][6] = cell(f"%%\n// expect: markdown\n// expect-full: figure *_tsne{count} or missing\n",
                              out("markdown"), *[out(f"missing figure d{i}_tsne") for i in range(n)])

    cases = [
        ("as made (quick)", "quick", lambda nb: None, None),
        ("as made (full)", "full", lambda nb: None, None),
        ("table output removed", "quick", lambda nb: nb["cells"][3]["outputs"].pop(1),
         "code cell 3 ('res.ShowTable()'):\n    missing output: table sparse_ratio (0 of 1 found; declared by `// expect:`"),
        ("all outputs of a cell removed", "quick", lambda nb: nb["cells"][2]["outputs"].clear(), "missing output: env-help"),
        ("wildcard left without its own output", "quick", lambda nb: nb["cells"][4]["outputs"].pop(0), "missing output: figure t_*"),
        ("undeclared output", "quick", lambda nb: nb["cells"][1]["outputs"].append(out("markdown")),
         "shows markdown but declares nothing for quick mode"),
        ("unknown kind", "quick", lambda nb: nb["cells"][3].update(source="%%\n// expect: tabel x\n"), "unknown kind 'tabel'"),
        ("cell not executed", "quick", lambda nb: nb["cells"][3].update(execution_count=None), "cell was not executed"),
        ("full: one preset's figure missing", "full", lambda nb: nb["cells"][5]["outputs"].pop(2),
         "code cell 5 ('reproduce.ShowFigures()'):\n    missing output: figure s_ranks_* ×2 (1 of 2 found; declared by `// expect-full:` in full mode"),
        ("full: a not-drawn line in place of a figure", "full",
         lambda nb: swap(nb["cells"][5], 2, out("missing figure s_ranks_reference_fresh")),
         "missing output: figure s_ranks_* ×2 (1 of 2 found"),
        ("full: a not-drawn line no item declares", "full",
         lambda nb: swap(nb["cells"][5], 2, out("missing figure s_ranks_reference_fresh")),
         "shows missing figure s_ranks_reference_fresh (a line saying why the output is missing) that no `// expect` item"),
        ("full: a no-committed-runs line in place of a table", "full",
         lambda nb: swap(nb["cells"][3], 1, out("missing table sparse_ratio")), "missing output: table sparse_ratio (0 of 1"),
        ("quick: an extra not-drawn line", "quick", lambda nb: nb["cells"][5]["outputs"].append(out("missing figure s_cd")),
         "shows missing figure s_cd (a line saying why"),
        ("quick: the expected not-drawn line gone", "quick", lambda nb: nb["cells"][5]["outputs"].pop(1),
         "missing output: missing figure s_ranks (0 of 1"),
        ("quick: quick-mode items hold in quick mode", "quick", lambda nb: swap(nb["cells"][6], 1, out("missing figure m_curves")),
         "missing output: figure m_curves (0 of 1 found; declared by `// expect-quick:`"),
        ("full: \"or missing\" takes the figure", "full", lambda nb: swap(nb["cells"][6], 1, fig("m_curves")), None),
        ("full: \"or missing\" takes no nothing", "full", lambda nb: nb["cells"][6]["outputs"].pop(1),
         "missing output: figure m_curves or missing (0 of 1"),
        ("full: a table declared missing is shown", "full", lambda nb: swap(nb["cells"][7], 0, out("table main")),
         "missing output: missing table main (0 of 1 found; declared by `// expect-full:` in full mode; the cell shows table main)"),
        ("a table rendered in part", "full",
         lambda nb: swap(nb["cells"][3], 1, out("table sparse_ratio", body="| a |\n\n(markdown error: no summary)\n")),
         "table rendered in part: | a |"),
        ("full: quick-mode notebook checked as full", "full", lambda nb: nb.update(made("quick")),
         "missing output: figure s_ranks_* ×2 (0 of 2"),
        ("full: a not-drawn line per dataset, one declared", "full", lambda nb: per_dataset(nb, "", 2),
         "shows missing figure d1_tsne (a line saying why the output is missing) that no `// expect` item"),
        ("full: ×1+ takes a not-drawn line per dataset", "full", lambda nb: per_dataset(nb, " ×1+", 3), None),
        ("full: ×1+ takes one", "full", lambda nb: per_dataset(nb, " ×1+", 1), None),
        ("full: ×1+ takes no nothing", "full", lambda nb: per_dataset(nb, " ×1+", 0),
         "missing output: figure *_tsne ×1+ or missing (0 of 1"),
    ]
    import contextlib
    import io
    bad = 0
    for what, mode, change, want in cases:
        nb = made(mode)
        change(nb)
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            failed = report("selftest.ipynb", check_nb(nb, mode))
        text = buf.getvalue()
        ok = (not failed) if want is None else (failed and want in text)
        print(f"{'ok  ' if ok else 'FAIL'} self-test: {what}")
        if not ok:
            bad += 1
            print("    want " + (repr(want) if want else "a pass") + "; got:\n    " + text.replace("\n", "\n    "))
    bad += self_test_parsing()
    bad += self_test_command_line()
    return 1 if bad else 0


def self_test_parsing():
    """Checks the parsing of `// expect` lines: counts, modes, missing and
    "or missing", and the errors of bad lines (--clean reports them)."""
    def items(source, mode=None):
        its, errors = expectations(source, mode)
        return [(it.line, it.state, it.kind, it.name, it.count) for it in its], errors

    src = ("%%\n// expect: table t, markdown ×2\n// expect-quick: missing figure t_ranks\n"
           "//expect-full: figure t_ranks_* ×2, figure m ×3, figure c or missing\nreproduce.ShowTable()\n")
    both = [("// expect:", "shown", "table", "t", 1), ("// expect:", "shown", "markdown", None, 2)]
    quick = [("// expect-quick:", "missing", "figure", "t_ranks", 1)]
    full = [("// expect-full:", "shown", "figure", "t_ranks_*", 2), ("// expect-full:", "shown", "figure", "m", 3),
            ("// expect-full:", "either", "figure", "c", 1)]
    clean = lambda nb: clean_failures("c.ipynb", nb)  # noqa: E731
    code = lambda src: {"cells": [{"cell_type": "code", "metadata": {}, "source": src, "outputs": []}]}  # noqa: E731
    cases = [
        ("all modes", items(src), (both + quick + full, [])),
        ("quick mode", items(src, "quick"), (both + quick, [])),
        ("full mode", items(src, "full"), (both + full, [])),
        ("x2 is a name, not a count", items("// expect: figure x2")[0], [("// expect:", "shown", "figure", "x2", 1)]),
        ("unknown mode", items("// expect-ful: table x")[1], ["unknown mode 'ful' in '// expect-ful: table x' (want // expect:, "
                                                               "// expect-quick: or // expect-full:)"]),
        ("two names", bool(items("// expect: figure a b")[1]), True),
        ("x3 for ×3", items("// expect: figure m x3")[1],
         ["'figure m x3': want [missing] KIND [NAME] [×N[+]] [or missing]; 'x3' is none of them (a count is ×N)"]),
        ("count 0", items("// expect: figure a ×0")[1], ["'figure a ×0': a count must be at least 1"]),
        ("×2+", [(it.count, it.more) for it in expectations("// expect: figure a_* ×2+ or missing, table t ×2")[0]],
         [(2, True), (2, False)]),
        ("missing or missing", bool(items("// expect: missing figure a or missing")[1]), True),
        ("empty item", items("// expect: table a,")[1], ["empty item in '// expect: table a,'"]),
        ("--clean: a display cell declaring one mode only", clean(code("// expect-quick: table t\nreproduce.ShowTable()\n")),
         ["FAIL c.ipynb: code cell 1 ('reproduce.ShowTable()') displays something but declares nothing for full mode "
          "(e.g. // expect: table NAME, figure NAME, markdown; see check_outputs.py)"]),
        ("--clean: both modes declared", clean(code(src)), []),
        ("--clean: a bad line", clean(code("// expect: figure a ×0\n")),
         ["FAIL c.ipynb: code cell 1: bad `// expect` line: 'figure a ×0': a count must be at least 1"]),
    ]
    bad = 0
    for what, got, want in cases:
        good = got == want
        print(f"{'ok  ' if good else 'FAIL'} self-test: parsing: {what}")
        if not good:
            bad += 1
            print(f"    got {got!r}\n    want {want!r}")
    return bad


def self_test_command_line():
    """Checks the command line: --help prints usage and exits 0, the ways
    run-headless.sh calls this parse as meant, and a wrong one exits 2."""
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

    def parsed(clean, self_test, notebooks, mode=None):
        return lambda r: (isinstance(r[0], argparse.Namespace) and
                          (r[0].clean, r[0].self_test, r[0].notebooks, r[0].mode) == (clean, self_test, notebooks, mode))

    cases = [
        ("--help prints usage", ["--help"], usage_ok),
        ("-h prints usage", ["-h"], usage_ok),
        ("--self-test", ["--self-test"], parsed(False, True, [])),
        ("--clean NB...", ["--clean", "a.ipynb", "b.ipynb"], parsed(True, False, ["a.ipynb", "b.ipynb"])),
        ("--mode full NB", ["--mode", "full", "out/a.ipynb"], parsed(False, False, ["out/a.ipynb"], "full")),
        ("--mode quick NB", ["--mode=quick", "out/a.ipynb"], parsed(False, False, ["out/a.ipynb"], "quick")),
        ("an executed NB needs --mode", ["out/a.ipynb"], lambda r: r[0] == 2 and "--mode quick or --mode full" in r[1]),
        ("unknown mode is a usage error", ["--mode", "fast", "a.ipynb"], lambda r: r[0] == 2 and "invalid choice: 'fast'" in r[1]),
        ("--mode with --clean is a usage error", ["--clean", "--mode", "full", "a.ipynb"],
         lambda r: r[0] == 2 and "--mode goes with executed notebooks" in r[1]),
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
               "then this (--mode quick or full) on each executed one.")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--clean", action="store_true",
                      help="check that the given committed notebooks carry no outputs and declare what they show")
    mode.add_argument("--self-test", action="store_true", help="check the checker on small made-up notebooks")
    p.add_argument("--mode", choices=MODES,
                   help="how the executed notebooks ran (SOFTSHAPE_QUICK): which `// expect-quick:` or "
                        "`// expect-full:` lines hold; required with executed notebooks")
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
    if (args.clean or args.self_test) and args.mode:
        p.error("--mode goes with executed notebooks, not --clean or --self-test")
    if not (args.clean or args.self_test) and not args.mode:
        p.error("say how the notebooks were executed: --mode quick or --mode full (SOFTSHAPE_QUICK)")
    return args


if __name__ == "__main__":
    args = parse(sys.argv[1:])
    if args.self_test:
        sys.exit(self_test())
    if args.clean:
        sys.exit(check_clean(args.notebooks))
    sys.exit(main(args.notebooks, args.mode))
