package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/softshape-go/softshape/internal/testfs"
)

// Results navigation (issue 34, item 5): a folder above the results folders,
// runs that no sweep can make, a record this softshape cannot read, and the
// wall time of folds trained together. Each case is an error that says what
// to do, or output whose text the test asserts.

// storedResults is the committed store of the reproduction, one results
// folder per protocol preset.
const storedResults = "../../reproduction/results"

// gunPointExpertsK copies the GunPoint sweep of table experts_k (its grid
// file and records) of each preset folder of the committed store into
// root/<preset>, and returns root.
func gunPointExpertsK(t *testing.T, presets ...string) string {
	t.Helper()
	root := t.TempDir()
	for _, preset := range presets {
		src, dst := filepath.Join(storedResults, preset, "experts_k"), filepath.Join(root, preset, "experts_k")
		grids, _ := filepath.Glob(filepath.Join(src, "grid-*.json"))
		found := false
		for _, g := range grids {
			var f struct {
				Spec struct{ Datasets []string }
			}
			b, err := os.ReadFile(g)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &f); err != nil {
				t.Fatalf("%s: %v", g, err)
			}
			if slices.Equal(f.Spec.Datasets, []string{"GunPoint"}) {
				testfs.Write(t, dst, filepath.Base(g), string(b))
				found = true
			}
		}
		records, _ := filepath.Glob(filepath.Join(src, "GunPoint", "*", "fold*.json"))
		if !found || len(records) != 20 {
			t.Fatalf("%s: a GunPoint grid %t, %d records; want one and 20 (4 k × 5 folds)", src, found, len(records))
		}
		for _, r := range records {
			b, err := os.ReadFile(r)
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(src, r)
			testfs.Write(t, filepath.Join(dst, filepath.Dir(rel)), filepath.Base(r), string(b))
		}
	}
	return root
}

// TestResultsFolderAbovePresets: table on the folder above the preset folders
// is an error naming them and the -results to use; status says the same as a
// warning; the advice works.
func TestResultsFolderAbovePresets(t *testing.T) {
	root := gunPointExpertsK(t, "reference_compat", "reference_fresh")
	var out bytes.Buffer
	err := runTable([]string{"-table", "experts_k", "-results", root}, &out)
	want := "no sweep recorded for table experts_k (full) under " + root + ": the results folders below it record table experts_k: " +
		"reference_compat, reference_fresh; name one of them, e.g. -results " + filepath.Join(root, "reference_compat")
	if err == nil || err.Error() != want {
		t.Errorf("table on the folder above the presets: %v\nwant %s", err, want)
	}
	out.Reset()
	if err := runStatus([]string{"-results", root}, &out); err != nil {
		t.Fatal(err)
	}
	contains(t, out.String(), "no sweep recorded for any table in "+root+"\nthe results folders below it record sweeps: "+
		"reference_compat, reference_fresh; name one of them, e.g. -results "+filepath.Join(root, "reference_compat")+"\n")
	out.Reset()
	if err := runTable([]string{"-table", "experts_k", "-results", filepath.Join(root, "reference_compat")}, &out); err != nil {
		t.Fatalf("the advised -results: %v", err)
	}
}

// TestInvalidRunsListedApart: the runs with k > Ĉ (GunPoint has two classes,
// so k=3 and k=4) are listed as invalid, apart from the missing runs, and
// nothing advises a sweep for them; the CSV gives them their own section.
func TestInvalidRunsListedApart(t *testing.T) {
	results := filepath.Join(gunPointExpertsK(t, "reference_compat"), "reference_compat")
	var out bytes.Buffer
	if err := runTable([]string{"-table", "experts_k", "-results", results}, &out); err != nil {
		t.Fatal(err)
	}
	md := out.String()
	contains(t, md, "## Missing runs\n\nNone: every expected run has an ok record or is invalid (below).\n",
		"## Invalid runs (not runnable)\n\n10 expected run(s) are recorded invalid: the dataset rejects their configuration, so no sweep can run them; they are not missing.\n",
		"- GunPoint · k=3 · seed 42 folds 1,2,3,4,5 — not runnable: dataset GunPoint (T=150, C=2): experts_k=3: k must be ≤ the number of experts Ĉ=2",
		"- GunPoint · k=4 · seed 42 folds 1,2,3,4,5 — not runnable: dataset GunPoint (T=150, C=2): experts_k=4:")
	if strings.Contains(md, "runs the missing ones") {
		t.Errorf("the table advises a sweep for runs that cannot run:\n%s", md)
	}
	out.Reset()
	if err := runTable([]string{"-table", "experts_k", "-results", results, "-format", "csv"}, &out); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&out).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]int{}
	for _, r := range rows {
		sections[r[0]]++
	}
	if sections["invalid"] != 10 || sections["missing"] != 0 {
		t.Errorf("CSV: %d invalid, %d missing rows; want 10 and 0", sections["invalid"], sections["missing"])
	}
}

// TestNewerSchemaRecord: a record of a schema this softshape does not know
// is reported by status and table with its file and what to do; sweep
// refuses to overwrite it, saying the same; moved aside as advised, its cell
// is missing again, for the sweep to run.
func TestNewerSchemaRecord(t *testing.T) {
	results := filepath.Join(gunPointExpertsK(t, "reference_compat"), "reference_compat")
	rec := filepath.Join(results, "experts_k", "GunPoint", "k-1", "fold1-seed42-5de037b71cb8.json")
	b, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.Replace(b, []byte(`"schema": 1,`), []byte(`"schema": 2,`), 1)
	if err := os.WriteFile(rec, b, 0o644); err != nil {
		t.Fatal(err)
	}
	advice := "record " + rec + ": schema 2, written by a newer softshape (this one reads schema 1): use that newer softshape, " +
		"or move it aside (e.g. rename it to fold1-seed42-5de037b71cb8.json.bad) to have softshape sweep run the cell again"

	var out bytes.Buffer
	if err := runStatus([]string{"-results", results}, &out); err != nil {
		t.Fatal(err)
	}
	contains(t, out.String(), "10 invalid, 0 missing, 1 corrupt", "corrupt  GunPoint · k=1 · seed 42 fold 1: "+advice+"\n")
	out.Reset()
	if err := runTable([]string{"-table", "experts_k", "-results", results}, &out); err != nil {
		t.Fatal(err)
	}
	contains(t, out.String(), "1 expected run(s) have no ok record (1 corrupt); `softshape status` lists them too. "+
		"A sweep never overwrites the corrupt records: move each aside as it says, and `softshape sweep` runs its cell again.",
		"- GunPoint · k=1 · seed 42 fold 1 — corrupt: "+advice+"\n")
	if strings.Contains(out.String(), "runs the missing ones") {
		t.Errorf("the table advises a sweep that cannot overwrite the record:\n%s", out.String())
	}

	sweepArgs := []string{"-table", "experts_k", "-datasets", "GunPoint", "-seeds", "42", "-set", "protocol=reference_compat",
		"-results", results, "-data", bundledOnly(t), "-offline"}
	out.Reset()
	err = runSweep(sweepArgs, &out)
	if err == nil || err.Error() != "1 cells left without a record (listed above)" {
		t.Errorf("sweep over the record: %v", err)
	}
	contains(t, out.String(), "0 trained", "19 already done", "  experts_k/GunPoint/k=1 fold 1 seed 42 #5de037b71cb8: "+advice+"\n")
	if after, _ := os.ReadFile(rec); !bytes.Equal(after, b) {
		t.Error("sweep changed the record")
	}

	if err := os.Rename(rec, rec+".bad"); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := runSweep(append(sweepArgs, "-dry-run"), &out); err != nil {
		t.Fatal(err)
	}
	contains(t, out.String(), "missing  experts_k/GunPoint/k=1 fold 1 seed 42", "dry run: 20 cells (9 done, 10 invalid, 1 missing)")
}

// TestTrainWallOfBatchedFolds: folds trained together print the job's wall
// time once, not in every fold's row; folds trained one at a time keep their
// own.
func TestTrainWallOfBatchedFolds(t *testing.T) {
	args := []string{"-epochs", "2", "-warmup", "1", "-folds", "1,2", "-quiet", "-set", "embed_dim=16"}
	var out bytes.Buffer
	if err := runTrain(args, &out); err != nil {
		t.Fatal(err)
	}
	together := regexp.MustCompile(`(?m)^wall (\S+) for the 2 folds, trained together \(no time of their own: they share the job\)$`)
	m := together.FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no job wall line:\n%s", out.String())
	}
	if d, err := time.ParseDuration(m[1]); err != nil || d <= 0 {
		t.Errorf("job wall %q: %v", m[1], err)
	}
	if walls := foldWalls(out.String()); !slices.Equal(walls, []string{"—", "—"}) {
		t.Errorf("wall column %q of folds trained together, want — —:\n%s", walls, out.String())
	}

	out.Reset()
	if err := runTrain(append(args, "-max-runs", "1"), &out); err != nil {
		t.Fatal(err)
	}
	if together.MatchString(out.String()) || strings.Contains(out.String(), "trained together") {
		t.Errorf("folds trained one at a time print a job wall line:\n%s", out.String())
	}
	walls := foldWalls(out.String())
	if len(walls) != 2 {
		t.Fatalf("wall column %q, want two folds:\n%s", walls, out.String())
	}
	for _, w := range walls {
		if d, err := time.ParseDuration(w); err != nil || d <= 0 {
			t.Errorf("fold wall %q: %v", w, err)
		}
	}
}

// foldWalls returns the wall column of the per-fold table of train's output.
func foldWalls(out string) []string {
	var walls []string
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) == 9 && (f[0] == "1" || f[0] == "2") {
			walls = append(walls, f[8])
		}
	}
	return walls
}
