#!/usr/bin/env bash
# Installs what the GoNB notebooks need, then starts Jupyter on localhost in
# this folder.
#
#   bash notebooks/setup.sh              # install (idempotent) and start Jupyter
#   bash notebooks/setup.sh --no-start   # install only (what CI and run-headless.sh do)
#
# Installs: Jupyter (Debian packages jupyter-notebook, jupyter-nbconvert,
# python3-ipykernel) when `jupyter` is missing, through apt (as root or with
# sudo; otherwise it prints the command to run); GoNB at the version pinned in
# go.mod, built from the module cache (the proxy may refuse `go install
# ...@version` version lists); goimports at a pinned version (GoNB needs it
# for every cell); and the GoNB kernel spec into notebooks/.jupyter
# (JUPYTER_DATA_DIR), so nothing is written to your home's Jupyter folders.
set -euo pipefail
NB_DIR="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$NB_DIR/.." && pwd)"
GOIMPORTS_VERSION=v0.52.0
START=1
for a in "$@"; do
  case "$a" in
    --no-start) START=0 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "setup.sh: unknown option $a (use --no-start)" >&2; exit 2 ;;
  esac
done

say() { echo "setup.sh: $*"; }

# --- Go ---------------------------------------------------------------------
if ! command -v go >/dev/null 2>&1; then
  if [ -x /usr/local/go/bin/go ]; then export PATH=/usr/local/go/bin:$PATH
  else say "no Go toolchain: install Go 1.26.8 (https://go.dev/dl/) first" >&2; exit 1; fi
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

# --- Kernel spec, project-local ------------------------------------------------
export JUPYTER_DATA_DIR="$NB_DIR/.jupyter"
if [ ! -f "$JUPYTER_DATA_DIR/kernels/gonb/kernel.json" ] || ! grep -q "$(command -v gonb)" "$JUPYTER_DATA_DIR/kernels/gonb/kernel.json"; then
  say "installing the GoNB kernel spec into $JUPYTER_DATA_DIR"
  gonb --install --raw_error --force_deps >/dev/null 2>&1 || gonb --install --raw_error --force_deps
fi
say "ready: GoNB $GONB_VERSION, nbconvert $(jupyter nbconvert --version 2>/dev/null || echo '?'), kernel spec in $JUPYTER_DATA_DIR"

if [ "$START" = 1 ]; then
  export GOEXPERIMENT="${GOEXPERIMENT:-simd}"
  say "starting Jupyter on 127.0.0.1 in $NB_DIR (Ctrl-C stops it); keep JUPYTER_DATA_DIR=$JUPYTER_DATA_DIR if you start it yourself"
  cd "$NB_DIR"
  ROOT_FLAG=""; [ "$(id -u)" = 0 ] && ROOT_FLAG="--allow-root"   # containers often run as root
  exec jupyter notebook --no-browser --ip=127.0.0.1 --notebook-dir="$NB_DIR" $ROOT_FLAG
fi
