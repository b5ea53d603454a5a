// Package backends starts the GoMLX compute backend a run asks for: the
// pure-Go one by default, ONNX Runtime or XLA when they are compiled in and
// installed, or the fastest of them ("fastest"). It finds the ONNX Runtime
// library scripts/install-onnxruntime.sh installs, sets ONNX Runtime's thread
// policy, and turns a backend that cannot start into an error saying what to
// do. cmd/, experiments/ and softshape all start their backends here. It also
// holds the run policy of each backend: how many runs train at a time
// (DefaultMaxRuns) and whether on a run axis (DefaultRunAxis).
package backends

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gomlx/compute"
	_ "github.com/gomlx/compute/gobackend" // the pure-Go backend ("go"), the zero-setup default.
)

// Default is the backend used when neither the caller nor $GOMLX_BACKEND
// names one: the pure-Go backend with parallelism=-1, the setting that avoids the
// pure-Go backend's deadlock on 2-core machines (see environment.md).
const Default = "go:parallelism=-1"

// SingleThread is the pure-Go backend config that runs every op of a
// graph on the calling goroutine, one after the other: parallelism=0 (no
// worker pool, so the pool deadlock of the default setting cannot occur) and
// ops_sequential (with parallelism=0 the parallel scheduler only adds
// bookkeeping, measured as ≈10–15% more CPU time per run). One run on it keeps
// one core busy; a sweep can give one to each worker (sweep.AutoWorkers).
const SingleThread = "go:parallelism=0,ops_sequential"

// Fastest asks New for the fastest backend usable here without any
// download: ONNX Runtime on CPU ("onnx:cpu") when it is compiled in (-tags onnx)
// and its library is found (see FindONNXRuntime); else XLA on CPU ("xla:cpu")
// when it is compiled in and a PJRT CPU plugin is installed; else Default.
const Fastest = "fastest"

// ONNXRuntimeVersion is the ONNX Runtime release scripts/install-onnxruntime.sh
// installs (compute-onnx v0.1.5 speaks the ORT C API versions 17–26, ORT ≥ 1.17).
const ONNXRuntimeVersion = "1.30.0"

// ONNXLibraryEnvVar is the environment variable naming the ONNX Runtime shared
// library file (read by compute-onnx itself as well).
const ONNXLibraryEnvVar = "ONNXRUNTIME_SHARED_LIBRARY_PATH"

// ONNXThreadsEnvVar is the environment variable from which ONNX Runtime (1.30)
// takes the intra-op thread count of each session whose options leave it unset,
// as compute-onnx v0.1.5's do (it has no option for it). New sets it for
// an ONNX Runtime CPU backend when it is unset (ONNXThreads); "0" asks for ONNX
// Runtime's own default.
const ONNXThreadsEnvVar = "ORT_INTRA_OP_NUM_THREADS"

// ONNXThreads returns the intra-op thread count ONNX Runtime's CPU sessions
// get in this process: the value of $ORT_INTRA_OP_NUM_THREADS (0 meaning ORT's
// own default), and when it is unset the number of CPUs the process may run on
// (runtime.NumCPU: its CPU affinity, hence taskset, a cpuset cgroup, a Slurm
// task's binding). ORT's own default ignores the affinity: one thread per
// physical core of the machine, each session's pool pinned to cores and
// spinning for milliseconds after each use, so a process confined to one core
// ran two threads there, one of them mostly spinning (perf: ≈46% of the core
// in ORT's spin loop), and trained 1.8–1.9× slower than with one thread
// (environment.md, "Threads"). A value that is not a whole number ≥ 0 is an
// error naming the variable.
func ONNXThreads() (int, error) {
	v, set := os.LookupEnv(ONNXThreadsEnvVar)
	if !set || strings.TrimSpace(v) == "" {
		return runtime.NumCPU(), nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s=%q: want a whole number of threads ≥ 0 (0: ONNX Runtime's default)", ONNXThreadsEnvVar, v)
	}
	return n, nil
}

// setONNXThreads makes $ORT_INTRA_OP_NUM_THREADS hold ONNXThreads() before
// ONNX Runtime creates its first session. The environment is the only channel
// compute-onnx leaves to ORT's thread options, hence a process-wide setting; a
// value the user set is kept.
func setONNXThreads() error {
	n, err := ONNXThreads()
	if err != nil {
		return err
	}
	if v, set := os.LookupEnv(ONNXThreadsEnvVar); set && strings.TrimSpace(v) != "" {
		return nil
	}
	if err := os.Setenv(ONNXThreadsEnvVar, strconv.Itoa(n)); err != nil {
		return fmt.Errorf("setting %s: %w", ONNXThreadsEnvVar, err)
	}
	return nil
}

// ONNXOnCPU reports whether config names ONNX Runtime with its CPU execution
// provider ("onnx", "onnx:cpu", "onnx:/path/libonnxruntime.so", ...), not CUDA
// or another accelerator.
func ONNXOnCPU(config string) bool {
	name, opts, _ := strings.Cut(strings.TrimSpace(config), ":")
	if !IsONNXName(name) {
		return false
	}
	for o := range strings.SplitSeq(strings.ToLower(opts), ",") {
		switch strings.TrimSpace(o) {
		case "cuda", "gpu", "rocm", "migraphx":
			return false
		}
	}
	return true
}

// Description is b's Description with, for ONNX Runtime on CPU, the
// intra-op thread count its sessions get (ONNXThreads): what a log or a timing
// table should say about the backend.
func Description(b compute.Backend) string {
	d := b.Description()
	if !strings.Contains(d, "ONNX Runtime") || !strings.Contains(d, "(CPU)") {
		return d
	}
	switch n, err := ONNXThreads(); {
	case err != nil:
		return d
	case n == 0:
		return d + ", ONNX Runtime's default intra-op threads ($" + ONNXThreadsEnvVar + "=0)"
	case n == 1:
		return d + ", 1 intra-op thread ($" + ONNXThreadsEnvVar + ")"
	default:
		return fmt.Sprintf("%s, %d intra-op threads ($%s)", d, n, ONNXThreadsEnvVar)
	}
}

// New returns the compute backend named by config: "go" (or any
// "go:options"), "xla:cpu", "xla:cuda", "onnx:cpu" / "onnx:cuda" (built with
// -tags onnx), or Fastest ("fastest"). An empty config means
// $GOMLX_BACKEND, and when that is unset too, Default. A plain "go" gets
// the deadlock-free setting as well. An ONNX Runtime CPU backend runs its
// sessions with ONNXThreads() intra-op threads: as many as the CPUs the
// process may use, unless $ORT_INTRA_OP_NUM_THREADS says otherwise. When an ONNX Runtime backend is asked for
// without a library path ($ONNXRUNTIME_SHARED_LIBRARY_PATH unset), the library
// installed by scripts/install-onnxruntime.sh is used when present. A backend
// that cannot start (e.g. XLA with no PJRT plugin, ONNX Runtime not compiled in
// or without its library) is an error naming it, the backends compiled in, and
// what to do. A missing PJRT plugin is downloaded only when $SOFTSHAPE_XLA_INSTALL
// is 1 (ensureXLAPlugin).
func New(config string) (compute.Backend, error) {
	if config == "" {
		config = os.Getenv(compute.ConfigEnvVar)
	}
	if strings.EqualFold(strings.TrimSpace(config), Fastest) {
		return newFastest()
	}
	return startBackend(config, resolveConfig(config))
}

// resolveConfig fills in the defaults: "" and "go" become Default; an
// ONNX Runtime config without a library gets the one FindONNXRuntime finds.
func resolveConfig(config string) string {
	config = strings.TrimSpace(config)
	if config == "" || config == "go" {
		return Default
	}
	name, opts, _ := strings.Cut(config, ":")
	if IsONNXName(name) && os.Getenv(ONNXLibraryEnvVar) == "" && !strings.Contains(opts, "/") {
		if lib := FindONNXRuntime(); lib != "" {
			if opts == "" {
				return name + ":" + lib
			}
			return name + ":" + opts + "," + lib
		}
	}
	return config
}

// IsONNXName reports whether name, a backend config's part before the first
// colon, names ONNX Runtime ("onnx", "onnxruntime", any case).
func IsONNXName(name string) bool {
	name = strings.ToLower(strings.TrimSpace(name))
	return name == "onnx" || name == "onnxruntime"
}

// startBackend starts config (asked is what the caller named, for messages),
// turning errors and panics into an error that says what to do.
func startBackend(asked, config string) (backend compute.Backend, err error) {
	if strings.TrimSpace(asked) == "" {
		asked = config
	}
	name, _, _ := strings.Cut(config, ":")
	compiled := compute.List()
	sort.Strings(compiled)
	if IsONNXName(name) && !ONNXCompiledIn() {
		msg := fmt.Sprintf("backend %q: ONNX Runtime is not compiled into this binary (compiled in: %s); rebuild with "+
			"`-tags onnx` (cgo needed), e.g. `go build -tags onnx -o bin/softshape ./cmd/softshape` or `go test -tags onnx ...`", asked, strings.Join(compiled, ", "))
		if lib := FindONNXRuntime(); lib != "" {
			msg += "; the ONNX Runtime library is already installed at " + lib
		} else {
			msg += ", and install the library with scripts/install-onnxruntime.sh"
		}
		return nil, fmt.Errorf("%s", msg)
	}
	hint := ""
	switch {
	case IsONNXName(name):
		hint = fmt.Sprintf(" (install ONNX Runtime with scripts/install-onnxruntime.sh and export the %s line it prints", ONNXLibraryEnvVar)
		if _, set := os.LookupEnv("GOMLX_NO_AUTO_INSTALL"); !set {
			hint += "; set GOMLX_NO_AUTO_INSTALL=1 to stop compute-onnx from trying to download one"
		}
		hint += ")"
	case name == "xla":
		hint = " (the XLA backend needs a PJRT plugin: set PJRT_PLUGIN_LIBRARY_PATH, or set " + XLAInstallEnv + "=1 to download it; see environment.md)"
	}
	if ONNXOnCPU(config) {
		if err := setONNXThreads(); err != nil {
			return nil, fmt.Errorf("starting GoMLX backend %q: %w", asked, err)
		}
	}
	var locks map[string]bool // the auto-installer's lock files before the start
	if name == "xla" {
		locks = installLocks(xlaInstallDir())
	}
	if name == "xla" && slices.Contains(compiled, "xla") {
		if err := ensureXLAPlugin(asked, config); err != nil {
			return nil, installLocksNote(err, xlaInstallDir(), locks)
		}
	}
	defer func() {
		if r := recover(); r != nil {
			backend, err = nil, fmt.Errorf("starting GoMLX backend %q (compiled in: %s): %v%s", asked, strings.Join(compiled, ", "), r, hint)
		}
		if err != nil && locks != nil {
			err = installLocksNote(err, xlaInstallDir(), locks)
		}
	}()
	backend, err = compute.NewWithConfig(config)
	if err != nil {
		return nil, fmt.Errorf("starting GoMLX backend %q (compiled in: %s): %w%s", asked, strings.Join(compiled, ", "), err, hint)
	}
	return backend, nil
}

// newFastest starts the first usable backend of FastestCandidates, falling back
// to the next one when one fails to start.
func newFastest() (compute.Backend, error) {
	candidates, note := FastestCandidates()
	var errs []string
	for _, c := range candidates {
		b, err := startBackend(c, c)
		if err == nil {
			if note != "" { // one line on stderr: stdout stays the command's output
				fmt.Fprintf(os.Stderr, "softshape: backend %q chosen as the fastest; %s\n", c, note)
			}
			return b, nil
		}
		errs = append(errs, err.Error())
	}
	return nil, fmt.Errorf("no backend could start for %q: %s", Fastest, strings.Join(errs, "; "))
}

// FastestCandidates lists, best first, the backend configs "fastest" tries here
// (always ending with Default), and a note on how to get a faster one
// ("" when nothing faster is within reach).
func FastestCandidates() ([]string, string) {
	return fastestCandidates(ONNXCompiledIn(), FindONNXRuntime(), slices.Contains(compute.List(), "xla"), xlaHasPlugin("cpu"))
}

func fastestCandidates(onnxIn bool, onnxLib string, xlaIn, xlaPlugin bool) ([]string, string) {
	var c []string
	if onnxIn && onnxLib != "" {
		c = append(c, "onnx:cpu,"+onnxLib)
	}
	if xlaIn && xlaPlugin {
		c = append(c, "xla:cpu")
	}
	c = append(c, Default)
	note := ""
	switch {
	case onnxIn && onnxLib != "":
	case !onnxIn && onnxLib != "":
		note = "ONNX Runtime is installed (" + onnxLib + ") but this binary was built without it: rebuild with `-tags onnx` " +
			"and cgo (e.g. `CGO_ENABLED=1 go build -tags onnx -o bin/softshape ./cmd/softshape`, which needs a C compiler) for ≈5× faster CPU training"
	case onnxIn:
		note = "ONNX Runtime is compiled in but its library was not found: run scripts/install-onnxruntime.sh " +
			"(or set " + ONNXLibraryEnvVar + ") for ≈5× faster CPU training"
	case !(xlaIn && xlaPlugin):
		note = "for ≈5× faster CPU training install ONNX Runtime (scripts/install-onnxruntime.sh) and build with `-tags onnx`"
	}
	return c, note
}

// ONNXCompiledIn reports whether the ONNX Runtime backend is compiled in
// (onnx.go, build tag onnx).
func ONNXCompiledIn() bool { return slices.Contains(compute.List(), "onnx") }

// FindONNXRuntime returns the ONNX Runtime shared library to use, or "" when
// none is found: $ONNXRUNTIME_SHARED_LIBRARY_PATH when it names an existing
// file; else the folder of scripts/install-onnxruntime.sh ($SOFTSHAPE_ORT_DIR, or
// $XDG_CACHE_HOME/softshape/onnxruntime/<version>, ~/.cache by default; the
// pinned version first, then any other); else compute-onnx's own install folder
// (~/.local/lib/onnxruntime). It never downloads anything.
func FindONNXRuntime() string {
	if p := os.Getenv(ONNXLibraryEnvVar); p != "" {
		if isFile(p) {
			return p
		}
		return ""
	}
	var candidates []string
	if d := os.Getenv("SOFTSHAPE_ORT_DIR"); d != "" {
		candidates = append(candidates, filepath.Join(d, "libonnxruntime.so"))
	}
	if cache, err := os.UserCacheDir(); err == nil {
		base := filepath.Join(cache, "softshape", "onnxruntime")
		candidates = append(candidates, filepath.Join(base, ONNXRuntimeVersion, "libonnxruntime.so"))
		others, _ := filepath.Glob(filepath.Join(base, "*", "libonnxruntime.so"))
		sort.Sort(sort.Reverse(sort.StringSlice(others)))
		candidates = append(candidates, others...)
	}
	if home, err := os.UserHomeDir(); err == nil {
		candidates = append(candidates, filepath.Join(home, ".local", "lib", "onnxruntime", "libonnxruntime.so"))
	}
	for _, c := range candidates {
		if isFile(c) {
			return c
		}
	}
	return ""
}

// XLAInstallEnv, set to 1, lets softshape download a missing PJRT plugin
// with go-xla's installer (into ~/.local/lib/go-xla) when an XLA backend is
// asked for; unset, a missing plugin is an error and nothing is downloaded
// or created.
const XLAInstallEnv = "SOFTSHAPE_XLA_INSTALL"

// xlaPlatform is the PJRT plugin an XLA config names: "cuda" for
// "xla:cuda,tf32=false", "" for "xla" (any plugin).
func xlaPlatform(config string) string {
	_, opts, _ := strings.Cut(config, ":")
	platform, _, _ := strings.Cut(opts, ",")
	return strings.TrimSpace(platform)
}

// ensureXLAPlugin checks, before go-xla starts, that the PJRT plugin the
// XLA config names is installed. A missing one is installed when
// $SOFTSHAPE_XLA_INSTALL is 1, and is otherwise a one-line error (asked is
// the config as the user gave it) saying what is missing and how to
// install it, with nothing downloaded or created. A plugin given by its
// path is left to go-xla.
func ensureXLAPlugin(asked, config string) error {
	platform := xlaPlatform(config)
	if filepath.IsAbs(platform) || xlaHasPlugin(platform) {
		return nil
	}
	what := "a PJRT plugin"
	if platform != "" {
		what = fmt.Sprintf("the PJRT %q plugin (pjrt_c_api_%s_plugin.so)", platform, platform)
	}
	if os.Getenv(XLAInstallEnv) != "1" {
		return fmt.Errorf("backend %q: %s is not installed (searched $PJRT_PLUGIN_LIBRARY_PATH, ~/.local/lib/go-xla, /usr/local/lib/go-xla and the system library paths): "+
			"point PJRT_PLUGIN_LIBRARY_PATH at a folder holding it, or set %s=1 to download it into ~/.local/lib/go-xla (needs network; environment.md, docs/gpu.md)",
			asked, what, XLAInstallEnv)
	}
	if err := installXLAPlugin(platform); err != nil {
		return fmt.Errorf("backend %q: %s is not installed, and installing it (%s=1) failed: %v", asked, what, XLAInstallEnv, err)
	}
	return nil
}

// xlaInstallDir is the folder where go-xla's auto-installer puts the PJRT
// plugins it downloads, beside a lock file per plugin
// (~/.local/lib/go-xla/pjrt_c_api_cpu_<version>_plugin.so.lock); "" without a
// home folder.
func xlaInstallDir() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".local", "lib", "go-xla")
}

// installLocks returns the lock files (*.lock) in dir.
func installLocks(dir string) map[string]bool {
	locks := map[string]bool{}
	if dir == "" {
		return locks
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "*.lock"))
	for _, m := range matches {
		locks[m] = true
	}
	return locks
}

// installLocksNote completes the error of a backend that failed to start
// after go-xla's auto-installer may have run (offline, say): the installer
// takes an advisory lock on a file beside the plugin and leaves the file
// behind. A lock file in dir that was not in before was made by this start,
// whose installer has let go of it: it is removed, and the note says so.
// One that was there before is named, with when it is safe to delete.
func installLocksNote(err error, dir string, before map[string]bool) error {
	var removed, stale []string
	for lock := range installLocks(dir) {
		if before[lock] {
			stale = append(stale, lock)
		} else if rerr := os.Remove(lock); rerr == nil {
			removed = append(removed, lock)
		} else {
			stale = append(stale, lock)
		}
	}
	sort.Strings(removed)
	sort.Strings(stale)
	if len(removed) > 0 {
		err = fmt.Errorf("%w; removed the lock file the auto-installer left (%s)", err, strings.Join(removed, ", "))
	}
	if len(stale) > 0 {
		err = fmt.Errorf("%w; the auto-installer's lock file %s was left by an earlier install or try: it is safe to delete when no other softshape or GoMLX process is installing a plugin",
			err, strings.Join(stale, ", "))
	}
	return err
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
