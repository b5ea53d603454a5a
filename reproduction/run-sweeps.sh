#!/usr/bin/env bash
# Runs (or resumes) the full-protocol sweeps behind docs/reproduction.md:
# Tables 3 (sparse ratio η), 6 (depth L) and 4 (experts k) on the six smallest
# local 18-dataset-table datasets, under the presets reference_compat and
# reference_fresh, seed 42 (SEEDS to add more). One results folder per preset
# (reproduction/results/<preset>), since both presets run the same cells under
# different configurations. Tables run cheapest first: Table 4 (k) has 60 trained runs
# per preset (k > Ĉ = C is invalid, and k = 1 reuses Table 3's η = 50% runs),
# Table 6 (L) 150 runs of up to six layers. Datasets run smallest first, one
# sweep per table × dataset × preset, so whole tables finish as early as
# possible; `softshape sweep` resumes from its store, so this script can be
# killed and run again.
#
#   go build -tags onnx -o softshape-bin ./cmd/softshape
#   SOFTSHAPE=./softshape-bin BACKEND=onnx:cpu DATA=../shared/ucr reproduction/run-sweeps.sh
#
# One process per preset (PRESETS=reference_compat, PRESETS=reference_fresh) uses
# one core each: confine each with taskset -c (or a cpuset cgroup), which gives
# it one ONNX Runtime thread (environment.md, "Threads"). A binary older than
# that setting (the committed records' 13e7ca1) escapes taskset and spins a
# second thread: run it in a cpuset cgroup with ORT_INTRA_OP_NUM_THREADS=1.
set -euo pipefail
cd "$(dirname "$0")/.."
SOFTSHAPE="${SOFTSHAPE:-./softshape-bin}" # ./softshape is the package folder
BACKEND="${BACKEND:-fastest}"
DATA="${DATA:-../shared/ucr}"
SEEDS="${SEEDS:-42}"
TABLES="${TABLES:-sparse_ratio experts_k depth_L}"
PRESETS="${PRESETS:-reference_compat reference_fresh}"
# Smallest first (series × length, one full-batch step per epoch under both presets).
DATASETS="${DATASETS:-ItalyPowerDemand GunPoint DistalPhalanxOutlineAgeGroup MiddlePhalanxTW ArrowHead Trace}"
for table in $TABLES; do
  for ds in $DATASETS; do
    for preset in $PRESETS; do
      echo "== $(date -u +%FT%TZ) $table $ds $preset"
      "$SOFTSHAPE" sweep -table "$table" -datasets "$ds" -seeds "$SEEDS" -set "protocol=$preset" \
        -backend "$BACKEND" -data "$DATA" -offline -results "reproduction/results/$preset"
    done
  done
done
echo "== $(date -u +%FT%TZ) all sweeps done"
