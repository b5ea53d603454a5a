package reproduce

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/gomlx/compute"

	"github.com/softshape-go/softshape/internal/backends"
)

// BackendLine says in one Markdown line which backend the notebook's runs
// use, without starting one: Params.BackendName, with backends.Fastest
// ("fastest", the notebooks' default) resolved to the one it takes here
// (backends.FastestCandidates), and when it falls back to a slower one, what
// makes ONNX Runtime available to the notebooks.
func BackendLine(p Params) string {
	candidates, _ := backends.FastestCandidates()
	hint := notebookHint(slices.Contains(compute.List(), "onnx"), backends.FindONNXRuntime(), candidates[0])
	return backendLine(p.BackendName, os.Getenv(compute.ConfigEnvVar), candidates, hint)
}

// notebookHint says what gives the notebooks ONNX Runtime when "fastest"
// takes first, another backend: "" when first is ONNX Runtime, or XLA (as
// backends.FastestCandidates, which gives no hint then either).
func notebookHint(onnxIn bool, lib, first string) string {
	name, _, _ := strings.Cut(first, ":")
	if name == "onnx" || name == "xla" {
		return ""
	}
	install := "`bash notebooks/setup.sh` installs its library (no root; or `scripts/install-onnxruntime.sh`)"
	switch {
	case !onnxIn && lib == "":
		return "for several times faster CPU training, " + install + ", and the set-up cell's `%goflags -tags=onnx` needs cgo (a C compiler, e.g. `apt-get install gcc`)"
	case !onnxIn:
		return "ONNX Runtime is installed (" + lib + ") but the cells were built without it: the set-up cell's `%goflags -tags=onnx` needs cgo (a C compiler, e.g. `apt-get install gcc`); then restart the kernel"
	}
	return "ONNX Runtime is built in but its library is missing: " + install
}

// backendLine is BackendLine for a Backend setting asked, $GOMLX_BACKEND env
// and what "fastest" would try here (candidates, best first) with its hint.
func backendLine(asked, env string, candidates []string, hint string) string {
	config, how := strings.TrimSpace(asked), "as set"
	switch {
	case config == "" && env != "":
		config, how = env, "from $GOMLX_BACKEND"
	case config == "":
		config, how = backends.Default, "the default"
	}
	if strings.EqualFold(config, backends.Fastest) {
		line := fmt.Sprintf("**Backend:** %s (`%s`), the fastest built in and installed here", backendName(candidates[0]), shortConfig(candidates[0]))
		if hint != "" {
			return line + ". *Faster:* " + hint + "."
		}
		return line + "."
	}
	return fmt.Sprintf("**Backend:** %s (`%s`, %s).", backendName(config), shortConfig(config), how)
}

// backendName names the backend of a config in words.
func backendName(config string) string {
	name, opts, _ := strings.Cut(strings.ToLower(strings.TrimSpace(config)), ":")
	switch {
	case name == "onnx" || name == "onnxruntime":
		if backends.ONNXOnCPU(config) {
			return "ONNX Runtime on CPU"
		}
		return "ONNX Runtime"
	case name == "xla" && strings.Contains(opts, "cuda"):
		return "XLA on CUDA"
	case name == "xla":
		return "XLA on CPU"
	case name == "go" || name == "":
		return "pure Go"
	}
	return name
}

// shortConfig is a config without the path of a library it names
// ("onnx:cpu,/home/…/libonnxruntime.so" → "onnx:cpu").
func shortConfig(config string) string {
	name, opts, ok := strings.Cut(config, ":")
	if !ok {
		return config
	}
	var kept []string
	for o := range strings.SplitSeq(opts, ",") {
		if !strings.Contains(o, "/") {
			kept = append(kept, o)
		}
	}
	if len(kept) == 0 {
		return name
	}
	return name + ":" + strings.Join(kept, ",")
}
