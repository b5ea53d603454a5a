package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/internal/testfs"

	"github.com/softshape-go/softshape/softshape"
)

// badInput is one bad command line: the command, its arguments (or prepare,
// which builds what the case needs, a file or a corrupted folder, and
// returns them) and parts of the error it must give.
type badInput struct {
	name, cmd string
	args      []string
	prepare   func(t *testing.T) []string
	want      []string
}

// writeTemp writes content to a new file in a temporary folder.
func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	return testfs.Write(t, t.TempDir(), name, content)
}

// truncatedCheckpoint trains a tiny model for one fold of the generated
// data, saves it, cuts its .bin file in half and returns the arguments of
// plot attention on it.
func truncatedCheckpoint(t *testing.T) []string {
	t.Helper()
	dir := t.TempDir()
	if err := runTrain([]string{"-epochs", "2", "-warmup", "1", "-folds", "1", "-quiet", "-checkpoint", dir, "-set", "embed_dim=16"}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	bins, _ := filepath.Glob(filepath.Join(dir, "fold-1", "checkpoint-*.bin"))
	if len(bins) != 1 {
		t.Fatalf("checkpoint files %v", bins)
	}
	st, err := os.Stat(bins[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(bins[0], st.Size()/2); err != nil {
		t.Fatal(err)
	}
	return []string{"attention", "-checkpoint", dir}
}

// foreignFold returns a train -checkpoint folder whose fold-1 holds a file
// that the user put there.
func foreignFold(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	testfs.Write(t, filepath.Join(dir, "fold-1"), "notes.txt", "mine")
	return dir
}

// legacyFolds returns a train -checkpoint folder of an older version, whose
// fold subfolders were numbered from 0: fold-0 and fold-1 (folds 1 and 2),
// each with its history.
func legacyFolds(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for i := range 2 {
		testfs.Write(t, filepath.Join(dir, fmt.Sprintf("fold-%d", i)), "history.json",
			fmt.Sprintf(`{"dataset": "CBF-generated", "fold": %d, "config": "", "history": [{"Epoch": 0, "Epochs": 1}]}`, i+1))
	}
	return dir
}

// nanDataset writes a UCR dataset "Blank" whose TEST file's second row is
// entirely NaN and returns the data folder.
func nanDataset(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "Blank")
	var train, test strings.Builder
	for i := range 20 {
		fmt.Fprintf(&train, "%d\t%d\t%d\t%d\t%d\n", i%2, i, i+1, i+2, i%3)
	}
	test.WriteString("1\t1\t2\t3\t4\n2\tNaN\tNaN\tNaN\tNaN\n")
	testfs.Write(t, dir, "Blank_TRAIN.tsv", train.String())
	testfs.Write(t, dir, "Blank_TEST.tsv", test.String())
	return root
}

// TestBadInputs tries bad command lines and bad files on every command:
// each must fail with an error that names the flag, file or value at fault
// (none passes silently, none panics). The list, with the messages, is in
// the note on issue 15.
func TestBadInputs(t *testing.T) {
	const train, table, status, timing, plot, datasets = "train", "table", "status", "timing", "plot", "datasets"
	cases := []badInput{
		// train: the schedule, folds, seed, positional arguments.
		{name: "train -epochs -3", cmd: train, args: []string{"-epochs", "-3"}, want: []string{"-epochs -3: want at least 1"}},
		{name: "train -epochs 0", cmd: train, args: []string{"-epochs", "0"}, want: []string{"-epochs 0: want at least 1"}},
		{name: "train -warmup -2", cmd: train, args: []string{"-warmup", "-2"}, want: []string{"-warmup -2: want 0 or more"}},
		{name: "train -warmup -1", cmd: train, args: []string{"-warmup", "-1"}, want: []string{"-warmup -1: want 0 or more"}},
		{name: "train -epochs x", cmd: train, args: []string{"-epochs", "x"}, want: []string{`invalid value "x" for flag -epochs`, "not an integer"}},
		{name: "train -epochs overflow", cmd: train, args: []string{"-epochs", "99999999999999999999"}, want: []string{"flag -epochs", "out of range"}},
		{name: "train -folds 0", cmd: train, args: []string{"-folds", "0"}, want: []string{`-folds "0": fold 0 does not exist`, "want 1..5"}},
		{name: "train -folds 6", cmd: train, args: []string{"-folds", "6"}, want: []string{`-folds "6": fold 6 does not exist`}},
		{name: "train -folds 3-1", cmd: train, args: []string{"-folds", "3-1"}, want: []string{`-folds "3-1": bad range`}},
		{name: "train -folds 1-9", cmd: train, args: []string{"-folds", "1-9"}, want: []string{`-folds "1-9": fold 9 does not exist`}},
		{name: "train -folds x", cmd: train, args: []string{"-folds", "x"}, want: []string{`-folds "x": "x" is not a number`}},
		{name: "train -folds empty", cmd: train, args: []string{"-folds", " , "}, want: []string{`-folds " , ": none given`}},
		{name: "train -folds 2,2", cmd: train, args: []string{"-folds", "2,2"}, want: []string{`-folds "2,2"`, "increasing order without repeats"}},
		{name: "train -folds 1-3,2", cmd: train, args: []string{"-folds", "1-3,2"}, want: []string{`-folds "1-3,2": "2" comes after fold 3`, "increasing order without repeats"}},
		{name: "sweep -folds 4,1", cmd: "sweep", args: []string{"-table", "ablation", "-quick", "-datasets", "ItalyPowerDemand", "-folds", "4,1"}, want: []string{`-folds "4,1"`, "increasing order without repeats"}},
		{name: "train -max-runs -1", cmd: train, args: []string{"-max-runs", "-1"}, want: []string{"-max-runs -1: want 0"}},
		{name: "train -stopped-runs", cmd: train, args: []string{"-stopped-runs", "stay"}, want: []string{`-stopped-runs: stopped runs "stay": want leave or ride`}},
		{name: "sweep -stopped-runs", cmd: "sweep", args: []string{"-table", "ablation", "-quick", "-stopped-runs", "Ride"}, want: []string{`-stopped-runs: stopped runs "Ride"`}},
		{name: "sweep -max-runs -2", cmd: "sweep", args: []string{"-table", "ablation", "-quick", "-max-runs", "-2"}, want: []string{"-max-runs -2: want 0"}},
		{name: "sweep -save-progress -1m", cmd: "sweep", args: []string{"-table", "ablation", "-quick", "-save-progress", "-1m"}, want: []string{"-save-progress -1m0s: want a duration of 0 (never) or more"}},
		{name: "train -seed overflow", cmd: train, args: []string{"-seed", "99999999999999999999"}, want: []string{"flag -seed", "out of range"}},
		{name: "train positional dataset", cmd: train, args: []string{"GunPoint"}, want: []string{`unexpected argument "GunPoint"`, "-dataset"}},
		{name: "train unknown dataset", cmd: train, args: []string{"-dataset", "GunPiont", "-offline", "-data", t.TempDir()}, want: []string{`unknown dataset "GunPiont"`, "did you mean GunPoint"}},
		{name: "train -backend nosuch", cmd: train, args: []string{"-backend", "nosuch", "-epochs", "1"}, want: []string{"nosuch"}},
		// -set values.
		{name: "train -set unknown", cmd: train, args: []string{"-set", "bogus=1"}, want: []string{"bogus"}},
		{name: "train -set epochs=abc", cmd: train, args: []string{"-set", "epochs=abc"}, want: []string{`"abc"`, "epochs"}},
		{name: "train -set no value", cmd: train, args: []string{"-set", "epochs"}, want: []string{`item "epochs" is not name=value`}},
		{name: "train -set sparse_ratio=1.5", cmd: train, args: []string{"-set", "sparse_ratio=1.5", "-epochs", "2", "-warmup", "1"}, want: []string{"sparse_ratio=1.5", "[0, 1)"}},
		{name: "train -set experts_k=0", cmd: train, args: []string{"-set", "experts_k=0", "-epochs", "2", "-warmup", "1"}, want: []string{"experts_k=0: k must be ≥ 1"}},
		{name: "train -set depth=0", cmd: train, args: []string{"-set", "depth=0", "-epochs", "2", "-warmup", "1"}, want: []string{"depth=0", "≥ 1"}},
		{name: "train -set learning_rate=-1", cmd: train, args: []string{"-set", "learning_rate=-1", "-epochs", "2", "-warmup", "1"}, want: []string{"learning_rate=-1: must be > 0"}},
		{name: "train -set epochs=-3", cmd: train, args: []string{"-set", "epochs=-3"}, want: []string{"epochs=-3"}},
		// Files: checkpoints, data.
		{name: "train -checkpoint with a foreign file", cmd: train, prepare: func(t *testing.T) []string {
			return []string{"-checkpoint", foreignFold(t), "-folds", "1", "-epochs", "1"}
		}, want: []string{"fold-1 holds notes.txt", "deleting nothing"}},
		{name: "train -checkpoint of 0-based fold folders", cmd: train, prepare: func(t *testing.T) []string {
			return []string{"-checkpoint", legacyFolds(t), "-folds", "1", "-epochs", "1"}
		}, want: []string{"holds fold-0", "older version", "from 0", "fold-1 … fold-5"}},
		{name: "train -checkpoint is a file", cmd: train, prepare: func(t *testing.T) []string {
			return []string{"-checkpoint", writeTemp(t, "ckpt", "x"), "-epochs", "1"}
		}, want: []string{"is a file, not a folder"}},
		{name: "train all-NaN series", cmd: train, prepare: func(t *testing.T) []string {
			return []string{"-dataset", "Blank", "-data", nanDataset(t), "-offline", "-epochs", "1"}
		}, want: []string{filepath.Join("Blank", "Blank_TEST.tsv") + ":2:", "no finite value"}},
		{name: "plot curves -save with a foreign file", cmd: plot, prepare: func(t *testing.T) []string {
			dir := filepath.Dir(writeTemp(t, "precious/thesis.txt", "three years"))
			return []string{"curves", "-epochs", "2", "-warmup", "1", "-save", dir}
		}, want: []string{"precious holds thesis.txt", "deleting nothing"}},
		{name: "plot curves -epochs -3", cmd: plot, args: []string{"curves", "-epochs", "-3"}, want: []string{"-epochs -3: want at least 1"}},
		{name: "plot attention truncated checkpoint", cmd: plot, prepare: truncatedCheckpoint, want: []string{"loading checkpoint"}},
		{name: "plot curves 0-based fold folders", cmd: plot, prepare: func(t *testing.T) []string {
			return []string{"curves", "-checkpoint", legacyFolds(t), "-fold", "2"}
		}, want: []string{"holds fold-0", "older version", "from 0", "fold-1 … fold-5"}},
		{name: "plot attention 0-based fold folders", cmd: plot, prepare: func(t *testing.T) []string {
			return []string{"attention", "-checkpoint", legacyFolds(t)}
		}, want: []string{"holds fold-0", "older version"}},
		{name: "plot curves fold not trained", cmd: plot, prepare: func(t *testing.T) []string {
			dir := t.TempDir()
			testfs.Write(t, filepath.Join(dir, "fold-2"), "history.json", `{"fold": 2, "history": [{"Epoch": 0, "Epochs": 1}]}`)
			return []string{"curves", "-checkpoint", dir, "-fold", "3"}
		}, want: []string{"has no fold-3 for -fold 3", "holds fold-2"}},
		{name: "plot attention empty checkpoint folder", cmd: plot, prepare: func(t *testing.T) []string {
			return []string{"attention", "-checkpoint", t.TempDir()}
		}, want: []string{"holds no checkpoint-*.json"}},
		{name: "plot curves corrupted history", cmd: plot, prepare: func(t *testing.T) []string {
			return []string{"curves", "-checkpoint", filepath.Dir(writeTemp(t, "ck/history.json", `{"Dataset": "GunPoint", "History": [`))}
		}, want: []string{"history.json", "unexpected end of JSON input"}},
		// table and status: names before folders, folders that are files, corrupted records.
		{name: "table -table nosuch", cmd: table, args: []string{"-table", "nosuch"}, want: []string{`-table "nosuch": unknown table`, "ablation"}},
		{name: "table -results is a file", cmd: table, prepare: func(t *testing.T) []string {
			return []string{"-table", "ablation", "-results", writeTemp(t, "results", "x")}
		}, want: []string{"is a file, not a folder"}},
		{name: "table -format html", cmd: table, args: []string{"-table", "ablation", "-format", "html"}, want: []string{`-format "html"`}},
		{name: "status -table nosuch", cmd: status, args: []string{"-table", "nosuch"}, want: []string{`-table "nosuch": unknown table`}},
		{name: "status -results is a file", cmd: status, prepare: func(t *testing.T) []string {
			return []string{"-results", writeTemp(t, "results", "x")}
		}, want: []string{"is a file, not a folder"}},
		{name: "status -list -1", cmd: status, args: []string{"-list", "-1"}, want: []string{"-list -1"}},
		{name: "status -shards -2", cmd: status, args: []string{"-shards", "-2"}, want: []string{"-shards -2"}},
		{name: "status -retry-failed without -shards", cmd: status, args: []string{"-retry-failed"}, want: []string{"-retry-failed applies with -shards only"}},
		// timing.
		{name: "timing -paired -332", cmd: timing, args: []string{"-paired", "-332"}, want: []string{"-paired -332: want a positive series length"}},
		{name: "timing -max-ratio without -paired", cmd: timing, args: []string{"-max-ratio", "90=0.85"}, want: []string{"applies to -paired only"}},
		{name: "timing -max-ratio ratio not compared", cmd: timing, args: []string{"-paired", "332", "-ratios", "0,50", "-max-ratio", "90=0.85"}, want: []string{"90% is not one of the compared -ratios"}},
		{name: "timing -max-ratio bad bound", cmd: timing, args: []string{"-paired", "332", "-max-ratio", "90=fast"}, want: []string{`"fast": the bound must be a positive number`}},
		{name: "timing -max-ratio no bound", cmd: timing, args: []string{"-paired", "332", "-max-ratio", "90"}, want: []string{"want RATIO=MAX"}},
		{name: "timing -out is a file", cmd: timing, prepare: func(t *testing.T) []string {
			return []string{"-lengths", "166", "-ratios", "", "-steps", "1", "-batch", "2", "-set", "embed_dim=16", "-params=false",
				"-data", bundledOnly(t), "-out", writeTemp(t, "out", "x")}
		}, want: []string{"is a file, not a folder for the figures"}},
		// datasets.
		{name: "datasets info -folds 1", cmd: datasets, args: []string{"info", "-folds", "1", "-data", "testdata/no-datasets", "GunPoint"}, want: []string{"-folds 1: want at least 2"}},
		{name: "datasets -data is a file", cmd: datasets, prepare: func(t *testing.T) []string {
			return []string{"-data", writeTemp(t, "data", "x")}
		}, want: []string{"is a file, not a folder of datasets"}},
	}
	checkBadInputs(t, cases)
	if len(cases) < 30 {
		t.Errorf("%d bad inputs, the issue asks for at least 30", len(cases))
	}
}

// checkBadInputs runs each case as a subtest: its command must fail, without
// panicking, with an error that contains every part of c.want.
func checkBadInputs(t *testing.T, cases []badInput) {
	t.Helper()
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			args := c.args
			if c.prepare != nil {
				args = c.prepare(t)
			}
			command, ok := commands()[c.cmd]
			if !ok {
				t.Fatalf("no command %q", c.cmd)
			}
			if c.cmd == "train" {
				args = append(args, "-quiet")
			}
			var out bytes.Buffer
			err := func() (err error) {
				defer func() {
					if r := recover(); r != nil {
						err = fmt.Errorf("PANIC: %v", r)
					}
				}()
				return command.run(args, &out)
			}()
			if err == nil {
				t.Fatalf("%s %q: no error\n%s", c.name, args, out.String())
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s: error %q does not contain %q", c.name, err, w)
				}
			}
			t.Logf("%s → %v", c.name, err)
		})
	}
}

// TestCorruptRecordsReported: a results record cut short or emptied is not
// an error for table and status (the other records still count) but is
// reported, with its file and what is wrong, never silently dropped.
func TestCorruptRecordsReported(t *testing.T) {
	results := filepath.Join(t.TempDir(), "results")
	if out, err := sweepCLI(t, results); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	files, _ := filepath.Glob(filepath.Join(results, "ablation", "ItalyPowerDemand", "*", "*.json"))
	if len(files) != 2 {
		t.Fatalf("records %v", files)
	}
	if err := os.WriteFile(files[0], []byte(`{"key": {`), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := runTable([]string{"-table", "ablation", "-quick", "-results", results}, &out); err != nil {
		t.Fatal(err)
	}
	contains(t, out.String(), "(1 corrupt)", "corrupt: record "+files[0]+": unexpected end of JSON input")
	out.Reset()
	if err := runStatus([]string{"-results", results}, &out); err != nil {
		t.Fatal(err)
	}
	contains(t, out.String(), "1 corrupt", "corrupt  ItalyPowerDemand", files[0]+": unexpected end of JSON input")
}

// TestScheduleWarning: a warm-up as long as the run is legal (a dense-only
// run) but gets a warning line; a valid schedule gets none.
func TestScheduleWarning(t *testing.T) {
	for _, c := range []struct {
		args []string
		warn string
	}{
		{[]string{"-epochs", "5", "-warmup", "5"}, "warning: 5 warm-up epochs of 5: every epoch is dense"},
		{[]string{"-epochs", "3"}, "warning: 150 warm-up epochs of 3"},
		{[]string{"-epochs", "5", "-warmup", "2"}, ""},
		{nil, ""},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		s := addScheduleFlags(fs)
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		cfg := softshape.DefaultConfig()
		warn, err := s.apply(&cfg)
		if err != nil || !strings.HasPrefix(warn, c.warn) || (c.warn == "") != (warn == "") {
			t.Errorf("%v: warning %q, %v; want %q", c.args, warn, err, c.warn)
		}
	}
}
