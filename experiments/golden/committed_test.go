package golden

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/internal/backends"
)

// checkedCases are the cases of the committed record that
// TestMatchesCommittedRecord trains again: one dataset, every path, on the
// backends compiled in.
var checkedCases = []string{
	"GunPoint/fresh/%s/single-R1", "GunPoint/carry/%s/single-R1", "GunPoint/fresh/%s/copies-R2", "GunPoint/fresh/%s/axis-R2",
}

// committedRecord is the record in testdata made with this build's
// GOEXPERIMENT=simd setting.
func committedRecord() string {
	if simdBuild {
		return filepath.Join("testdata", "golden-simd.json")
	}
	return filepath.Join("testdata", "golden.json")
}

// TestMatchesCommittedRecord trains the GunPoint cases of the committed
// record again and wants them bit for bit, where this build and machine are
// the record's environment (Environment.Mismatches): the same Go version,
// GOEXPERIMENT=simd setting, CPU vector features, GoMLX modules and backend
// versions. Elsewhere it skips, saying what differs. ONNX Runtime's cases
// run in a build with -tags onnx where its library is found.
func TestMatchesCommittedRecord(t *testing.T) {
	want, err := Read(committedRecord())
	if err != nil {
		t.Fatal(err)
	}
	configs := []string{BackendGo}
	if backends.ONNXCompiledIn() && backends.FindONNXRuntime() != "" {
		t.Setenv(backends.ONNXThreadsEnvVar, "1")
		configs = append(configs, BackendONNX)
	}
	env := CurrentEnvironment()
	if len(env.Modules) == 0 { // a test binary holds no module versions
		env.Modules = goModVersions(t, filepath.Join("..", "..", "go.mod"))
	}
	for _, name := range configs {
		b, err := backends.New(name)
		if err != nil {
			t.Fatal(err)
		}
		env.Backends[name] = backends.Description(b)
		b.Finalize()
	}
	if m := env.Mismatches(want.Environment, configs); len(m) > 0 {
		t.Skipf("this is not the environment of %s, so its bits need not be reproduced here: %s", committedRecord(), strings.Join(m, "; "))
	}
	var names []string
	for _, b := range configs {
		for _, n := range checkedCases {
			names = append(names, strings.ReplaceAll(n, "%s", b))
		}
	}
	var cases []Case
	for _, c := range want.CaseList() {
		if slices.Contains(names, c.Name()) {
			cases = append(cases, c)
		}
	}
	if len(cases) != len(names) {
		t.Fatalf("%s has %d of the cases %v", committedRecord(), len(cases), names)
	}
	got, err := Record(cases, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range Compare(want.Keep(cases), got) {
		t.Errorf("%s, recorded at %s: %s", committedRecord(), want.Environment.Commit, d)
	}
}

// TestCommittedRecordsComplete: the committed records hold the standard
// cases on both backends, recorded from a clean checkout, with and without
// GOEXPERIMENT=simd as their names say.
func TestCommittedRecordsComplete(t *testing.T) {
	for file, simd := range map[string]bool{"golden.json": false, "golden-simd.json": true} {
		f, err := Read(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		if f.Environment.SIMD != simd || f.Environment.Dirty || f.Environment.Commit == "unknown" {
			t.Errorf("%s: simd %t, dirty %t, commit %s; want simd %t from a clean checkout", file, f.Environment.SIMD, f.Environment.Dirty, f.Environment.Commit, simd)
		}
		std := Cases([]string{BackendGo, BackendONNX}, Protocol)
		have := f.CaseList()
		if len(have) != len(std) {
			t.Errorf("%s: %d cases, want the %d standard ones", file, len(have), len(std))
		}
		for _, c := range std {
			i := slices.IndexFunc(have, func(h Case) bool { return h.Name() == c.Name() })
			if i < 0 || !reflect.DeepEqual(have[i], c) {
				t.Errorf("%s: standard case %+v missing or defined otherwise", file, c)
			}
		}
	}
}

// goModVersions reads the versions of modulePaths that the module file at
// path requires (its require lines list every module of the build).
func goModVersions(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "require "))
		if len(f) >= 2 && slices.Contains(modulePaths, f[0]) {
			out[f[0]] = f[1]
		}
	}
	return out
}
