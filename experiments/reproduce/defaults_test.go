package reproduce

import (
	"slices"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/internal/backends"
)

// TestDefaults: a table's notebook starts in quick mode on all folds, seed
// 42, the fastest backend, training what is missing; the single-model
// notebooks on fold 1; an unknown name is an error listing the known ones.
func TestDefaults(t *testing.T) {
	p, err := Defaults("experts_k")
	if err != nil {
		t.Fatal(err)
	}
	if !p.Quick || p.Train || !p.TrainMissing || p.Folds != nil || !slices.Equal(p.Seeds, []int64{42}) || p.BackendName != backends.Fastest || p.Results != "" || p.Datasets != nil {
		t.Errorf("experts_k defaults: %+v", p)
	}
	for _, name := range []string{NotebookQuickstart, NotebookInterpretability} {
		if p, err := Defaults(name); err != nil || !slices.Equal(p.Folds, []int{1}) {
			t.Errorf("%s: folds %v (%v), want [1]", name, p.Folds, err)
		}
	}
	for _, name := range []string{"main", NotebookAppendix, NotebookReproducibility} {
		if p, err := Defaults(name); err != nil || p.Folds != nil {
			t.Errorf("%s: folds %v (%v), want all", name, p.Folds, err)
		}
	}
	if _, err := Defaults("expert_k"); err == nil || !strings.Contains(err.Error(), `"expert_k"`) || !strings.Contains(err.Error(), "experts_k") {
		t.Errorf("unknown name: %v", err)
	}
}

// TestNotebookParams: the cell's changes apply on top of the defaults, and
// the environment on top of both.
func TestNotebookParams(t *testing.T) {
	clearEnvVars(t)
	t.Setenv(EnvSeeds, "7")
	p := NotebookParams("sparse_ratio", func(p *Params) { p.Quick, p.Train, p.Seeds = false, true, []int64{1, 2} })
	if p.Quick || !p.Train || !slices.Equal(p.Seeds, []int64{7}) || p.BackendName != backends.Fastest || p.Results == "" {
		t.Errorf("params: %+v", p)
	}
	if p := NotebookParams("sparse_ratio", nil); !p.Quick {
		t.Errorf("no change: quick %v", p.Quick)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(error).Error(), `"nope"`) {
			t.Errorf("unknown name: recovered %v", r)
		}
	}()
	NotebookParams("nope", nil)
}
