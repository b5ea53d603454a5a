package doclinks

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSlug: anchors as GitHub spells them, checked by hand against headings
// of this project's documents.
func TestSlug(t *testing.T) {
	for heading, want := range map[string]string{
		"Fast CPU path: ONNX Runtime":                       "fast-cpu-path-onnx-runtime",
		"The pure-Go backend's 2-core deadlock":             "the-pure-go-backends-2-core-deadlock",
		"Speed of the pure-Go backend: `GOEXPERIMENT=simd`": "speed-of-the-pure-go-backend-goexperimentsimd",
		"Protocol: SoftShape's own model by default":        "protocol-softshapes-own-model-by-default",
		"The real-cluster test: `.ci/slurm-test.sh`":        "the-real-cluster-test-cislurm-testsh",
		"**Many runs** in one graph (R = 10)":               "many-runs-in-one-graph-r--10",
		"See [fidelity](fidelity.md) on GPU":                "see-fidelity-on-gpu",
		"Sparse ratio 1−η":                                  "sparse-ratio-1η",
		"selection_window and `fold_reset`":                 "selection_window-and-fold_reset",
	} {
		if got := Slug(heading); got != want {
			t.Errorf("Slug(%q) = %q, want %q", heading, got, want)
		}
	}
}

// TestCheck: a small tree with good and broken links; code is not read.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("docs/b.md", "# B\n## Part two\n## Part two\n")
	write("docs/img/x.png", "")
	write("a.md", strings.Join([]string{
		"# Top",
		"[b](docs/b.md) [two](docs/b.md#part-two) [again](docs/b.md#part-two-1) ![x](docs/img/x.png)",
		"[self](#top) [folder](docs) [web](https://example.com/#nothing)",
		"[gone](docs/c.md) [no part](docs/b.md#part-three) [no self](#bottom) [img anchor](docs/img/x.png#a)",
		"`[in code](nowhere.md)`",
		"```",
		"[in a fence](nowhere.md)",
		"```",
	}, "\n"))
	errs, err := Check(filepath.Join(dir, "a.md"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range errs {
		got = append(got, e.Error())
	}
	for _, want := range []string{`"docs/c.md": no file`, `"docs/b.md#part-three"`, `"#bottom"`, `"docs/img/x.png#a": an anchor in a file that is not Markdown`} {
		if !slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, want) }) {
			t.Errorf("no error for %s in %q", want, got)
		}
	}
	if len(got) != 4 {
		t.Errorf("%d errors, want 4: %q", len(got), got)
	}
}

// TestProjectDocs: every relative link of README.md, environment.md and
// docs/*.md resolves to a file and, for an anchor, to a heading.
func TestProjectDocs(t *testing.T) {
	root := filepath.Join("..", "..")
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs = append([]string{filepath.Join(root, "README.md"), filepath.Join(root, "environment.md")}, docs...)
	if len(docs) < 4 {
		t.Fatalf("found only %v", docs)
	}
	for _, d := range docs {
		errs, err := Check(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range errs {
			t.Error(e)
		}
	}
}
