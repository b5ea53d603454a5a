package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/internal/testfs"
)

// Data that parses but cannot train, or trains on something other than
// what the files say (issue 34, item 3): each case is an error naming the
// file, or a warning on stderr (train) or stdout (datasets info).

// dataDir writes root/name/name_TRAIN.tsv and _TEST.tsv and returns root.
func dataDir(t *testing.T, name, train, test string) string {
	t.Helper()
	root := t.TempDir()
	testfs.Write(t, filepath.Join(root, name), name+"_TRAIN.tsv", train)
	testfs.Write(t, filepath.Join(root, name), name+"_TEST.tsv", test)
	return root
}

// rows returns n tab-separated rows of length values each, labels
// alternating between label1 and label2, the values varying with the row.
func rows(n, length int, label1, label2 string) string {
	var b strings.Builder
	for i := range n {
		b.WriteString([]string{label1, label2}[i%2])
		for j := range length {
			fmt.Fprintf(&b, "\t%d", (i*7+j*(i%2+1))%11)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// TestBadDataRejected: a dataset of length-1 series, of constant series, a
// value beyond the float32 range and a byte-order mark inside a label each
// stop train before any training, with an error naming the file.
func TestBadDataRejected(t *testing.T) {
	for _, c := range []struct {
		name, train, test string
		want              []string
	}{
		{"Len1", "1\t1\n2\t3\n1\t2\n2\t5\n", "1\t1\n2\t4\n", []string{"Len1_TRAIN.tsv + ", "dataset Len1: every series has a single value", "nothing is left to learn"}},
		{"Flat", "1\t1\t1\n2\t3\t3\n1\t2\t2\n2\t5\t5\n", "1\t0\t0\n2\t4\t4\n", []string{"Flat_TEST.tsv", "dataset Flat: every series is constant", "all zeros"}},
		{"Huge", rows(10, 4, "1", "2"), "1\t1\t2\t3\t4\n2\t1\t1e300\t3\t4\n", []string{filepath.Join("Huge", "Huge_TEST.tsv") + ":2: column 3", `value "1e300"`, "beyond ±3.4e+38", "float32"}},
		{"Bom", rows(10, 4, "1", "2"), "\ufeff1\t1\t2\t3\t4\n\ufeff2\t4\t3\t2\t1\n", []string{filepath.Join("Bom", "Bom_TEST.tsv") + ":2: column 1", `class label "\ufeff2"`, "byte-order mark (U+FEFF)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := dataDir(t, c.name, c.train, c.test)
			var out bytes.Buffer
			err := runTrain([]string{"-dataset", c.name, "-data", root, "-offline", "-epochs", "1", "-warmup", "0", "-quiet"}, &out)
			if err == nil {
				t.Fatalf("no error\n%s", out.String())
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

// captureStderr runs f with os.Stderr sent to a file and returns what was
// written there.
func captureStderr(t *testing.T, f func() error) (string, error) {
	t.Helper()
	file, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	saved := os.Stderr
	os.Stderr = file
	err = f()
	os.Stderr = saved
	b, rerr := os.ReadFile(file.Name())
	if rerr != nil {
		t.Fatal(rerr)
	}
	return string(b), err
}

// TestDataWarningsPrinted: a dataset with a constant series and labels
// spelt "1" in TRAIN but "1.0" in TEST trains, two classes, and train
// prints both warnings to stderr, naming the files and lines; datasets info
// prints them with its description.
func TestDataWarningsPrinted(t *testing.T) {
	train := rows(20, 6, "1", "2") + "2\t4\t4\t4\t4\t4\t4\n"
	root := dataDir(t, "Warned", train, rows(10, 6, "1.0", "2.0"))
	trainFile := filepath.Join(root, "Warned", "Warned_TRAIN.tsv")
	testFile := filepath.Join(root, "Warned", "Warned_TEST.tsv")
	want := []string{
		"warning: dataset Warned: 1 of 31 series is constant (" + trainFile + " line 21): z-normalised on its own, as for training, each becomes all zeros and carries no information\n",
		fmt.Sprintf(`warning: dataset Warned: labels compared as numbers, so differently spelt labels are one class: "1" (%[1]s:1) = "1.0" (%[2]s:1); "2" (%[1]s:2) = "2.0" (%[2]s:2)`+"\n", trainFile, testFile),
	}

	var out bytes.Buffer
	stderr, err := captureStderr(t, func() error {
		return runTrain([]string{"-dataset", "Warned", "-data", root, "-offline", "-epochs", "1", "-warmup", "0", "-folds", "1", "-quiet", "-set", "embed_dim=16"}, &out)
	})
	if err != nil {
		t.Fatalf("train: %v\n%s", err, stderr)
	}
	for _, w := range want {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	}
	if n := strings.Count(stderr, "warning:"); n != len(want) {
		t.Errorf("%d warnings on stderr, want %d:\n%s", n, len(want), stderr)
	}
	if !strings.Contains(out.String(), "mean test accuracy") {
		t.Errorf("train printed no result:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "dataset: Warned (31 series, 2 classes, length 6)") {
		t.Errorf("stdout lacks the dataset line:\n%s", out.String())
	}

	out.Reset()
	if err := runDatasets([]string{"info", "-data", root, "-offline", "Warned"}, &out); err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		if !strings.Contains(out.String(), w) {
			t.Errorf("datasets info output lacks %q:\n%s", w, out.String())
		}
	}
}
