#!/usr/bin/env bash
# Installs what the GoNB notebooks need, then starts Jupyter on localhost in
# this folder.
#
#   bash notebooks/setup.sh              # install (idempotent) and start Jupyter
#   bash notebooks/setup.sh --no-start   # install only
#   bash notebooks/setup.sh --headless   # install only, with the headless kernel spec
#                                        # (what run-headless.sh and CI use)
#   bash notebooks/setup.sh --no-onnx    # leave ONNX Runtime out (the notebooks run on pure Go)
#
# Installs: Jupyter (Debian packages jupyter-notebook, jupyter-nbconvert,
# python3-ipykernel) when `jupyter` is missing, through apt (as root or with
# sudo; otherwise it prints the command to run); GoNB at the version pinned in
# go.mod, built from the module cache (the proxy may refuse `go install
# ...@version` version lists); goimports at a pinned version (GoNB needs it
# for every cell); and the GoNB kernel spec into notebooks/.jupyter
# (JUPYTER_DATA_DIR), so nothing is written to your home's Jupyter folders;
# and ONNX Runtime's CPU library with scripts/install-onnxruntime.sh (no root;
# GitHub, else the npm registry), the fast backend the notebooks build with
# (`%goflags -tags=onnx`, needs cgo) and pick by default (Backend "fastest").
# The interactive kernel reports compile errors as GoNB's HTML, mapped to the
# cell's lines; --headless installs a second spec into notebooks/.jupyter-headless
# with GoNB's --raw_error (plain-text errors, which check_outputs.py reads).
set -euo pipefail
NB_DIR="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$NB_DIR/.." && pwd)"
GOIMPORTS_VERSION=v0.52.0
START=1
HEADLESS=0
ONNX=1
for a in "$@"; do
  case "$a" in
    --no-start) START=0 ;;
    --headless) START=0; HEADLESS=1 ;;
    --no-onnx) ONNX=0 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "setup.sh: unknown option $a (use --no-start, --headless or --no-onnx)" >&2; exit 2 ;;
  esac
done

say() { echo "setup.sh: $*"; }

# --- Go ---------------------------------------------------------------------
if ! command -v go >/dev/null 2>&1; then
  if [ -x /usr/local/go/bin/go ]; then export PATH=/usr/local/go/bin:$PATH
  else say "no Go toolchain: install Go 1.26.5 or later (https://go.dev/dl/) first" >&2; exit 1; fi
fi
GOBIN_DIR="$(go env GOBIN)"; [ -n "$GOBIN_DIR" ] || GOBIN_DIR="$(go env GOPATH)/bin"
export PATH="$GOBIN_DIR:$PATH"

# --- Jupyter (Debian packages; PyPI may be unreachable) ----------------------
if ! command -v jupyter >/dev/null 2>&1 || ! jupyter nbconvert --version >/dev/null 2>&1; then
  PKGS="jupyter-notebook jupyter-nbconvert python3-ipykernel"
  if [ "$(id -u)" = 0 ]; then SUDO=""
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo"
  else
    say "Jupyter is missing and this user cannot install packages. Run, as root:" >&2
    echo "    apt-get update && apt-get install -y --no-install-recommends $PKGS" >&2
    echo "  (or: pip install notebook nbconvert), then run this script again." >&2
    exit 1
  fi
  say "installing $PKGS with apt"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $PKGS >/dev/null
fi

# --- GoNB and goimports --------------------------------------------------------
GONB_VERSION="$(cd "$REPO" && go list -m -f '{{.Version}}' github.com/janpfeifer/gonb)"
if ! { gonb --version 2>&1 || true; } | grep -q "GoNB version: $GONB_VERSION"; then
  say "building GoNB $GONB_VERSION from the module cache"
  (cd "$REPO" && go mod download github.com/janpfeifer/gonb)
  (cd "$(go env GOMODCACHE)/github.com/janpfeifer/gonb@$GONB_VERSION" && GOFLAGS=-buildvcs=false go install .)
fi
if ! command -v goimports >/dev/null 2>&1; then
  say "installing goimports $GOIMPORTS_VERSION"
  (cd /tmp && GOFLAGS= go install "golang.org/x/tools/cmd/goimports@$GOIMPORTS_VERSION")
fi

# --- ONNX Runtime: the notebooks' fast CPU backend -------------------------------
# The cells build with `%goflags -tags=onnx` (set-up cell) and Backend "fastest":
# ONNX Runtime when cgo works and the library is found (backends.FindONNXRuntime
# looks where the installer puts it), else pure Go with a one-line hint.
if [ "$ONNX" = 1 ]; then
  if ORT_LIB="$("$REPO/scripts/install-onnxruntime.sh" --print-path -q)"; then
    if [ "$(go env CGO_ENABLED)" = 1 ]; then
      say "ONNX Runtime: $ORT_LIB; the notebooks run on it (Backend \"fastest\")"
    else
      say "ONNX Runtime: $ORT_LIB, but cgo is off (no C compiler): the notebooks run on pure Go; install gcc (apt-get install gcc) for ONNX Runtime" >&2
    fi
  else
    say "ONNX Runtime could not be installed (offline?): the notebooks run on pure Go; run scripts/install-onnxruntime.sh later for several times faster CPU training" >&2
  fi
fi

# --- Kernel spec, project-local ------------------------------------------------
# Interactive: GoNB's HTML errors. Headless: --raw_error, in its own folder, so
# the two never overwrite each other.
if [ "$HEADLESS" = 1 ]; then
  export JUPYTER_DATA_DIR="$NB_DIR/.jupyter-headless"; KERNEL_FLAGS="--raw_error"
else
  export JUPYTER_DATA_DIR="$NB_DIR/.jupyter"; KERNEL_FLAGS=""
fi
SPEC="$JUPYTER_DATA_DIR/kernels/gonb/kernel.json"
spec_ok() {
  [ -f "$SPEC" ] && grep -q "$(command -v gonb)" "$SPEC" || return 1
  if [ "$HEADLESS" = 1 ]; then grep -q -- "-raw_error=true" "$SPEC"; else ! grep -q -- "-raw_error=true" "$SPEC"; fi
}
if ! spec_ok; then
  say "installing the GoNB kernel spec into $JUPYTER_DATA_DIR${KERNEL_FLAGS:+ ($KERNEL_FLAGS)}"
  gonb --install $KERNEL_FLAGS --force_deps >/dev/null 2>&1 || gonb --install $KERNEL_FLAGS --force_deps
fi
say "ready: GoNB $GONB_VERSION, nbconvert $(jupyter nbconvert --version 2>/dev/null || echo '?'), kernel spec in $JUPYTER_DATA_DIR"

if [ "$START" = 1 ]; then
  export GOEXPERIMENT="${GOEXPERIMENT:-simd}"
  say "starting Jupyter on 127.0.0.1 in $NB_DIR (Ctrl-C stops it); keep JUPYTER_DATA_DIR=$JUPYTER_DATA_DIR if you start it yourself"
  cd "$NB_DIR"
  ROOT_FLAG=""; [ "$(id -u)" = 0 ] && ROOT_FLAG="--allow-root"   # containers often run as root
  exec jupyter notebook --no-browser --ip=127.0.0.1 --notebook-dir="$NB_DIR" $ROOT_FLAG
fi
