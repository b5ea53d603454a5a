package golden

import (
	"fmt"
	"os/exec"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/klauspost/cpuid/v2"

	"github.com/softshape-go/softshape/internal/backends"
	"github.com/softshape-go/softshape/internal/hostinfo"
)

// Environment is where a record was made. The fields Matches compares are
// the ones the numbers can depend on: the compiled code (Go version,
// architecture and its level, GOEXPERIMENT=simd, the GoMLX modules), the
// vector instructions the CPU offers (which kernels the pure-Go backend
// with simd and ONNX Runtime pick at run time) and each backend's
// description (ONNX Runtime's version and thread count). The others say
// where and from what it came.
type Environment struct {
	// Commit is the git commit of the checkout the record was made in
	// (`git rev-parse HEAD` in the working directory), "unknown" outside a
	// checkout; Dirty is true when its tracked Go files or go.mod/go.sum had
	// changes not committed.
	Commit string `json:"commit"`
	Dirty  bool   `json:"dirty,omitempty"`
	// GoVersion is runtime.Version(); GOOS, GOARCH and GOAMD64 (or GOARM64)
	// those of the build.
	GoVersion string `json:"go_version"`
	GOOS      string `json:"goos"`
	GOARCH    string `json:"goarch"`
	// ArchLevel is the build's GOAMD64 or GOARM64 setting ("v1", "v3", ...).
	ArchLevel string `json:"arch_level,omitempty"`
	// SIMD is true when the binary was built with GOEXPERIMENT=simd (the
	// pure-Go backend's AVX2/AVX-512 kernels).
	SIMD bool `json:"goexperiment_simd"`
	// CPU names the processor (hostinfo.Processor); CPUFeatures lists the
	// vector instruction sets it offers, of the ones in vectorFeatures.
	CPU         string   `json:"cpu"`
	CPUFeatures []string `json:"cpu_features"`
	// NumCPU is runtime.NumCPU() when recording: the cores the process
	// could use (its affinity, e.g. taskset).
	NumCPU int `json:"num_cpu"`
	// Modules are the versions of the GoMLX modules compiled in.
	Modules map[string]string `json:"modules"`
	// Backends maps each backend config a record used ("go", "onnx:cpu")
	// to its backends.Description.
	Backends map[string]string `json:"backends"`
}

// vectorFeatures are the CPU features CurrentEnvironment lists: the vector
// instruction sets a kernel may be chosen by at run time.
var vectorFeatures = []cpuid.FeatureID{
	cpuid.AVX, cpuid.AVX2, cpuid.FMA3, cpuid.F16C,
	cpuid.AVX512F, cpuid.AVX512DQ, cpuid.AVX512CD, cpuid.AVX512BW, cpuid.AVX512VL,
	cpuid.AVX512VNNI, cpuid.AVX512BF16, cpuid.AVX512FP16, cpuid.AVXVNNI, cpuid.AMXTILE,
	cpuid.ASIMD, cpuid.ASIMDDP, cpuid.ASIMDHP, cpuid.SVE,
}

// onnxModule is the ONNX Runtime backend's module, compiled in by -tags onnx.
const onnxModule = "github.com/gomlx/compute-onnx"

// modulePaths are the modules whose versions Environment.Modules records.
var modulePaths = []string{"github.com/gomlx/gomlx", "github.com/gomlx/compute", onnxModule}

// CurrentEnvironment describes this process and machine; Backends is left
// empty (Record fills it with the backends it starts).
func CurrentEnvironment() Environment {
	env := Environment{
		GoVersion: runtime.Version(), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, SIMD: simdBuild,
		CPU: hostinfo.Processor(), NumCPU: runtime.NumCPU(),
		Modules: map[string]string{}, Backends: map[string]string{},
	}
	for _, f := range vectorFeatures {
		if cpuid.CPU.Supports(f) {
			env.CPUFeatures = append(env.CPUFeatures, f.String())
		}
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "GOAMD64" || s.Key == "GOARM64" {
				env.ArchLevel = s.Value
			}
		}
		for _, d := range info.Deps {
			if slices.Contains(modulePaths, d.Path) {
				if d.Replace != nil {
					d = d.Replace
				}
				env.Modules[d.Path] = d.Version
			}
		}
	}
	env.Commit, env.Dirty = gitCommit()
	return env
}

// gitCommit returns HEAD of the checkout in the working directory and
// whether its tracked Go sources or module files have uncommitted changes;
// "unknown" where git or a checkout is missing.
func gitCommit() (string, bool) {
	out, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		return "unknown", false
	}
	status, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no", "--", "*.go", "go.mod", "go.sum").Output()
	return strings.TrimSpace(string(out)), err == nil && len(strings.TrimSpace(string(status))) > 0
}

// Mismatches lists how e differs from want in what the numbers can depend
// on, for the given backend configs (nil: every backend of want); none means a
// record made here must reproduce want's bit for bit.
func (e Environment) Mismatches(want Environment, configs []string) []string {
	var out []string
	diff := func(what, got, wanted string) {
		if got != wanted {
			out = append(out, fmt.Sprintf("%s is %s here, %s in the record", what, quoted(got), quoted(wanted)))
		}
	}
	diff("the Go version", e.GoVersion, want.GoVersion)
	diff("GOOS/GOARCH", e.GOOS+"/"+e.GOARCH, want.GOOS+"/"+want.GOARCH)
	diff("the architecture level (GOAMD64/GOARM64)", e.ArchLevel, want.ArchLevel)
	diff("GOEXPERIMENT=simd", onOff(e.SIMD), onOff(want.SIMD))
	diff("the CPU's vector features", strings.Join(e.CPUFeatures, " "), strings.Join(want.CPUFeatures, " "))
	if configs == nil {
		for b := range want.Backends {
			configs = append(configs, b)
		}
		slices.Sort(configs)
	}
	onnx := slices.ContainsFunc(configs, backends.ONNXOnCPU)
	for _, m := range modulePaths {
		if m != onnxModule || onnx { // a build without -tags onnx lacks it
			diff("module "+m, e.Modules[m], want.Modules[m])
		}
	}
	for _, b := range configs {
		diff("backend "+b, e.Backends[b], want.Backends[b])
	}
	return out
}

func quoted(s string) string {
	if s == "" {
		return "(none)"
	}
	return fmt.Sprintf("%q", s)
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
