#!/usr/bin/env bash
# gpu-sweep.sh: trains pending cells of a full-protocol sweep on a GPU machine
# with no Go toolchain and no network (the session's lent GPU: one command of
# at most 10 minutes), and packs every record it finished into ONE archive,
# $OUT/sweep-records.tar.gz, to unpack in the repository root where the sweeps
# live. The default is Table 1's dearest datasets (issue 51: EOGVerticalSignal
# alone is ≈3 core-hours per preset on ONNX Runtime).
#
# Before, on the machine with Go, from the repository root:
#   - the sweep binary of the table's pinned commit (Table 1: f79ea93; the
#     manifest names it), with XLA (every build has it):
#       git worktree add --detach /tmp/wt-gpu f79ea93
#       (cd /tmp/wt-gpu && go build -tags onnx -o "$OLDPWD/.gpu/softshape" ./cmd/softshape)
#   - the datasets, packed (the data travels as one small file):
#       tar -C ../shared/ucr -czf .gpu/ucr.tar.gz EOGVerticalSignal AllGestureWiimoteX ...
# then the device tool: carry [".gpu"], command "bash scripts/gpu-sweep.sh",
# timeout_s 600. Afterwards, here, add the records without overwriting any
# file already present, and commit them as the CPU sweeps' are:
#   tar -xzkf <files_at>/sweep-records.tar.gz
# A compat (fold_reset=carry) chain that was stopped brings its carried state
# (*.carry, ignored by git), so the CPU sweep resumes it at its next fold.
#
# Settings: TABLE (main); PRESETS (reference_compat,reference_fresh), each
# preset's DATASETS swept in order, one dataset at a time, by JOBS (2)
# processes per preset, all sharing the GPU; SEEDS (42); TOTAL_S (540: the
# sweeps are stopped then, losing only their runs in flight, and the archive
# is written); BACKEND (xla:cuda); BIN (.gpu/softshape); DATA (.gpu/ucr.tar.gz,
# or a folder of datasets); RESULTS (reproduction/results, one folder per
# preset below it); EXTRA (more sweep flags: EXTRA=-quick BACKEND=onnx:cpu
# tries the script on a CPU).
set -u
root=$(pwd)
out=${OUT:-$root/gpu-sweep}
mkdir -p "$out"
# A previous run's archive may hold records not yet unpacked: never replace it.
[ ! -e "$out/sweep-records.tar.gz" ] || { echo "$out/sweep-records.tar.gz exists (a previous run's records?): unpack it and move it away, or set OUT" >&2; exit 1; }
start=$(date +%s)
left() { echo $((${TOTAL_S:-540} - ($(date +%s) - start))); }
backend=${BACKEND:-xla:cuda}
bin=$root/${BIN:-.gpu/softshape}
results=${RESULTS:-reproduction/results}
[ -x "$bin" ] || { echo "no sweep binary at $bin (BIN): build it as the header says" >&2; exit 1; }
case $backend in xla:cuda*)
	. "$root/scripts/cuda-env.sh"
	cuda_env "$out/gpu.txt" || exit 1
	;;
esac
data=${DATA:-.gpu/ucr.tar.gz}
if [ -f "$data" ]; then
	mkdir -p /tmp/gpu-sweep-ucr && tar -xzf "$data" -C /tmp/gpu-sweep-ucr || exit 1
	data=/tmp/gpu-sweep-ucr
fi
stamp=$(mktemp) # records newer than this go into the archive
touch "$stamp"
datasets=${DATASETS:-EOGVerticalSignal,AllGestureWiimoteX,AllGestureWiimoteY,AllGestureWiimoteZ,HouseTwenty}
jobs=${JOBS:-2}
# sweep PRESET JOB: this job's share of the datasets (every JOBS-th, from JOB),
# one sweep each, while time is left.
sweep() {
	local preset=$1 job=$2 i=0 ds
	for ds in $(echo "$datasets" | tr , ' '); do
		i=$((i + 1))
		[ $(((i - 1) % jobs)) -eq "$job" ] || continue
		[ "$(left)" -gt 30 ] || return
		echo "== $(date -u +%T) ${TABLE:-main} $ds $preset"
		# shellcheck disable=SC2086 # EXTRA is a list of flags
		timeout "$(left)" "$bin" sweep -table "${TABLE:-main}" -datasets "$ds" -seeds "${SEEDS:-42}" \
			-set "protocol=$preset" -backend "$backend" -data "$data" -offline \
			-results "$results/$preset" ${EXTRA:-}
	done
}
for preset in $(echo "${PRESETS:-reference_compat,reference_fresh}" | tr , ' '); do
	for job in $(seq 0 $((jobs - 1))); do
		sweep "$preset" "$job" >"$out/sweep-$preset-$job.log" 2>&1 &
	done
done
wait
# Finished records and the grid files naming them, and the carried states of
# stopped chains; never the .running markers of runs in flight.
mkdir -p "$results" && (cd "$root" && find "$results" -newer "$stamp" -type f ! -name '*.running' ! -name '.*' -print0 |
	tar --null -czf "$out/sweep-records.tar.gz" -T -) || exit 1
records() { tar -tzf "$out/sweep-records.tar.gz" | grep -E '/fold[^/]*\.json$'; }
echo "== $(date -u +%T) archive: $(records | wc -l) records, per folder:"
records | sed 's|/[^/]*$||' | sort | uniq -c
[ "$backend" = "${backend#xla:cuda}" ] || nvidia-smi --query-gpu=memory.used --format=csv,noheader | tee -a "$out/gpu.txt"
