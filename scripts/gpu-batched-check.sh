#!/usr/bin/env bash
# gpu-batched-check.sh: the GPU measurement of "Many runs in one graph" (README)
# on XLA CUDA, for a GPU machine with JAX's CUDA PJRT plugin (jax-cuda13-pjrt)
# and no Go toolchain. Build the test binary where Go is:
#
#   GOEXPERIMENT=simd go test -c -o .gpu/softshape.test ./softshape/
#   mkdir -p .gpu/shared/ucr && cp -r ../shared/ucr/{GunPoint,ECG200,ItalyPowerDemand} .gpu/shared/ucr/
#
# then run this script there from the repository root. It prints, as each is
# measured: the full protocol (500 epochs) of 5 folds × the seeds batched,
# with stopped runs riding and then leaving (RunOptions.StoppedRuns); the same
# runs one at a time (BenchmarkTrainRunsProtocol); then, in the time left and
# at most STEP_S seconds, the compilation and step times of R runs in one
# graph against R single-run steps (BenchmarkBatchedStep). The protocol comes
# first because its ratio is the one the batched trainer's issue asks for. Logs go to $OUT (or ./gpu-check). Settings:
# TEST_BIN (.gpu/softshape.test), R (10), SEEDS (1,2), DATASETS (GunPoint),
# STOPPED (ride,leave), EPOCHS (500), TOTAL_S (the whole budget in seconds,
# 540), STEP_S (the step part's limit, 120), BACKEND (xla:cuda; another
# backend skips the plugin set-up, e.g. BACKEND=go EPOCHS=4 to try the script
# on a CPU).
set -u
root=$(pwd)
out=${OUT:-$root/gpu-check}
mkdir -p "$out"
bin=$root/${TEST_BIN:-.gpu/softshape.test}
backend=${BACKEND:-xla:cuda}
if [ "$backend" = xla:cuda ]; then
	nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
	sp=$(python3 -c 'import jax_plugins.xla_cuda13 as p, os; print(os.path.dirname(os.path.dirname(os.path.dirname(p.__file__))))') || {
		echo "no JAX CUDA 13 plugin (jax-cuda13-pjrt) in python3" >&2
		exit 1
	}
	mkdir -p /tmp/go-xla-plugins
	ln -sf "$sp/jax_plugins/xla_cuda13/xla_cuda_plugin.so" /tmp/go-xla-plugins/pjrt_c_api_cuda_plugin.so
	export PJRT_PLUGIN_LIBRARY_PATH=/tmp/go-xla-plugins GOMLX_NO_AUTO_INSTALL=1
	LD_LIBRARY_PATH=$(ls -d "$sp"/nvidia/*/lib | paste -sd:):${LD_LIBRARY_PATH:-}
	export LD_LIBRARY_PATH
	export XLA_FLAGS=--xla_gpu_per_fusion_autotune_cache_dir=/tmp/xla-autotune
fi
export GOMLX_BACKEND=$backend SOFTSHAPE_SHARED=$root/.gpu/shared
cd "$root/softshape" || exit 1
r=${R:-10}
start=$(date +%s)
left() { echo $(( ${TOTAL_S:-540} - ($(date +%s) - start) )); }
protocol() { # $1: log name, then the variables of the measurement
	local log=$1 limit
	shift
	limit=$(left)
	[ "$limit" -gt 30 ] || { echo "no time left for $log"; return; }
	env SOFTSHAPE_BATCH_EPOCHS="${EPOCHS:-500}" SOFTSHAPE_BATCH_DATASETS="${DATASETS:-GunPoint}" SOFTSHAPE_BATCH_SEEDS="${SEEDS:-1,2}" "$@" \
		timeout "$limit" "$bin" -test.run '^$' -test.bench TrainRunsProtocol -test.benchtime 1x -test.v 2>&1 |
		grep -v '^[IW][0-9]' | tee "$out/$log.log"
}
echo "== protocol: R=$r, stopped runs ${STOPPED:-ride,leave}, $(date -u +%T)"
protocol batched SOFTSHAPE_BATCH_R="$r" SOFTSHAPE_BATCH_STOPPED="${STOPPED:-ride,leave}"
echo "== protocol: one run at a time, $(date -u +%T)"
protocol one-at-a-time SOFTSHAPE_BATCH_R=1
step_s=$(left)
[ "$step_s" -le "${STEP_S:-120}" ] || step_s=${STEP_S:-120}
if [ "$step_s" -gt 30 ]; then
	echo "== step: R=$r in one graph against $r single-run steps, $(date -u +%T)"
	SOFTSHAPE_BATCH_R=$r timeout "$step_s" "$bin" -test.run '^$' -test.bench BatchedStep -test.benchtime 20x -test.v 2>&1 |
		grep -v '^[IW][0-9]' | tee "$out/step.log"
else
	echo "no time left for the step benchmark"
fi
[ "$backend" != xla:cuda ] || nvidia-smi --query-gpu=memory.used --format=csv,noheader | tee -a "$out/gpu.txt"
echo "== end $(date -u +%T)"
