package backends

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gomlx/compute"

	"github.com/softshape-go/softshape/internal/testfs"
)

// TestFastestCandidates: "fastest" prefers ONNX Runtime (compiled in and its
// library found), then XLA on CPU (compiled in and a PJRT CPU plugin installed),
// and always ends with the pure-Go default; the note says how to get faster.
func TestFastestCandidates(t *testing.T) {
	const lib = "/opt/ort/libonnxruntime.so"
	for _, tc := range []struct {
		name              string
		onnxIn            bool
		onnxLib           string
		xlaIn, xlaPlugin  bool
		want              []string
		noteHas, noteLack string
	}{
		{"onnx", true, lib, true, true, []string{"onnx:cpu," + lib, "xla:cpu", Default}, "", ""},
		{"onnx-no-xla", true, lib, false, false, []string{"onnx:cpu," + lib, Default}, "", ""},
		{"xla", false, "", true, true, []string{"xla:cpu", Default}, "", ""},
		{"xla-no-plugin", false, "", true, false, []string{Default}, "install-onnxruntime.sh", ""},
		{"onnx-not-compiled-lib-present", false, lib, true, false, []string{Default}, "-tags onnx", ""},
		{"onnx-compiled-no-lib", true, "", false, false, []string{Default}, "install-onnxruntime.sh", "-tags onnx"},
		{"go-only", false, "", false, false, []string{Default}, "-tags onnx", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, note := fastestCandidates(tc.onnxIn, tc.onnxLib, tc.xlaIn, tc.xlaPlugin)
			if !slices.Equal(got, tc.want) {
				t.Errorf("candidates %q, want %q", got, tc.want)
			}
			if tc.noteHas == "" && note != "" {
				t.Errorf("note %q, want none", note)
			}
			if tc.noteHas != "" && !strings.Contains(note, tc.noteHas) {
				t.Errorf("note %q lacks %q", note, tc.noteHas)
			}
			if tc.noteLack != "" && strings.Contains(note, tc.noteLack) {
				t.Errorf("note %q should not mention %q", note, tc.noteLack)
			}
		})
	}
}

// fakeLib writes a file standing for the ONNX Runtime library.
func fakeLib(t *testing.T, dir string) string {
	t.Helper()
	return testfs.Write(t, dir, "libonnxruntime.so", "\x7fELF")
}

// TestFindONNXRuntime: the environment variable wins (and a missing file there
// means none), then the install script's cache folder, then compute-onnx's folder.
func TestFindONNXRuntime(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("HOME", filepath.Join(tmp, "home"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(tmp, "cache"))
	t.Setenv("SOFTSHAPE_ORT_DIR", "")
	t.Setenv(ONNXLibraryEnvVar, "")
	if got := FindONNXRuntime(); got != "" {
		t.Fatalf("nothing installed: found %q", got)
	}
	local := fakeLib(t, filepath.Join(tmp, "home", ".local", "lib", "onnxruntime"))
	if got := FindONNXRuntime(); got != local {
		t.Errorf("compute-onnx folder: got %q, want %q", got, local)
	}
	cached := fakeLib(t, filepath.Join(tmp, "cache", "softshape", "onnxruntime", ONNXRuntimeVersion))
	if got := FindONNXRuntime(); got != cached {
		t.Errorf("script folder: got %q, want %q", got, cached)
	}
	custom := fakeLib(t, filepath.Join(tmp, "custom"))
	t.Setenv("SOFTSHAPE_ORT_DIR", filepath.Join(tmp, "custom"))
	if got := FindONNXRuntime(); got != custom {
		t.Errorf("SOFTSHAPE_ORT_DIR: got %q, want %q", got, custom)
	}
	explicit := fakeLib(t, filepath.Join(tmp, "explicit"))
	t.Setenv(ONNXLibraryEnvVar, explicit)
	if got := FindONNXRuntime(); got != explicit {
		t.Errorf("%s: got %q, want %q", ONNXLibraryEnvVar, got, explicit)
	}
	t.Setenv(ONNXLibraryEnvVar, filepath.Join(tmp, "missing.so"))
	if got := FindONNXRuntime(); got != "" {
		t.Errorf("%s names a missing file: got %q, want none", ONNXLibraryEnvVar, got)
	}

	// resolveConfig hands the found library to compute-onnx only when the
	// variable is unset and the config names no path.
	t.Setenv(ONNXLibraryEnvVar, "")
	for config, want := range map[string]string{
		"":                   Default,
		"go":                 Default,
		"go:ops_sequential":  "go:ops_sequential",
		"onnx:cpu":           "onnx:cpu," + custom,
		"onnx":               "onnx:" + custom,
		"onnx:cpu,/x/lib.so": "onnx:cpu,/x/lib.so",
		"xla:cpu":            "xla:cpu",
		"onnxruntime:cuda":   "onnxruntime:cuda," + custom,
	} {
		if got := resolveConfig(config); got != want {
			t.Errorf("resolveConfig(%q) = %q, want %q", config, got, want)
		}
	}
	t.Setenv(ONNXLibraryEnvVar, explicit)
	if got := resolveConfig("onnx:cpu"); got != "onnx:cpu" {
		t.Errorf("with %s set, resolveConfig(onnx:cpu) = %q, want it unchanged", ONNXLibraryEnvVar, got)
	}
}

// TestNewFastest: "fastest" always starts something (at worst the pure-Go
// backend), and picks ONNX Runtime when it is compiled in and installed.
func TestNewFastest(t *testing.T) {
	b, err := New("Fastest")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Finalize()
	cands, note := FastestCandidates()
	t.Logf("fastest: %s (candidates %q; note %q)", b.Description(), cands, note)
	want := "go"
	if strings.HasPrefix(cands[0], "onnx") {
		want = "onnx"
	} else if strings.HasPrefix(cands[0], "xla") {
		want = "xla"
	}
	if got := b.Name(); !strings.Contains(strings.ToLower(got), want) && !(want == "onnx" && strings.Contains(got, "onnxruntime")) {
		t.Errorf("fastest started %q, want the %s backend", got, want)
	}
}

// TestONNXNotCompiledInSaysHow: asking for ONNX Runtime from a binary built
// without -tags onnx is an error telling how to build with it.
func TestONNXNotCompiledInSaysHow(t *testing.T) {
	if ONNXCompiledIn() {
		t.Skip("built with -tags onnx")
	}
	_, err := New("onnx:cpu")
	if err == nil || !strings.Contains(err.Error(), "-tags onnx") {
		t.Fatalf("New(onnx:cpu) without the onnx tag: %v, want an error naming -tags onnx", err)
	}
	t.Log(err)
}

// unsetEnv removes name from the environment for the rest of the test (what
// it held comes back afterwards, as with t.Setenv).
func unsetEnv(t *testing.T, name string) {
	t.Helper()
	t.Setenv(name, "") // registers the restore
	if err := os.Unsetenv(name); err != nil {
		t.Fatal(err)
	}
}

// TestONNXThreads: ONNX Runtime's CPU thread count defaults to the CPUs the
// process may use when $ORT_INTRA_OP_NUM_THREADS is unset, keeps what the
// user set (0 = ORT's own default), and rejects a value that is not a count,
// naming the variable; setONNXThreads writes the default only where nothing
// was set.
func TestONNXThreads(t *testing.T) {
	unsetEnv(t, ONNXThreadsEnvVar)
	cpus := runtime.NumCPU()
	if n, err := ONNXThreads(); err != nil || n != cpus {
		t.Fatalf("unset: ONNXThreads() = %d, %v; want runtime.NumCPU() = %d", n, err, cpus)
	}
	if err := setONNXThreads(); err != nil {
		t.Fatal(err)
	}
	if got := os.Getenv(ONNXThreadsEnvVar); got != strconv.Itoa(cpus) {
		t.Fatalf("after setONNXThreads with nothing set, %s=%q, want %d", ONNXThreadsEnvVar, got, cpus)
	}
	for _, tc := range []struct {
		value string
		want  int
	}{{"4", 4}, {" 2 ", 2}, {"0", 0}} {
		t.Setenv(ONNXThreadsEnvVar, tc.value)
		if err := setONNXThreads(); err != nil {
			t.Fatalf("%q: %v", tc.value, err)
		}
		if got := os.Getenv(ONNXThreadsEnvVar); got != tc.value {
			t.Errorf("setONNXThreads overwrote the user's %q with %q", tc.value, got)
		}
		if n, err := ONNXThreads(); err != nil || n != tc.want {
			t.Errorf("%q: ONNXThreads() = %d, %v; want %d", tc.value, n, err, tc.want)
		}
	}
	for _, bad := range []string{"two", "-1", "1.5"} {
		t.Setenv(ONNXThreadsEnvVar, bad)
		_, err := ONNXThreads()
		if err == nil || !strings.Contains(err.Error(), ONNXThreadsEnvVar) || !strings.Contains(err.Error(), bad) {
			t.Errorf("%q: error %v, want one naming %s and the value", bad, err, ONNXThreadsEnvVar)
		}
		if err := setONNXThreads(); err == nil {
			t.Errorf("%q: setONNXThreads accepted it", bad)
		}
	}
}

// TestONNXOnCPU: the thread setting applies to ONNX Runtime's CPU provider
// only, whatever form the config takes.
func TestONNXOnCPU(t *testing.T) {
	for config, want := range map[string]bool{
		"onnx": true, "onnx:cpu": true, "ONNX:cpu,log=2": true, "onnx:/opt/cuda/lib/libonnxruntime.so": true,
		"onnxruntime:cpu,/x/libonnxruntime.so": true, "onnx:cuda": false, "onnx:cpu,cuda": false, "onnx:migraphx": false,
		"go": false, "xla:cpu": false, "": false,
	} {
		if got := ONNXOnCPU(config); got != want {
			t.Errorf("ONNXOnCPU(%q) = %v, want %v", config, got, want)
		}
	}
}

// TestInstallLocksNote: when an XLA backend fails to start, the lock file
// that go-xla's auto-installer made and left during this start is removed
// and the error says so; one that was there before is left, named, with
// when it is safe to delete.
func TestInstallLocksNote(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "pjrt_c_api_cpu_v1_plugin.so.lock")
	if err := os.WriteFile(old, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	before := installLocks(dir)
	made := filepath.Join(dir, "pjrt_c_api_cpu_v2_plugin.so.lock")
	if err := os.WriteFile(made, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cause := errors.New("failed to auto-install \"cpu\": no such host")
	err := installLocksNote(cause, dir, before)
	if !errors.Is(err, cause) {
		t.Errorf("the cause is lost: %v", err)
	}
	for _, want := range []string{"removed the lock file the auto-installer left (" + made + ")",
		"lock file " + old + " was left by an earlier install or try: it is safe to delete when no other softshape or GoMLX process is installing"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if _, serr := os.Stat(made); !os.IsNotExist(serr) {
		t.Errorf("%s not removed: %v", made, serr)
	}
	if _, serr := os.Stat(old); serr != nil {
		t.Errorf("%s, there before, is gone: %v", old, serr)
	}
	if err := installLocksNote(cause, t.TempDir(), map[string]bool{}); err != cause {
		t.Errorf("no lock files: %v, want the cause alone", err)
	}
}

// TestXLAMissingPluginNoDownload: an XLA backend whose PJRT plugin is not
// installed is a one-line error saying what is missing and how to install
// it; nothing is downloaded and no folder appears in the user's home.
func TestXLAMissingPluginNoDownload(t *testing.T) {
	if !slices.Contains(compute.List(), "xla") {
		t.Skip("XLA is not compiled in (CGO_ENABLED=0 or -tags noxla)")
	}
	if xlaHasPlugin("cuda") {
		t.Skip("a CUDA PJRT plugin is installed here")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("SOFTSHAPE_XLA_INSTALL", "")
	b, err := New("xla:cuda")
	if err == nil {
		b.Finalize()
		t.Fatal("xla:cuda started without a CUDA plugin")
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") {
		t.Errorf("the error is %d lines, want one:\n%s", strings.Count(msg, "\n")+1, msg)
	}
	for _, want := range []string{`backend "xla:cuda": the PJRT "cuda" plugin (pjrt_c_api_cuda_plugin.so) is not installed`,
		"PJRT_PLUGIN_LIBRARY_PATH", "SOFTSHAPE_XLA_INSTALL=1"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not say %q", msg, want)
		}
	}
	if entries, _ := os.ReadDir(home); len(entries) > 0 {
		t.Errorf("starting xla:cuda created %s in the home folder", filepath.Join(home, entries[0].Name()))
	}
}
