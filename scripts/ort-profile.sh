#!/usr/bin/env bash
# ONNX Runtime's own per-operator profile of saved step graphs, one intra-op
# thread (docs/performance.md, "Whole runs: where the time goes"):
#
#   softshape flops -dataset MiddlePhalanxTW -set protocol=reference_fresh -backend onnx:cpu -onnx /tmp/steps
#   scripts/ort-profile.sh /tmp/steps/train-sparse-b331.onnx [RUNS]
#
# Builds scripts/ort-profile.c (gcc, against the C API header that GoMLX's
# compute-onnx module ships and the library of scripts/install-onnxruntime.sh
# or $ONNXRUNTIME_SHARED_LIBRARY_PATH), runs the model RUNS times (default 6;
# the first run is left out of the summary), and prints the kernel time per
# operator type and the 15 slowest nodes, per run. The profile JSON stays
# beside the model (MODEL-ort-profile_*.json).
#
#   scripts/ort-profile.sh -compare RUNS A.onnx B.onnx...
#
# runs the models in turn instead (RUNS rounds, no profiler), e.g. a step's
# plain graph and its speed form (`softshape flops -fast -onnx DIR`), and
# prints each one's minimum and median thread CPU time per run.
set -euo pipefail
compare=
if [ "${1:-}" = -compare ]; then
	compare=1
	if [ $# -lt 3 ]; then
		echo "usage: $0 -compare RUNS MODEL.onnx..." >&2
		exit 2
	fi
elif [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: $0 MODEL.onnx [RUNS]  or  $0 -compare RUNS MODEL.onnx..." >&2
	exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
lib=${ONNXRUNTIME_SHARED_LIBRARY_PATH:-$("$here/install-onnxruntime.sh" --print-path)}
if [ ! -f "$lib" ]; then
	echo "$0: no ONNX Runtime library at $lib: run scripts/install-onnxruntime.sh" >&2
	exit 1
fi
hdr=$(cd "$here/.." && go list -m -f '{{.Dir}}' github.com/gomlx/compute-onnx)/internal/ort
bin=${TMPDIR:-/tmp}/softshape-ort-profile
gcc -O2 -o "$bin" -I"$hdr" "$here/ort-profile.c" "$lib" -Wl,-rpath,"$(dirname "$lib")"
if [ -n "$compare" ]; then
	exec "$bin" "$@"
fi
model=$1
runs=${2:-6}
json=$("$bin" "$model" "$runs" "${model%.onnx}-ort-profile")
echo "profile: $json"
python3 - "$json" <<'PY'
import collections, json, sys
events = json.load(open(sys.argv[1]))
runs = [e for e in events if e.get("cat") == "Session" and e.get("name") == "model_run"]
runs = sorted(runs, key=lambda e: e["ts"])
first_end = runs[0]["ts"] + runs[0]["dur"]
kept = runs[1:] or runs
nodes = [e for e in events if e.get("cat") == "Node" and e["name"].endswith("_kernel_time")
         and (len(runs) == 1 or e["ts"] >= first_end)]
n = len(kept)
run_us = sum(r["dur"] for r in kept) / n
by_op, by_node = collections.Counter(), collections.Counter()
for e in nodes:
    by_op[e["args"]["op_name"]] += e["dur"]
    by_node[(e["args"]["op_name"], e["name"][:-len("_kernel_time")])] += e["dur"]
kernel = sum(by_op.values()) / n
print(f"{n} runs: {run_us/1e3:.1f} ms per run, {kernel/1e3:.1f} ms in kernels")
print(f"{'operator':<22} {'ms/run':>8} {'share':>7}")
for op, us in by_op.most_common():
    print(f"{op:<22} {us/n/1e3:8.2f} {100*us/n/kernel:6.1f}%")
print("slowest nodes:")
for (op, name), us in by_node.most_common(15):
    print(f"  {op:<16} {us/n/1e3:7.2f} ms  {name}")
PY
