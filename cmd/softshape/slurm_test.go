package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSweepEmitSlurm: -emit-slurm writes the array job of every shard and
// nothing else; -only-incomplete keeps the shards with cells left to run;
// status -shards names them.
func TestSweepEmitSlurm(t *testing.T) {
	dir := t.TempDir()
	results := filepath.Join(dir, "results")
	script := filepath.Join(dir, "job.sh")
	out, err := sweepCLI(t, results, "-emit-slurm", script, "-slurm-tasks", "2", "-slurm-time", "1:00:00", "-slurm-partition", "short",
		"-slurm-output", filepath.Join(dir, "logs", "%x-%A_%a.out"), "-slurm-binary", "/opt/softshape", "-backend", "go")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	contains(t, out, "wrote "+script+`: Slurm array job "softshape-ablation", --array=1-2 (shards of 2)`, "submit with: sbatch "+script)
	if _, err := os.Stat(results); err == nil {
		t.Error("-emit-slurm created the results folder")
	}
	b, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	contains(t, s, "#SBATCH --array=1-2\n", "#SBATCH --time=1:00:00\n", "#SBATCH --partition=short\n",
		"#SBATCH --output="+filepath.Join(dir, "logs", "%x-%A_%a.out")+"\n", "export GOMLX_BACKEND=go\n",
		"exec /opt/softshape sweep \\\n  -table ablation \\\n  -datasets ItalyPowerDemand \\\n  -folds 1 \\\n  -seeds 42 \\\n  -variants 'SoftShape,w/o Intra' \\\n  -quick \\\n",
		"-data "+bundledOnlyAbs(t), "-offline", "-backend go", `-shard "$((SLURM_ARRAY_TASK_ID))/2"`, "-results "+results+"\n")
	if strings.Contains(s, "-workers") {
		t.Errorf("the default -workers 0 (automatic, per task) was written into the script:\n%s", s)
	}

	// An explicit -workers, 1 included, goes into every task.
	for _, w := range []string{"1", "3"} {
		if out, err := sweepCLI(t, results, "-emit-slurm", script, "-slurm-tasks", "2", "-slurm-binary", "/opt/softshape", "-workers", w); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		b, _ = os.ReadFile(script)
		contains(t, string(b), "  -workers "+w+" \\\n")
	}
	// So does an explicit -max-runs (runs per graph).
	if out, err := sweepCLI(t, results, "-emit-slurm", script, "-slurm-tasks", "2", "-slurm-binary", "/opt/softshape", "-max-runs", "8"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	b, _ = os.ReadFile(script)
	contains(t, string(b), "  -max-runs 8 \\\n")
	// -fast (the speed forms) goes into every task, which would otherwise
	// train the plain graphs into a sweep asked for the speed forms; a
	// sweep without it passes nothing.
	if strings.Contains(string(b), "-fast") {
		t.Errorf("-fast went into the script without being asked for:\n%s", b)
	}
	if out, err := sweepCLI(t, results, "-emit-slurm", script, "-slurm-tasks", "2", "-slurm-binary", "/opt/softshape", "-fast"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	b, _ = os.ReadFile(script)
	contains(t, string(b), "  -fast \\\n")
	// A -save-progress other than the default goes into every task (the
	// default, which every task has, is left out).
	if strings.Contains(string(b), "-save-progress") {
		t.Errorf("-save-progress went into the script without being asked for:\n%s", b)
	}
	if out, err := sweepCLI(t, results, "-emit-slurm", script, "-slurm-tasks", "2", "-slurm-binary", "/opt/softshape", "-save-progress", "30m"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	b, _ = os.ReadFile(script)
	contains(t, string(b), "  -save-progress=30m0s \\\n")
	// -stopped-runs, deprecated and without effect, is accepted but never
	// passed on, whichever policy it names.
	for _, p := range []string{"ride", "leave"} {
		os.Remove(script) // the check reads the script this run wrote
		if out, err := sweepCLI(t, results, "-emit-slurm", script, "-slurm-tasks", "2", "-slurm-binary", "/opt/softshape", "-stopped-runs", p); err != nil {
			t.Fatalf("-stopped-runs %s: %v\n%s", p, err, out)
		}
		if b, err = os.ReadFile(script); err != nil {
			t.Fatalf("-stopped-runs %s: %v", p, err)
		}
		if strings.Contains(string(b), "-stopped-runs") {
			t.Errorf("-stopped-runs %s went into the script:\n%s", p, b)
		}
	}
	if strings.Contains(string(b), "-run-axis") {
		t.Errorf("-run-axis went into the script without being asked for:\n%s", b)
	}
	// And -run-axis: alone it is on; off and on are passed on, auto (the
	// default) is not; a bad value is an error naming it.
	for flagArg, want := range map[string]string{"-run-axis": "  -run-axis=on \\\n", "-run-axis=off": "  -run-axis=off \\\n",
		"-run-axis=true": "  -run-axis=on \\\n", "-run-axis=auto": ""} {
		if out, err := sweepCLI(t, results, "-emit-slurm", script, "-slurm-tasks", "2", "-slurm-binary", "/opt/softshape", flagArg); err != nil {
			t.Fatalf("%s: %v\n%s", flagArg, err, out)
		}
		b, _ = os.ReadFile(script)
		if want == "" && strings.Contains(string(b), "-run-axis") {
			t.Errorf("%s went into the script:\n%s", flagArg, b)
		} else if want != "" {
			contains(t, string(b), want)
		}
	}
	if out, err := sweepCLI(t, results, "-emit-slurm", script, "-slurm-tasks", "2", "-slurm-binary", "/opt/softshape", "-run-axis=sometimes"); err == nil || !strings.Contains(out, "sometimes") {
		t.Errorf("-run-axis=sometimes: err %v, output %q; want an error naming the value", err, out)
	}

	// GPUs: xla:cuda unless told otherwise.
	out, err = sweepCLI(t, results, "-emit-slurm", script, "-slurm-tasks", "3", "-slurm-gpus-per-task", "1", "-slurm-binary", "/opt/softshape")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	b, _ = os.ReadFile(script)
	contains(t, string(b), "#SBATCH --gpus-per-task=1\n", "export GOMLX_BACKEND=xla:cuda\n", "-backend xla:cuda", `/3"`)

	// Shard 1 of 2 run: only shard 2 is left.
	if out, err := sweepCLI(t, results, "-shard", "1/2"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	out, err = sweepCLI(t, results, "-emit-slurm", script, "-slurm-tasks", "2", "-only-incomplete", "-slurm-binary", "/opt/softshape")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	contains(t, out, "shard 1/2: 1 cells: 1 done", "shard 2/2: 1 cells: 1 missing", "--array=2 (shards of 2)")
	b, _ = os.ReadFile(script)
	contains(t, string(b), "#SBATCH --array=2\n", `-shard "$((SLURM_ARRAY_TASK_ID))/2"`)

	var st bytes.Buffer
	if err := runStatus([]string{"-results", results, "-shards", "2"}, &st); err != nil {
		t.Fatal(err)
	}
	contains(t, st.String(), "complete   shard 1/2: 1 cells: 1 done", "INCOMPLETE shard 2/2: 1 cells: 1 missing", "incomplete shards: 2 ")

	if out, err := sweepCLI(t, results, "-shard", "2/2"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	os.Remove(script)
	out, err = sweepCLI(t, results, "-emit-slurm", script, "-slurm-tasks", "2", "-only-incomplete")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	contains(t, out, "every shard of 2 is complete")
	if _, err := os.Stat(script); err == nil {
		t.Error("a script was written for a complete sweep")
	}

	for _, bad := range [][]string{
		{"-emit-slurm", script},
		{"-emit-slurm", script, "-slurm-tasks", "2", "-shard", "1/2"},
		{"-emit-slurm", script, "-slurm-tasks", "2", "-slurm-gpus-per-task", "1", "-backend", "go"},
	} {
		if out, err := sweepCLI(t, results, bad...); err == nil {
			t.Errorf("%q accepted:\n%s", bad, out)
		} else if !strings.Contains(err.Error(), "slurm") && !strings.Contains(err.Error(), "shard") {
			t.Errorf("%q: unclear error %v", bad, err)
		}
	}
}

// bundledOnlyAbs is bundledOnly made absolute, as -emit-slurm writes it.
func bundledOnlyAbs(t *testing.T) string {
	p, err := filepath.Abs(bundledOnly(t))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestEmitSlurmKeepsUserFile: -emit-slurm does not overwrite a file that it
// did not write; it names the file and leaves it as it was.
func TestEmitSlurmKeepsUserFile(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "job.sh")
	if err := os.WriteFile(script, []byte("#!/bin/bash\nmy own job\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := sweepCLI(t, filepath.Join(dir, "results"), "-emit-slurm", script, "-slurm-tasks", "2", "-slurm-binary", "/opt/softshape")
	if err == nil || !strings.Contains(err.Error(), script) || !strings.Contains(err.Error(), "not overwriting") {
		t.Errorf("-emit-slurm over a user's file: %v\n%s", err, out)
	}
	if b, _ := os.ReadFile(script); string(b) != "#!/bin/bash\nmy own job\n" {
		t.Errorf("the user's file changed:\n%s", b)
	}
}
