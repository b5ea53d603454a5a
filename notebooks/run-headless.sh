#!/usr/bin/env bash
# Executes the notebooks headless in quick mode and fails on any error.
#
#   bash notebooks/run-headless.sh                      # every notebook
#   bash notebooks/run-headless.sh 00_quickstart.ipynb  # some of them
#
# For each notebook: `jupyter nbconvert --execute --allow-errors` (every cell
# runs), then check_outputs.py scans the executed notebook — nbconvert's exit
# status misses Go panics, os.Exit and failing shell commands inside cells,
# and outputs that never arrived — and names the failing notebook and cell
# (and the missing output: each cell declares what it shows in
# `// expect:` lines, per mode with `// expect-quick:` and `// expect-full:`,
# and check_outputs.py --mode says which mode ran); then an HTML export. Outputs go to
# notebooks/out (SOFTSHAPE_NB_OUT): executed notebooks, html/, results/ (in
# quick mode a fresh results store unless SOFTSHAPE_RESULTS is set). Exit status 1 when a
# notebook fails.
#
# Quick settings (override any of them from the environment): SOFTSHAPE_QUICK=1,
# SOFTSHAPE_FOLDS=1, SOFTSHAPE_DATASETS=ItalyPowerDemand,GunPoint,ArrowHead
# (three small datasets of the 18-dataset tables, so CD diagrams can be
# drawn), SOFTSHAPE_SETTINGS="epochs=4;warmup_epochs=2;embed_dim=32" and with
# it SOFTSHAPE_BACKEND=go, SOFTSHAPE_HEADLESS=1 (interactive panels draw once
# and return). The pure-Go backend, not the notebooks' "fastest": for runs
# this short ONNX Runtime's start-up per run (building its session for each
# graph: seconds at depth 2, tens of seconds at depth 6) outweighs its faster epochs
# (environment.md, "Parameters and environment variables").
#
# Full mode (SOFTSHAPE_QUICK=0) sets none of the quick settings and, unless
# SOFTSHAPE_RESULTS is set, gives no results folder, as a Jupyter user's full
# mode has none: the tables of the committed reproduction are then re-rendered
# from reproduction/results, training nothing, and cells that do train write
# to the repository's results/ folder (git-ignored), never deleted here:
#
#   SOFTSHAPE_QUICK=0 bash notebooks/run-headless.sh 04_experts_k.ipynb
set -euo pipefail
NB_DIR="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$NB_DIR/.." && pwd)"
bash "$NB_DIR/setup.sh" --headless
GOBIN_DIR="$(go env GOBIN)"; [ -n "$GOBIN_DIR" ] || GOBIN_DIR="$(go env GOPATH)/bin"
export PATH="$GOBIN_DIR:$PATH"
# The headless kernel spec (GoNB --raw_error: plain-text errors for check_outputs.py).
export JUPYTER_DATA_DIR="$NB_DIR/.jupyter-headless"
PY=python3; [ -x /usr/bin/python3 ] && PY=/usr/bin/python3   # not a pyenv shim

OUT="${SOFTSHAPE_NB_OUT:-$NB_DIR/out}"
mkdir -p "$OUT/html"
export SOFTSHAPE_QUICK="${SOFTSHAPE_QUICK:-1}"
# The false values of experiments/reproduce's parseBool (any case, trimmed).
case "$(printf '%s' "$SOFTSHAPE_QUICK" | tr -d '[:space:]' | tr '[:upper:]' '[:lower:]')" in
  0|false|no|off) full=1; mode=full ;;
  *) full=0; mode=quick ;;
esac
if [ "$full" = 0 ]; then
  export SOFTSHAPE_FOLDS="${SOFTSHAPE_FOLDS:-1}"
  export SOFTSHAPE_DATASETS="${SOFTSHAPE_DATASETS-ItalyPowerDemand,GunPoint,ArrowHead}"
  if [ -z "${SOFTSHAPE_SETTINGS+set}" ]; then
    export SOFTSHAPE_SETTINGS="epochs=4;warmup_epochs=2;embed_dim=32"
    export SOFTSHAPE_BACKEND="${SOFTSHAPE_BACKEND-go}"
  fi
fi
export SOFTSHAPE_HEADLESS=1
export SOFTSHAPE_OFFLINE="${SOFTSHAPE_OFFLINE:-1}"
if [ -z "${SOFTSHAPE_RESULTS:-}" ] && [ "$full" = 1 ]; then
  echo "run-headless: full mode without SOFTSHAPE_RESULTS: the committed reproduction's tables are re-rendered; cells that train use $REPO/results"
elif [ -z "${SOFTSHAPE_RESULTS:-}" ]; then
  export SOFTSHAPE_RESULTS="$OUT/results"
  # A fresh results store: delete the one an earlier headless run made
  # (notebooks/out, or an -out folder this script marked), never a results
  # folder of the user's that happens to be at $SOFTSHAPE_NB_OUT/results.
  if [ -e "$SOFTSHAPE_RESULTS" ]; then
    if [ "$OUT" = "$NB_DIR/out" ] || [ -f "$OUT/.run-headless" ]; then
      rm -rf "$SOFTSHAPE_RESULTS"
    else
      echo "run-headless: $SOFTSHAPE_RESULTS exists and was not made by run-headless.sh: not deleting it; set SOFTSHAPE_RESULTS to use it, or SOFTSHAPE_NB_OUT to a new folder" >&2
      exit 1
    fi
  fi
  touch "$OUT/.run-headless"
fi
if [ -z "${SOFTSHAPE_DATA:-}" ] && [ -n "${SOFTSHAPE_SHARED:-}" ]; then
  export SOFTSHAPE_DATA="$SOFTSHAPE_SHARED/ucr"
fi
export GOEXPERIMENT="${GOEXPERIMENT:-simd}"

if [ $# -gt 0 ]; then
  NOTEBOOKS=()
  for a in "$@"; do NOTEBOOKS+=("$NB_DIR/$(basename "$a")"); done
else
  NOTEBOOKS=("$NB_DIR"/[0-9][0-9]_*.ipynb)
fi

# The checker works (it fails on a missing output, an undeclared one, ...),
# and the committed notebooks are stored without outputs, each cell that
# displays declaring what (`// expect:` lines).
"$PY" "$NB_DIR/check_outputs.py" --self-test >/dev/null || { "$PY" "$NB_DIR/check_outputs.py" --self-test; exit 1; }
"$PY" "$NB_DIR/check_outputs.py" --clean "${NOTEBOOKS[@]}" || exit 1

echo "run-headless: ${#NOTEBOOKS[@]} notebooks, quick=$SOFTSHAPE_QUICK folds=${SOFTSHAPE_FOLDS:-} datasets=${SOFTSHAPE_DATASETS:-} settings=${SOFTSHAPE_SETTINGS:-} backend=${SOFTSHAPE_BACKEND:-fastest} results=${SOFTSHAPE_RESULTS:-}"
failed=()
summary=""
total_start=$(date +%s)
for nb in "${NOTEBOOKS[@]}"; do
  name="$(basename "$nb" .ipynb)"
  start=$(date +%s)
  status=ok
  if ! jupyter nbconvert --to notebook --execute --allow-errors \
      --ExecutePreprocessor.timeout=1200 --ExecutePreprocessor.kernel_name=gonb \
      --output-dir "$OUT" "$nb" >"$OUT/$name.log" 2>&1; then
    echo "FAIL $name: nbconvert failed (kernel died or timed out); last lines of $OUT/$name.log:"
    tail -n 20 "$OUT/$name.log" | sed 's/^/    /'
    status=FAIL
  elif ! "$PY" "$NB_DIR/check_outputs.py" --mode "$mode" "$OUT/$name.ipynb"; then
    status=FAIL
  fi
  if [ -f "$OUT/$name.ipynb" ]; then
    jupyter nbconvert --to html --output-dir "$OUT/html" "$OUT/$name.ipynb" >>"$OUT/$name.log" 2>&1 || echo "warn $name: HTML export failed"
  fi
  secs=$(( $(date +%s) - start ))
  summary+="$(printf '%-26s %-4s %4d s' "$name" "$status" "$secs")"$'\n'
  [ "$status" = ok ] || failed+=("$name")
done
echo
echo "run-headless: per notebook (wall time, 2-core budget 20 min for all):"
printf '%s' "$summary"
echo "total $(( $(date +%s) - total_start )) s; executed notebooks and logs in $OUT, HTML in $OUT/html"
if [ ${#failed[@]} -gt 0 ]; then
  echo "run-headless: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "run-headless: all notebooks passed"
