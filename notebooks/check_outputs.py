#!/usr/bin/env python3
"""Fails when an executed GoNB notebook hides an error in its outputs.

nbconvert --execute --allow-errors runs every cell and exits 0 even when a
cell failed; and a Go program's panic, os.Exit(n) or a failing `!` shell
command may only leave a stderr stream behind. This scans every code cell
of the executed notebooks given on the command line and reports, per
failing cell, the notebook, the cell number and the first lines of the
evidence. Exit status 1 if any cell failed.

With --clean it checks instead that the given (committed) notebooks carry no
outputs.
"""
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
WARN = re.compile(r"Figure \S+ not drawn[^*\n]*")


def text_of(out):
    if out.get("output_type") == "stream":
        t = out.get("text", "")
    elif out.get("output_type") == "error":
        t = "\n".join([out.get("ename", ""), out.get("evalue", "")] + out.get("traceback", []))
    else:
        data = out.get("data", {})
        t = data.get("text/plain", "") or data.get("text/markdown", "")
    return "".join(t) if isinstance(t, list) else t


def check(path):
    nb = json.load(open(path))
    failures, warnings, images = [], [], 0
    n = 0
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        n += 1
        src = [l for l in "".join(cell["source"]).strip().splitlines() if l.strip() not in ("%%", "")]
        first = src[0][:70] if src else ""
        if cell.get("execution_count") is None and src:
            failures.append((n, first, "cell was not executed"))
            continue
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
    return failures, warnings, images, n


def main(paths):
    bad = 0
    for p in paths:
        failures, warnings, images, cells = check(p)
        for n, first, why in failures:
            print(f"FAIL {p}: code cell {n} ({first!r}):\n    " + why.replace("\n", "\n    "))
        for n, first, why in warnings:
            print(f"warn {p}: code cell {n}: {why}")
        failing = len({n for n, _, _ in failures})
        status = "FAIL" if failures else "ok  "
        print(f"{status} {p}: {cells} code cells, {failing} failing, {images} images, {len(warnings)} figures not drawn")
        bad += bool(failures)
    return 1 if bad else 0


def check_clean(paths):
    """The committed notebooks carry no outputs (see README: Notebooks)."""
    bad = 0
    for p in paths:
        nb = json.load(open(p))
        n = sum(1 for c in nb["cells"] if c["cell_type"] == "code" and (c.get("outputs") or c.get("execution_count")))
        if n:
            print(f"FAIL {p}: {n} code cells carry outputs; clear them before committing "
                  f"(Jupyter: Cell > All Output > Clear, or jupyter nbconvert --clear-output --inplace {p})")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--clean"]:
        sys.exit(check_clean(sys.argv[2:]))
    sys.exit(main(sys.argv[1:]))
