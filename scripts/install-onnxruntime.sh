#!/usr/bin/env bash
# Installs the ONNX Runtime shared library (CPU) that softshape's "onnx" backend
# loads at run time (build with -tags onnx; see environment.md). No root needed.
#
# Sources, in order (the first that works wins):
#   1. the official release archive from GitHub
#      (onnxruntime-linux-<arch>-<version>.tgz), tried with a short timeout;
#   2. the npm registry package onnxruntime-node@<version>, which ships the same
#      library as bin/napi-v*/linux/<arch>/libonnxruntime.so.1. Only the tarball is
#      fetched (curl, else wget, else `npm pack`) and one file extracted: no npm
#      install, no post-install scripts run.
#
# The library lands in
#   ${SOFTSHAPE_ORT_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/softshape/onnxruntime/<version>}
# as libonnxruntime.so.<version> plus the links libonnxruntime.so.1 and
# libonnxruntime.so. Running the script again when the library is there downloads
# nothing (idempotent). backends.New also finds it there by itself.
#
# Output: the line `export ONNXRUNTIME_SHARED_LIBRARY_PATH=...` on stdout (so
# `eval "$(scripts/install-onnxruntime.sh)"` works), progress on stderr.
#
# Usage: scripts/install-onnxruntime.sh [options]
#   --print-path      print only the library path on stdout
#   --dir DIR         install into DIR instead of the cache folder
#   --source S        auto (default: github, then npm), github or npm
#   --force           download again even if the library is present
#   -q, --quiet       no progress messages
#   -h, --help        this text
# Environment: ONNXRUNTIME_VERSION (default 1.30.0; compute-onnx v0.1.5 speaks ORT
# C API versions 17-26, i.e. ORT >= 1.17), SOFTSHAPE_ORT_DIR, ORT_GITHUB_BASE_URL
# and ORT_NPM_REGISTRY (mirrors), ORT_GITHUB_TIMEOUT (seconds to connect to GitHub,
# default 5; a GitHub download stalled for twice that long is abandoned too).
set -euo pipefail

VERSION="${ONNXRUNTIME_VERSION:-1.30.0}"
DIR="${SOFTSHAPE_ORT_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/softshape/onnxruntime/$VERSION}"
SOURCE=auto
PRINT_PATH=0
FORCE=0
QUIET=0
GITHUB_BASE="${ORT_GITHUB_BASE_URL:-https://github.com/microsoft/onnxruntime/releases/download}"
NPM_REGISTRY="${ORT_NPM_REGISTRY:-https://registry.npmjs.org}"
GITHUB_TIMEOUT="${ORT_GITHUB_TIMEOUT:-5}"
# sha512 of onnxruntime-node-1.30.0.tgz as published by the npm registry (dist.integrity).
NPM_SHA512_1_30_0="b7086cd42d82fc1164cf5c9ce4e634288536194aba0d444eee10f86f1e50d90cb79c0309c115d6f31537355733136f5503d96894b3987a9a03f1f8d318e7c8ab"

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
  case "$1" in
    --print-path) PRINT_PATH=1 ;;
    --dir) DIR="$2"; shift ;;
    --dir=*) DIR="${1#--dir=}" ;;
    --source) SOURCE="$2"; shift ;;
    --source=*) SOURCE="${1#--source=}" ;;
    --force) FORCE=1 ;;
    -q|--quiet) QUIET=1 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "install-onnxruntime: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
case "$SOURCE" in auto|github|npm) ;; *) echo "install-onnxruntime: --source must be auto, github or npm" >&2; exit 2 ;; esac

say() { [ "$QUIET" = 1 ] || echo "install-onnxruntime: $*" >&2; }
die() { echo "install-onnxruntime: $*" >&2; exit 1; }

[ "$(uname -s)" = Linux ] || die "only Linux is handled here; on $(uname -s) download ONNX Runtime $VERSION from https://github.com/microsoft/onnxruntime/releases and set ONNXRUNTIME_SHARED_LIBRARY_PATH"
case "$(uname -m)" in
  x86_64|amd64) GH_ARCH=x64; NPM_ARCH=x64 ;;
  aarch64|arm64) GH_ARCH=aarch64; NPM_ARCH=arm64 ;;
  *) die "no prebuilt ONNX Runtime for $(uname -m)" ;;
esac

LIB="$DIR/libonnxruntime.so"

# is_elf FILE: a plausible shared library (ELF magic, > 1 MB).
is_elf() {
  [ -f "$1" ] || return 1
  [ "$(head -c 4 "$1" | od -An -c | tr -d ' \n')" = '177ELF' ] || return 1
  [ "$(wc -c <"$1")" -gt 1000000 ]
}

report() {
  if [ "$PRINT_PATH" = 1 ]; then
    echo "$LIB"
  else
    say "ONNX Runtime $VERSION: $LIB"
    echo "export ONNXRUNTIME_SHARED_LIBRARY_PATH=$LIB"
  fi
}

if [ "$FORCE" = 0 ] && is_elf "$LIB"; then
  say "already installed"
  report
  exit 0
fi

mkdir -p "$DIR"
TMP="$(mktemp -d "$DIR/.install.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT

# fetch URL FILE CONNECT_TIMEOUT MAX_TIME STALL: gives up when connecting takes
# CONNECT_TIMEOUT s, the whole download MAX_TIME s, or it stalls (< 10 kB/s) for STALL s.
fetch() {
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL --connect-timeout "$3" --max-time "$4" --speed-limit 10240 --speed-time "$5" --retry 0 -o "$2" "$1"
  elif command -v wget >/dev/null 2>&1; then
    timeout "$4" wget -q --connect-timeout="$3" --read-timeout="$5" --tries=1 -O "$2" "$1"
  else
    return 127
  fi
}

# install_file SRC: copies the library into place atomically, with its links.
install_file() {
  is_elf "$1" || { say "extracted file is not a shared library"; return 1; }
  cp "$1" "$TMP/lib.part"
  chmod 0755 "$TMP/lib.part"
  mv -f "$TMP/lib.part" "$DIR/libonnxruntime.so.$VERSION"
  ln -sfn "libonnxruntime.so.$VERSION" "$DIR/libonnxruntime.so.1"
  ln -sfn "libonnxruntime.so.$VERSION" "$DIR/libonnxruntime.so"
}

from_github() {
  local name="onnxruntime-linux-$GH_ARCH-$VERSION"
  local url="$GITHUB_BASE/v$VERSION/$name.tgz"
  say "trying $url (connect timeout ${GITHUB_TIMEOUT}s)"
  fetch "$url" "$TMP/gh.tgz" "$GITHUB_TIMEOUT" 300 "$((GITHUB_TIMEOUT * 2))" || { say "GitHub download failed"; return 1; }
  tar xzf "$TMP/gh.tgz" -C "$TMP" --wildcards "$name/lib/libonnxruntime.so*" 2>/dev/null || { say "no library in the GitHub archive"; return 1; }
  local f
  for f in "$TMP/$name/lib/libonnxruntime.so.$VERSION" "$TMP/$name/lib/libonnxruntime.so.1" "$TMP/$name/lib/libonnxruntime.so"; do
    if [ -f "$f" ] && [ ! -L "$f" ]; then install_file "$f"; return; fi
  done
  f="$(readlink -f "$TMP/$name/lib/libonnxruntime.so" 2>/dev/null || true)"
  [ -n "$f" ] && install_file "$f"
}

from_npm() {
  local url="$NPM_REGISTRY/onnxruntime-node/-/onnxruntime-node-$VERSION.tgz"
  local tgz="$TMP/npm.tgz"
  say "trying the npm registry: $url"
  if ! fetch "$url" "$tgz" 15 900 30; then
    if command -v npm >/dev/null 2>&1; then
      say "direct download failed; trying npm pack"
      (cd "$TMP" && npm pack --silent --ignore-scripts --registry "$NPM_REGISTRY" "onnxruntime-node@$VERSION" >/dev/null) || { say "npm pack failed"; return 1; }
      mv "$TMP/onnxruntime-node-$VERSION.tgz" "$tgz"
    else
      say "npm registry download failed (and no npm to try npm pack)"
      return 1
    fi
  fi
  local want=""
  if [ "$VERSION" = 1.30.0 ]; then want="$NPM_SHA512_1_30_0"; fi
  if [ -n "$want" ] && command -v sha512sum >/dev/null 2>&1; then
    [ "$(sha512sum "$tgz" | cut -d' ' -f1)" = "$want" ] || { say "checksum mismatch for $url"; return 1; }
    say "sha512 verified"
  fi
  tar xzf "$tgz" -C "$TMP" --wildcards "package/bin/napi-v*/linux/$NPM_ARCH/libonnxruntime.so*" || { say "no linux/$NPM_ARCH library in the npm package"; return 1; }
  local f
  f="$(find "$TMP/package/bin" -path "*/linux/$NPM_ARCH/*" -name 'libonnxruntime.so*' -type f | sort | tail -n 1)"
  [ -n "$f" ] || return 1
  install_file "$f"
}

ok=0
case "$SOURCE" in
  auto) if from_github; then ok=1; else say "falling back to the npm registry"; from_npm && ok=1; fi ;;
  github) from_github && ok=1 ;;
  npm) from_npm && ok=1 ;;
esac
[ "$ok" = 1 ] && is_elf "$LIB" || die "could not install ONNX Runtime $VERSION (sources tried: $SOURCE)"
report
