package reproduce

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/data"
)

// TestIsRepo: the repository is recognised by its go.mod's module line
// alone, whatever its go directive, line endings or comments.
func TestIsRepo(t *testing.T) {
	for _, tc := range []struct {
		gomod string
		want  bool
	}{
		{"module github.com/softshape-go/softshape\n\ngo 1.26.5\n", true},
		{"module github.com/softshape-go/softshape\n\ngo 1.99\n\ntoolchain go1.99.1\n", true},
		{"// SoftShape\r\nmodule github.com/softshape-go/softshape // comment\r\ngo 1.30\r\n", true},
		{"module \"github.com/softshape-go/softshape\"", true},
		{"module github.com/softshape-go/softshape/v2\n", false},
		{"module example.com/other\n\nrequire github.com/softshape-go/softshape v0.1.0\n", false},
		{"go 1.26\n", false},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(tc.gomod), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := isRepo(dir); got != tc.want {
			t.Errorf("isRepo(go.mod %q) = %v, want %v", tc.gomod, got, tc.want)
		}
	}
	if isRepo(t.TempDir()) {
		t.Error("isRepo of a folder without go.mod = true")
	}
}

// TestShownPathsAreRepoRelative: the parameter line and the line a model
// cell shows in full mode without Train name the results folder and the
// model's folder relative to the repository when they lie in it (the
// default, results/), never this machine's absolute path, and write no
// "<...>" that Markdown would take for an HTML tag.
func TestShownPathsAreRepoRelative(t *testing.T) {
	root := RepoRoot()
	p := Params{Quick: false, Results: filepath.Join(root, "results"), Folds: []int{1}}
	if s := p.String(); strings.Contains(s, root) || !strings.Contains(s, "| results: results/ in the repository |") {
		t.Errorf("parameter line: %q, want the results folder as \"results/ in the repository\"", s)
	}
	p.Results = ""
	if s := p.String(); strings.Contains(s, root) || strings.Contains(s, "<") || !strings.Contains(s, "else results/ in the repository") {
		t.Errorf("parameter line without a results folder: %q", s)
	}
	p.Results = filepath.Join(root, "results")
	m, err := TrainModel(p, data.CBFName, 1, "", false)
	if err != nil {
		t.Fatal(err)
	}
	if m.NotTrained == "" || strings.Contains(m.NotTrained, root) || !strings.Contains(m.NotTrained, "under `results/models/") {
		t.Errorf("not-trained line: %q, want the model folder under results/models/", m.NotTrained)
	}
	if _, err := m.TestSummary(); err == nil || strings.Contains(err.Error(), root) {
		t.Errorf("TestSummary of an untrained fold: %v, want an error naming no absolute path", err)
	}
}

// TestSettingsOverrideSaidAloud: SOFTSHAPE_SETTINGS merged over a parameter
// cell's settings takes precedence where both give a setting, and the
// parameter line names each setting it changed with both values: here the
// cell's epochs=8 runs 4 epochs, its depth=3 stays, and the environment's
// own warmup_epochs=2 is added, changing nothing of the cell's.
func TestSettingsOverrideSaidAloud(t *testing.T) {
	t.Setenv(EnvSettings, "epochs=4;warmup_epochs=2")
	p, err := ParamsFromEnv(Params{Quick: true, Settings: "epochs=8;depth=3"})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := ModelConfig(p, "")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Epochs != 4 || cfg.Depth != 3 || cfg.WarmUpEpochs != 2 {
		t.Errorf("epochs %d, depth %d, warm-up %d; want 4, 3, 2", cfg.Epochs, cfg.Depth, cfg.WarmUpEpochs)
	}
	if want := []string{"epochs=8 → 4"}; !slices.Equal(p.overridden, want) {
		t.Errorf("overridden %v, want %v", p.overridden, want)
	}
	if s := p.String(); !strings.Contains(s, "epochs=8 → 4") {
		t.Errorf("the parameter line does not name the overridden setting: %q", s)
	}
	t.Setenv(EnvSettings, "epochs=8")
	if p, err := ParamsFromEnv(Params{Quick: true, Settings: "epochs=8"}); err != nil || len(p.overridden) != 0 {
		t.Errorf("the same value twice: overridden %v (%v), want none", p.overridden, err)
	}
}

// TestTrainingTakesTheWholeExecution: every setting of how the notebook's
// runs execute reaches the training (the speed forms, runs per graph and
// run axis included, not only the backend, folders and workers).
func TestTrainingTakesTheWholeExecution(t *testing.T) {
	p := DefaultParams()
	p.BackendName, p.DataRoot, p.Offline, p.Workers = "go", "/data/ucr", true, 3
	p.MaxRuns, p.RunAxis, p.Fast = 4, "off", true
	if got := p.training(nil).Execution; got != p.Execution {
		t.Errorf("training's Execution %+v, want the parameters' %+v", got, p.Execution)
	}
}
