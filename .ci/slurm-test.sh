#!/usr/bin/env bash
# Real Slurm test: installs Debian's slurm-wlm and munge (apt-get, as root or
# with passwordless sudo), starts a one-node cluster on this machine (munged,
# slurmctld, slurmd; state under a temporary folder), and runs
# TestSlurmCluster of experiments/slurm: a softshape sweep submitted as a
# 4-task array job, compared with a single-process run, then a task cancelled
# mid-run and the incomplete shards resubmitted. Skipped, with the reason,
# where it cannot start. About 5–12 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
export GOFLAGS="${GOFLAGS:--buildvcs=false}"
export GOEXPERIMENT="${GOEXPERIMENT:-simd}"

dirfile=$(mktemp)
stop_daemons() {
  # Normally TestSlurmCluster stops its daemons itself; this catches a test
  # killed by its timeout (Go does not run cleanups then).
  local dir
  dir=$(cat "$dirfile" 2>/dev/null || true)
  if [ -n "$dir" ] && [ -d "$dir" ]; then
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo -n"
    SLURM_CONF="$dir/slurm.conf" scancel --full --partition=debug 2>/dev/null || true
    for pf in slurmd.pid slurmctld.pid munge/munged.pid; do
      if [ -f "$dir/$pf" ]; then $sudo kill "$(cat "$dir/$pf")" 2>/dev/null || true; fi
    done
    $sudo rm -rf "$dir"
    echo "slurm-test: stopped the daemons left in $dir"
  fi
  rm -f "$dirfile"
}
trap stop_daemons EXIT

SOFTSHAPE_SLURM_TEST=1 SOFTSHAPE_SLURM_DIRFILE="$dirfile" \
  go test -count=1 -v -timeout 20m -run '^TestSlurmCluster$' ./experiments/slurm
