package slurm

import (
	"slices"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/experiments/sweep"
)

func TestArraySpec(t *testing.T) {
	for _, c := range []struct {
		in   []int
		want string
	}{
		{[]int{1, 2, 3, 4}, "1-4"},
		{[]int{4, 2, 1, 2}, "1-2,4"},
		{[]int{3}, "3"},
		{[]int{1, 3, 5, 6, 7, 9}, "1,3,5-7,9"},
	} {
		if got := ArraySpec(c.in); got != c.want {
			t.Errorf("ArraySpec(%v) = %q, want %q", c.in, got, c.want)
		}
		back, err := ParseArraySpec(c.want + "%2")
		want := slices.Compact(slices.Sorted(slices.Values(c.in)))
		if err != nil || !slices.Equal(back, want) {
			t.Errorf("ParseArraySpec(%q) = %v, %v; want %v", c.want, back, err, want)
		}
	}
	if got, err := ParseArraySpec("1-7:3"); err != nil || !slices.Equal(got, []int{1, 4, 7}) {
		t.Errorf("stepped range: %v %v", got, err)
	}
	for _, bad := range []string{"", "a", "3-1", "1:2", "1-"} {
		if _, err := ParseArraySpec(bad); err == nil {
			t.Errorf("ParseArraySpec(%q): no error", bad)
		}
	}
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"ItalyPowerDemand,GunPoint": "ItalyPowerDemand,GunPoint",
		"epochs=8;warmup_epochs=4":  "'epochs=8;warmup_epochs=4'",
		"w/o Intra":                 "'w/o Intra'",
		"it's":                      `'it'\''s'`,
		"":                          "''",
		"0%,50%":                    "0%,50%",
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}

func job() ArrayJob {
	return ArrayJob{Shards: 4, Binary: "/opt/bin/softshape", Results: "/shared/res", Output: "/shared/logs/%x-%A_%a.out",
		SweepArgs: []string{"-table", "sparse_ratio", "-datasets", "GunPoint", "-folds", "1-5", "-seeds", "42", "-variants", "w/o Intra,50%", "-quick"}}
}

func TestScript(t *testing.T) {
	s, err := Script(job())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"#!/bin/bash\n", "#SBATCH --job-name=softshape\n", "#SBATCH --array=1-4\n", "#SBATCH --cpus-per-task=1\n",
		"#SBATCH --output=/shared/logs/%x-%A_%a.out\n", `export GOMAXPROCS="${SLURM_CPUS_PER_TASK:-1}"`,
		"exec /opt/bin/softshape sweep \\\n  -table sparse_ratio \\\n", "-variants 'w/o Intra,50%'",
		`-shard "$((SLURM_ARRAY_TASK_ID))/4" \` + "\n  -results /shared/res\n",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("script lacks %q:\n%s", want, s)
		}
	}
	for _, not := range []string{"--gpus-per-task", "GOMLX_BACKEND", "--time", "--partition", "SLURM_ARRAY_TASK_COUNT"} {
		if strings.Contains(s, not) {
			t.Errorf("script holds %q:\n%s", not, s)
		}
	}

	j := job()
	j.Tasks, j.GPUsPerTask, j.Time, j.Partition, j.MaxRunning, j.CPUsPerTask = []int{4, 2}, 1, "2:00:00", "gpu", 2, 8
	j.Env = []string{"PJRT_PLUGIN_LIBRARY_PATH=/opt/pjrt lib"}
	s, err = Script(j)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"#SBATCH --array=2,4%2\n", "#SBATCH --gpus-per-task=1\n", "#SBATCH --time=2:00:00\n", "#SBATCH --signal=B:TERM@120\n",
		"#SBATCH --partition=gpu\n", "#SBATCH --cpus-per-task=8\n", "export GOMLX_BACKEND=xla:cuda\n", "-backend xla:cuda",
		"export PJRT_PLUGIN_LIBRARY_PATH='/opt/pjrt lib'\n", `"$((SLURM_ARRAY_TASK_ID))/4"`} {
		if !strings.Contains(s, want) {
			t.Errorf("GPU script lacks %q:\n%s", want, s)
		}
	}

	for name, mod := range map[string]func(*ArrayJob){
		"relative binary":  func(j *ArrayJob) { j.Binary = "softshape" },
		"relative results": func(j *ArrayJob) { j.Results = "results" },
		"relative output":  func(j *ArrayJob) { j.Output = "logs/x.out" },
		"no shards":        func(j *ArrayJob) { j.Shards = 0 },
		"task too big":     func(j *ArrayJob) { j.Tasks = []int{5} },
		"task zero":        func(j *ArrayJob) { j.Tasks = []int{0} },
		"empty tasks":      func(j *ArrayJob) { j.Tasks = []int{} },
		"gpu with go":      func(j *ArrayJob) { j.GPUsPerTask, j.Backend = 1, "go" },
		"bad env":          func(j *ArrayJob) { j.Env = []string{"1X=2"} },
		"spaced partition": func(j *ArrayJob) { j.Partition = "a b" },
	} {
		j := job()
		mod(&j)
		if _, err := Script(j); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestShardStates(t *testing.T) {
	var cells []sweep.Cell
	for f := 1; f <= 5; f++ {
		cells = append(cells, sweep.Cell{Key: sweep.Key{Table: "main", Dataset: "GunPoint", Variant: "SoftShape", Fold: f, Seed: 42, Hash: "0123456789ab"}})
	}
	states, err := ShardStates(nil, cells, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(states) != 3 || states[0].Cells != 2 || states[1].Cells != 2 || states[2].Cells != 1 {
		t.Fatalf("shard sizes: %v", states)
	}
	if got := IncompleteTasks(states, false); !slices.Equal(got, []int{1, 2, 3}) {
		t.Errorf("incomplete: %v", got)
	}
	if got := states[2].String(); got != "shard 3/3: 1 cells: 1 missing" {
		t.Errorf("String: %q", got)
	}
	failed := ShardState{Shard: sweep.Shard{Index: 1, Count: 1}, Cells: 2, Counts: map[sweep.CellState]int{sweep.StateDone: 1, sweep.StateFailed: 1}}
	if failed.Incomplete(false) || !failed.Incomplete(true) {
		t.Error("a failed cell makes a shard incomplete only with retryFailed")
	}
	running := ShardState{Shard: sweep.Shard{Index: 1, Count: 1}, Cells: 1, Counts: map[sweep.CellState]int{sweep.StateRunning: 1}}
	if running.Incomplete(true) {
		t.Error("a running cell makes a shard incomplete")
	}
}

func TestJobStates(t *testing.T) {
	if !jobStatesActive("RUNNING\n") || !jobStatesActive("PENDING") || jobStatesActive("") || jobStatesActive("COMPLETED") || jobStatesActive("CANCELLED") {
		t.Error("jobStatesActive")
	}
}

func TestParseJobs(t *testing.T) {
	text := "JobId=2 ArrayJobId=2 ArrayTaskId=3-4 JobName=x UserId=root(0) JobState=PENDING Reason=Resources ExitCode=0:0 RunTime=00:00:00\n" +
		"JobId=4 ArrayJobId=2 ArrayTaskId=2 JobName=x JobState=CANCELLED Reason=None ExitCode=0:15\n"
	jobs := ParseJobs(text)
	want := []Job{{ID: "2", ArrayJobID: "2", ArrayTaskID: "3-4", State: "PENDING", ExitCode: "0:0"},
		{ID: "4", ArrayJobID: "2", ArrayTaskID: "2", State: "CANCELLED", ExitCode: "0:15"}}
	if !slices.Equal(jobs, want) {
		t.Fatalf("ParseJobs = %+v, want %+v", jobs, want)
	}
	if jobs[0].Done() || !jobs[1].Done() {
		t.Error("Done")
	}
}
