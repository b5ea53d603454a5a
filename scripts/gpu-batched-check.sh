#!/usr/bin/env bash
# gpu-batched-check.sh: the GPU measurement of "Many runs in one graph on a GPU" (docs/gpu.md)
# on XLA CUDA, for a GPU machine with JAX's CUDA PJRT plugin (jax-cuda13-pjrt)
# and no Go toolchain. Build the test binary where Go is:
#
#   GOEXPERIMENT=simd go test -c -o .gpu/softshape.test ./softshape/
#   GOEXPERIMENT=simd go test -c -o .gpu/timing.test ./experiments/timing/
#   mkdir -p .gpu/shared/ucr && cp -r ../shared/ucr/{GunPoint,ECG200,ItalyPowerDemand} .gpu/shared/ucr/
#
# then run this script there from the repository root. PARTS lists what it
# measures, in order (default batched,one,product,step; fold and procs on request), each logged as it
# ends:
#   batched  the full protocol (500 epochs) of 5 folds × the seeds, R runs
#            at a time, for each run-axis mode in AXIS (RunOptions.RunAxis:
#            on, a run axis; off, the runs each alone at the same time;
#            auto, the backend's default) (BenchmarkTrainRunsProtocol);
#   one      the same runs one at a time;
#   product  R = 10 token products with gradients as 10 rank-2 products
#            against one product over a run axis (BenchmarkRunAxisProduct, at
#            most 60 s): the kernel a model with a run axis on every variable
#            would run;
#   step     the compilation and step times of R runs in one graph against R
#            single-run steps (BenchmarkBatchedStep, at most STEP_S seconds);
#   fold     one sparse training step at batch 16 (BenchmarkTrainStepSparse)
#            against one at batch 16·R (BenchmarkTrainStepBatch,
#            -step-batches), 30 steps each, at most 120 s: the
#            speed-up a run axis could give at most, R runs' batches in one
#            step of one model;
#   procs    PROCS (4) processes at once, each the "one" arm (the same runs):
#            the throughput of one GPU shared by several sweep processes
#            (`-shard`), against "one" alone. With SEEDS=1 the two parts take
#            ≈2.5 minutes each ("one") on an H200.
# On an H200 the GunPoint arms of 5 folds × 2 seeds took ≈6 (batched, model
# copies) and ≈5 minutes (one), more than one 10-minute call holds. On an
# H100 (docs/gpu.md, "Many runs in one graph on a GPU") one call of
# PARTS=batched,one,fold STOPPED=axis SEEDS=1 TOTAL_S=520 (STOPPED=axis is
# AXIS=on now) took 292 s (run axis 84 s, one at a time 160 s, fold 45 s).
# Left to measure: larger R on the run axis (R=20 SEEDS=1,2,3,4
# PARTS=batched AXIS=on), the run-axis product
# and PARTS=procs. Logs go to $OUT (or
# ./gpu-check). Other settings: TEST_BIN (.gpu/softshape.test), TIMING_BIN
# (.gpu/timing.test: BenchmarkTrainRunsProtocol), R (10), SEEDS
# (1,2), DATASETS (GunPoint), AXIS (auto), EPOCHS (500), TOTAL_S (the
# whole budget in seconds, 540), STEP_S (120), BACKEND (xla:cuda; another
# backend skips the plugin set-up, e.g. BACKEND=go EPOCHS=4 to try the script
# on a CPU).
set -u
[ -z "${STOPPED:-}" ] || { echo "STOPPED=$STOPPED: gone (the stopped-runs policies change nothing); AXIS=on is the run axis (was STOPPED=axis), AXIS=off the runs alone" >&2; exit 2; }
root=$(pwd)
out=${OUT:-$root/gpu-check}
mkdir -p "$out"
bin=$root/${TEST_BIN:-.gpu/softshape.test}
timing_bin=$root/${TIMING_BIN:-.gpu/timing.test}
backend=${BACKEND:-xla:cuda}
case $backend in xla:cuda*) cuda=1 ;; *) cuda= ;; esac
if [ -n "$cuda" ]; then
	. "$root/scripts/cuda-env.sh"
	cuda_env "$out/gpu.txt" || exit 1
fi
export GOMLX_BACKEND=$backend SOFTSHAPE_SHARED=$root/.gpu/shared
cd "$root/softshape" || exit 1
r=${R:-10}
start=$(date +%s)
left() { echo $(( ${TOTAL_S:-540} - ($(date +%s) - start) )); }
# bench LOG LIMIT MIN NAME BENCHTIME [-FLAG=VALUE...]: one benchmark of the
# test binary with its flags, at most LIMIT seconds (and the time left),
# skipped under MIN.
bench() {
	local log=$1 limit=$2 min=$3 name=$4 times=$5
	shift 5
	[ "$(left)" -ge "$limit" ] || limit=$(left)
	[ "$limit" -ge "$min" ] || { echo "no time left for $log"; return; }
	local b=$bin
	[ "$name" != TrainRunsProtocol ] || b=$timing_bin # experiments/timing's benchmark
	timeout "$limit" "$b" -test.run '^$' -test.bench "$name" -test.benchtime "$times" -test.v "$@" 2>&1 |
		grep -v '^[IW][0-9]' | tee "$out/$log.log"
}
protocol=(-batch-epochs="${EPOCHS:-500}" -batch-datasets="${DATASETS:-GunPoint}" -batch-seeds="${SEEDS:-1,2}")
for part in $(echo "${PARTS:-batched,one,product,step}" | tr , ' '); do
	echo "== $part $(date -u +%T)"
	case $part in
	batched) bench batched 100000 30 TrainRunsProtocol 1x "${protocol[@]}" -batch-r="$r" -batch-run-axis="${AXIS:-auto}" ;;
	one) bench one-at-a-time 100000 30 TrainRunsProtocol 1x "${protocol[@]}" -batch-r=1 ;;
	product) bench product 60 20 RunAxisProduct 200x ;;
	step) bench step "${STEP_S:-120}" 30 BatchedStep 20x -batch-r="$r" ;;
	fold)
		bench fold-16 60 20 "TrainStepSparse\$/${backend%%:*}\$" 30x
		bench "fold-$((16 * r))" 60 20 "TrainStepBatch/$((16 * r))/sparse/${backend%%:*}\$" 30x -step-batches=$((16 * r))
		;;
	procs)
		t0=$(date +%s) tmp=$(mktemp -d)
		for i in $(seq "${PROCS:-4}"); do # each process logs in tmp; $OUT gets one file
			(out=$tmp bench "procs-$i" 100000 30 TrainRunsProtocol 1x "${protocol[@]}" -batch-r=1 >/dev/null) &
		done
		wait
		cat "$tmp"/procs-*.log >"$out/procs.log"
		grep -h -A1 '^dataset' "$out/procs.log" | grep -v -e '^dataset' -e '^--'
		echo "${PROCS:-4} processes at once: $(($(date +%s) - t0)) s in all"
		;;
	*) echo "PARTS: unknown part $part (batched, one, product, step, fold, procs)" >&2; exit 2 ;;
	esac
done
[ -z "$cuda" ] || nvidia-smi --query-gpu=memory.used --format=csv,noheader | tee -a "$out/gpu.txt"
echo "== end $(date -u +%T)"
