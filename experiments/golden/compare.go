package golden

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Difference is one value that differs between two records, or a case, run
// or epoch that only one of them has.
type Difference struct {
	// Case is the case's name; Seed and Fold (1-based) name the run, Epoch
	// (0-based) the epoch, each -1 where the difference is not in one.
	Case        string
	Seed        int64
	Fold, Epoch int
	// Field is the JSON name of the value; A and B its values in the two
	// records ("(absent)" for what a record lacks).
	Field string
	A, B  string
}

// String is one line naming where the difference is and both values.
func (d Difference) String() string {
	s := d.Case
	if d.Fold >= 0 {
		s += fmt.Sprintf(" seed %d fold %d", d.Seed, d.Fold)
	}
	if d.Epoch >= 0 {
		s += fmt.Sprintf(" epoch %d", d.Epoch)
	}
	return fmt.Sprintf("%s: %s: %s ≠ %s", s, d.Field, d.A, d.B)
}

const absent = "(absent)"

// Compare lists every difference between the results of a and b, in a's
// case order then b's extra cases: cases are matched by name, runs by
// position (their seed and fold are compared), epochs by position. Floats
// are compared by their bits. Environments are not compared (see
// Environment.Mismatches).
func Compare(a, b *File) []Difference {
	var out []Difference
	bByName := map[string]*CaseResult{}
	for i := range b.Cases {
		bByName[b.Cases[i].Name] = &b.Cases[i]
	}
	seen := map[string]bool{}
	for i := range a.Cases {
		ca := &a.Cases[i]
		seen[ca.Name] = true
		cb, ok := bByName[ca.Name]
		if !ok {
			out = append(out, Difference{Case: ca.Name, Fold: -1, Epoch: -1, Field: "case", A: "present", B: absent})
			continue
		}
		out = append(out, compareCase(ca, cb)...)
	}
	for _, cb := range b.Cases {
		if !seen[cb.Name] {
			out = append(out, Difference{Case: cb.Name, Fold: -1, Epoch: -1, Field: "case", A: absent, B: "present"})
		}
	}
	return out
}

// compareCase compares two results of the case of one name.
func compareCase(a, b *CaseResult) []Difference {
	var out []Difference
	def := func(field string, x, y any) {
		if fmt.Sprint(x) != fmt.Sprint(y) {
			out = append(out, Difference{Case: a.Name, Fold: -1, Epoch: -1, Field: field, A: fmt.Sprint(x), B: fmt.Sprint(y)})
		}
	}
	def("settings", a.Settings, b.Settings)
	def("seeds", a.Seeds, b.Seeds)
	def("folds", a.Folds, b.Folds)
	for i := range max(len(a.Runs), len(b.Runs)) {
		switch {
		case i >= len(b.Runs):
			ra := a.Runs[i]
			out = append(out, Difference{Case: a.Name, Seed: ra.Seed, Fold: ra.Fold, Epoch: -1, Field: "run", A: "present", B: absent})
		case i >= len(a.Runs):
			rb := b.Runs[i]
			out = append(out, Difference{Case: a.Name, Seed: rb.Seed, Fold: rb.Fold, Epoch: -1, Field: "run", A: absent, B: "present"})
		default:
			out = append(out, compareRun(a.Name, &a.Runs[i], &b.Runs[i])...)
		}
	}
	return out
}

// compareRun compares two results of one run, field by field and epoch by
// epoch.
func compareRun(name string, a, b *RunResult) []Difference {
	var out []Difference
	at := func(epoch int, field string, x, y any) {
		if !equal(x, y) {
			out = append(out, Difference{Case: name, Seed: a.Seed, Fold: a.Fold, Epoch: epoch, Field: field, A: fmt.Sprint(x), B: fmt.Sprint(y)})
		}
	}
	at(-1, "seed", a.Seed, b.Seed)
	at(-1, "fold", a.Fold, b.Fold)
	at(-1, "batch_size", a.BatchSize, b.BatchSize)
	at(-1, "params", a.Params, b.Params)
	at(-1, "epochs_run", a.EpochsRun, b.EpochsRun)
	at(-1, "selected_epoch", a.SelectedEpoch, b.SelectedEpoch)
	at(-1, "selected_phase", a.SelectedPhase, b.SelectedPhase)
	at(-1, "selected_warm_up", a.SelectedWarmUp, b.SelectedWarmUp)
	at(-1, "selected_val_loss", a.SelectedValLoss, b.SelectedValLoss)
	at(-1, "test_acc", a.TestAcc, b.TestAcc)
	at(-1, "run_axis", a.RunAxis, b.RunAxis)
	for i := range max(len(a.Epochs), len(b.Epochs)) {
		switch {
		case i >= len(b.Epochs):
			at(a.Epochs[i].Epoch, "epoch", "present", absent)
		case i >= len(a.Epochs):
			at(b.Epochs[i].Epoch, "epoch", absent, "present")
		default:
			ea, eb := a.Epochs[i], b.Epochs[i]
			at(ea.Epoch, "epoch", ea.Epoch, eb.Epoch)
			at(ea.Epoch, "phase", ea.Phase, eb.Phase)
			at(ea.Epoch, "train_loss", ea.TrainLoss, eb.TrainLoss)
			at(ea.Epoch, "train_acc", ea.TrainAcc, eb.TrainAcc)
			at(ea.Epoch, "val_loss", ea.ValLoss, eb.ValLoss)
			at(ea.Epoch, "val_acc", ea.ValAcc, eb.ValAcc)
			at(ea.Epoch, "selected", ea.Selected, eb.Selected)
		}
	}
	return out
}

// equal compares two values of a record: Floats by their bits, the rest by
// value.
func equal(x, y any) bool {
	fx, okx := x.(Float)
	fy, oky := y.(Float)
	if okx && oky {
		return fx.Bits() == fy.Bits()
	}
	return x == y
}

// CaseList returns the cases of f, in its order.
func (f *File) CaseList() []Case {
	out := make([]Case, len(f.Cases))
	for i, c := range f.Cases {
		out[i] = c.Case
	}
	return out
}

// Union lists the cases of f, then those of g that f lacks (by name).
func (f *File) Union(g *File) []Case {
	out := f.CaseList()
	for _, c := range g.Cases {
		if !slices.ContainsFunc(f.Cases, func(fc CaseResult) bool { return fc.Name == c.Name }) {
			out = append(out, c.Case)
		}
	}
	return out
}

// BackendNames lists the backends of f's cases, sorted.
func (f *File) BackendNames() []string {
	var out []string
	for _, c := range f.Cases {
		if !slices.Contains(out, c.Backend) {
			out = append(out, c.Backend)
		}
	}
	slices.Sort(out)
	return out
}

// Keep returns a copy of f holding only the cases named as those of cases.
func (f *File) Keep(cases []Case) *File {
	names := map[string]bool{}
	for _, c := range cases {
		names[c.Name()] = true
	}
	out := *f
	out.Cases = nil
	for _, c := range f.Cases {
		if names[c.Name] {
			out.Cases = append(out.Cases, c)
		}
	}
	return &out
}

// Filter returns the cases whose names pattern (a regular expression)
// matches somewhere, in order; "" keeps them all. A pattern that matches
// none is an error listing the names.
func Filter(cases []Case, pattern string) ([]Case, error) {
	if pattern == "" {
		return cases, nil
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("cases %q: %w", pattern, err)
	}
	var out []Case
	var names []string
	for _, c := range cases {
		if re.MatchString(c.Name()) {
			out = append(out, c)
		}
		names = append(names, c.Name())
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("cases %q match none of %s", pattern, strings.Join(names, ", "))
	}
	return out, nil
}
