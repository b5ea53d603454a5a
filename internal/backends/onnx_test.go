//go:build onnx && cgo

package backends

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestONNXNewSetsThreads: starting the ONNX Runtime CPU backend with
// $ORT_INTRA_OP_NUM_THREADS unset sets it to the CPUs the process may use
// before any session exists, keeps a value the user gave, and refuses a bad one with an
// error naming the variable.
func TestONNXNewSetsThreads(t *testing.T) {
	if FindONNXRuntime() == "" {
		t.Fatalf("ONNX Runtime library not found: run scripts/install-onnxruntime.sh and export %s", ONNXLibraryEnvVar)
	}
	unsetEnv(t, ONNXThreadsEnvVar)
	b, err := New("onnx:cpu")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := os.Getenv(ONNXThreadsEnvVar), strconv.Itoa(runtime.NumCPU()); got != want {
		t.Fatalf("%s=%q after New(\"onnx:cpu\"), want %q", ONNXThreadsEnvVar, got, want)
	}
	if d, want := Description(b), strconv.Itoa(runtime.NumCPU())+" intra-op thread"; !strings.Contains(d, want) {
		t.Errorf("Description = %q, want it to say %q", d, want)
	}
	g, err := New(Default)
	if err != nil {
		t.Fatal(err)
	}
	if Description(g) != g.Description() {
		t.Errorf("Description(%q) = %q, want the description unchanged", g.Description(), Description(g))
	}
	t.Setenv(ONNXThreadsEnvVar, "2")
	if _, err := New("onnx:cpu"); err != nil {
		t.Fatal(err)
	}
	if got := os.Getenv(ONNXThreadsEnvVar); got != "2" {
		t.Fatalf("New overwrote the user's %s=2 with %q", ONNXThreadsEnvVar, got)
	}
	t.Setenv(ONNXThreadsEnvVar, "many")
	if _, err := New("onnx:cpu"); err == nil || !strings.Contains(err.Error(), ONNXThreadsEnvVar) {
		t.Fatalf("New with %s=many: error %v, want one naming the variable", ONNXThreadsEnvVar, err)
	}
}
