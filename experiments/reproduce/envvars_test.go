package reproduce

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// envName matches a SOFTSHAPE_* environment variable in text.
var envName = regexp.MustCompile(`SOFTSHAPE_[A-Z0-9_]*[A-Z0-9]`)

// tableNames returns the names of EnvVars.
func tableNames() []string {
	var names []string
	for _, e := range EnvVars() {
		names = append(names, e.Name)
	}
	return names
}

// clearEnvVars unsets (blanks) every variable of the table for the test.
func clearEnvVars(t *testing.T) {
	t.Helper()
	for _, e := range EnvVars() {
		t.Setenv(e.Name, "")
	}
}

// TestEnvVarsTable: each variable is listed once, with an example and a
// one-line description, and each one that ParamsFromEnv reads is applied by
// it: its example parses and changes the parameters.
func TestEnvVarsTable(t *testing.T) {
	clearEnvVars(t)
	base := Params{Seeds: []int64{42}, TrainMissing: true}
	want, err := ParamsFromEnv(base)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range EnvVars() {
		if !envName.MatchString(e.Name) || envName.FindString(e.Name) != e.Name {
			t.Errorf("%q is not a SOFTSHAPE_* name", e.Name)
		}
		if seen[e.Name] {
			t.Errorf("%s listed twice", e.Name)
		}
		seen[e.Name] = true
		if e.Example == "" || e.Help == "" || strings.Contains(e.Help, "\n") {
			t.Errorf("%s: example %q, help %q: want both, the help on one line", e.Name, e.Example, e.Help)
		}
		if !e.ReadByParams() {
			continue
		}
		t.Run(e.Name, func(t *testing.T) {
			t.Setenv(e.Name, e.Example)
			got, err := ParamsFromEnv(base)
			if err != nil {
				t.Fatalf("%s=%s: %v", e.Name, e.Example, err)
			}
			if reflect.DeepEqual(got, want) {
				t.Errorf("%s=%s changed no parameter", e.Name, e.Example)
			}
		})
	}
	for _, name := range []string{EnvQuick, EnvResults, EnvDatasets, EnvFolds, EnvSeeds, EnvBackend, EnvData,
		EnvTrainMissing, EnvSettings, EnvWorkers, EnvOffline, EnvHeadless, EnvQuickstartDataset, EnvShared, EnvORTDir} {
		if !seen[name] {
			t.Errorf("EnvVars lacks %s", name)
		}
	}
}

// TestEnvVarsCoverPackage: every SOFTSHAPE_* variable this package names
// (reads, or documents) is in EnvVars.
func TestEnvVarsCoverPackage(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("package files %v: %v", files, err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range envName.FindAllString(string(b), -1) {
			if !slices.Contains(tableNames(), name) {
				t.Errorf("%s names %s, which EnvVars lacks", f, name)
			}
		}
	}
}

// TestNotebooksListEnvVars: the parameter cell of every notebook lists the
// environment variables from the table (reproduce.ShowParams, through
// ShowEnvHelp), so that it misses none, and no notebook names a SOFTSHAPE_*
// variable that the table lacks (a hand-written list gone stale, a variable
// read only there). The parameter cells are one cell, at most 8 lines, that
// differs between notebooks only by the name given to Defaults, so they
// cannot drift apart.
func TestNotebooksListEnvVars(t *testing.T) {
	nbs, err := filepath.Glob(filepath.Join(RepoRoot(), "notebooks", "*.ipynb"))
	if err != nil || len(nbs) == 0 {
		t.Fatalf("no notebooks under %s: %v", filepath.Join(RepoRoot(), "notebooks"), err)
	}
	names := tableNames()
	var firstCell, firstNB string // the parameter cell of the first notebook, its name replaced by NAME
	for _, nb := range nbs {
		params := 0
		for i, c := range notebookCells(t, nb) {
			src := c.Source
			for _, name := range envName.FindAllString(src, -1) {
				if !slices.Contains(names, name) {
					t.Errorf("%s cell %d names %s, which reproduce.EnvVars lacks", filepath.Base(nb), i, name)
				}
			}
			if c.Type != "code" || !strings.Contains(src, "NotebookParams(") {
				continue
			}
			params++
			if !strings.Contains(src, "reproduce.ShowParams(P)") {
				t.Errorf("%s: the parameter cell (cell %d) does not call reproduce.ShowParams(P), which lists the variables %v", filepath.Base(nb), i, names)
			}
			m := notebookName.FindStringSubmatch(src)
			if m == nil {
				t.Errorf("%s cell %d: no reproduce.NotebookParams(\"NAME\", ...) call", filepath.Base(nb), i)
				continue
			}
			if _, err := Defaults(m[1]); err != nil {
				t.Errorf("%s: %v", filepath.Base(nb), err)
			}
			if n := strings.Count(strings.TrimRight(src, "\n"), "\n") + 1; n > 8 {
				t.Errorf("%s: the parameter cell has %d lines, want at most 8", filepath.Base(nb), n)
			}
			cell := strings.Replace(src, m[0], `NotebookParams("NAME"`, 1)
			if firstCell == "" {
				firstCell, firstNB = cell, filepath.Base(nb)
			} else if cell != firstCell {
				t.Errorf("%s: the parameter cell differs from %s's by more than the name:\n%s\n-- %s's:\n%s", filepath.Base(nb), firstNB, cell, firstNB, firstCell)
			}
		}
		if params != 1 {
			t.Errorf("%s: %d parameter cells (calling reproduce.NotebookParams), want 1", filepath.Base(nb), params)
		}
	}
}

// notebookName finds the name in a parameter cell's NotebookParams call.
var notebookName = regexp.MustCompile(`NotebookParams\("([^"]*)"`)

// TestEnvHelp: the help names every variable with its description, and the
// value of those set (not blank).
func TestEnvHelp(t *testing.T) {
	clearEnvVars(t)
	t.Setenv(EnvSeeds, "7,8")
	h := EnvHelp()
	for _, e := range EnvVars() {
		if !strings.Contains(h, e.Name+"="+e.Example) || !strings.Contains(h, e.Help) {
			t.Errorf("help lacks %s=%s or its description:\n%s", e.Name, e.Example, h)
		}
	}
	if !strings.Contains(h, `[now "7,8"]`) {
		t.Errorf("help does not show %s's value:\n%s", EnvSeeds, h)
	}
	if n := strings.Count(h, "[now "); n != 1 {
		t.Errorf("help shows %d values, want 1 (%s's; the others are blank):\n%s", n, EnvSeeds, h)
	}
}
