#!/usr/bin/env bash
# Runs (or resumes) the full-protocol sweeps behind docs/reproduction.md on the
# six smallest local 18-dataset-table datasets, under the presets
# reference_compat and reference_fresh, seed 42 (SEEDS, comma-separated, to
# add more: SEEDS=0,1). One
# results folder per preset (reproduction/results/<preset>), since both presets
# run the same cells under different configurations.
#
# TABLES lists the sweeps in the order they run, each "table" or
# "table:variant,variant" (only those variants). The default is the whole
# campaign in the order it was run:
#   - Tables 3 (sparse ratio η), 4 (experts k) and 6 (depth L): complete;
#     Table 4's k = 1 and Table 6's L = 2 reuse Table 3's η = 50% runs;
#   - Table 5 (stride q): q = 4 reuses Table 3's η = 50% runs;
#   - Table 7 (shape length m): Fixed-8 and Multi-Seq; the paper's Val-Select
#     column is the default run (the authors' per-dataset m, variant
#     SoftShape), reused from Table 3; Fixed-8 trains on every dataset, also
#     where the authors' m is 8 (its explicit shape_length=8 keys it apart
#     from the default configuration);
#   - Table 2 (ablation): SoftShape reuses Table 3's η = 50% runs;
#   - the appendix's studies, which the paper gives as summary rows only:
#     the number of experts Ĉ (num_experts), the MoE expert network
#     (moe_expert_network), the shared expert network (shared_expert_network)
#     and the loss weight λ (lambda); each one's default column (Ĉ = C, the
#     original MoE expert, the Inception shared expert, λ = 0.001) reuses
#     Table 3's η = 50% runs. They train with the 419a7d9 binary.
# Tables 5, 7 and 2 train with the 013978b binary. That binary predates
# Table 7's Val-Select column as the default run (8d4257a) and rejects the
# variant SoftShape there: give it TABLES="… shape_length_m:Fixed-8,Multi-Seq …",
# then run shape_length_m:SoftShape once with a current binary (reuse only,
# nothing trains) so that the grid lists the column.
# Tables 3, 5 and 6's seeds 0, 1 (reference_fresh) train with the 013978b
# binary too, except ItalyPowerDemand's, which the 91da33c binary trained (its
# stride at m = 4, docs/reproduction.md "The stride where m = 4"); 013978b would
# train ItalyPowerDemand at another configuration, so leave it out:
#   TABLES=depth_L SEEDS=0,1 PRESETS=reference_fresh DATASETS="GunPoint DistalPhalanxOutlineAgeGroup MiddlePhalanxTW ArrowHead Trace" reproduction/run-sweeps.sh
# Reuse is by configuration (experiments/sweep: same dataset, fold, seed and
# settings), so a reused cell costs nothing. Datasets run smallest first, one
# sweep per table × dataset × preset, so whole tables finish as early as
# possible; `softshape sweep` resumes from its store, so this script can be
# killed and run again.
#
#   go build -tags onnx -o softshape-bin ./cmd/softshape
#   SOFTSHAPE=./softshape-bin BACKEND=onnx:cpu DATA=../shared/ucr reproduction/run-sweeps.sh
#
# Table 1 (main) runs on the 62 datasets of reproduction.Table1Datasets, in that
# order (cheapest first), seed 42, with the binary the manifest names for it
# (f79ea93), one preset per core:
#   TABLES=main DATASETS="<the 62 names of Table1Datasets, space-separated>" PRESETS=reference_compat taskset -c 0 reproduction/run-sweeps.sh
#   TABLES=main DATASETS="<the 62 names>" PRESETS=reference_fresh  taskset -c 1 reproduction/run-sweeps.sh
# EOGVerticalSignal, whose folds outlast a 3-hour session on one core, trains
# with the binary of cf71ab9, which saves a fold's progress every 10 minutes and
# continues it after a kill (sweep -save-progress), and frees a fold's warm-up
# graphs when its sparse phase starts (less memory); it computes what f79ea93
# computes: on ECG200 and Trace, folds 1-2 under both presets (ECG200's fold 1
# killed once in its middle and continued), its records equal f79ea93's bit for
# bit, ECG200's being the committed ones (trained on another processor) and
# Trace's trained beside them.
# Table 1's six sweep datasets are trained again with -no-reuse (arguments are
# passed on to every sweep), not copied from the other tables' runs, which older
# binaries made (docs/reproduction.md, "Table 1 from its own binary"):
#   TABLES=main PRESETS=reference_compat taskset -c 0 reproduction/run-sweeps.sh -no-reuse
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
TABLES="${TABLES:-sparse_ratio experts_k depth_L stride_q shape_length_m:SoftShape,Fixed-8,Multi-Seq ablation num_experts moe_expert_network shared_expert_network lambda}"
PRESETS="${PRESETS:-reference_compat reference_fresh}"
# Smallest first (series × length, one full-batch step per epoch under both presets).
DATASETS="${DATASETS:-ItalyPowerDemand GunPoint DistalPhalanxOutlineAgeGroup MiddlePhalanxTW ArrowHead Trace}"
for spec in $TABLES; do
  table="${spec%%:*}"
  variants=()
  if [ "$spec" != "$table" ]; then variants=(-variants "${spec#*:}"); fi
  for ds in $DATASETS; do
    for preset in $PRESETS; do
      echo "== $(date -u +%FT%TZ) $spec $ds $preset"
      "$SOFTSHAPE" sweep -table "$table" "${variants[@]}" -datasets "$ds" -seeds "$SEEDS" -set "protocol=$preset" \
        -backend "$BACKEND" -data "$DATA" -offline -results "reproduction/results/$preset" "$@"
    done
  done
done
echo "== $(date -u +%FT%TZ) all sweeps done"
