package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/softshape-go/softshape/experiments/slurm"
	"github.com/softshape-go/softshape/experiments/sweep"
	"github.com/softshape-go/softshape/softshape"
)

// slurmFlags are the flags of "softshape sweep -emit-slurm".
type slurmFlags struct {
	emit, timeLimit, partition, account, memPerCPU, output, jobName, binary, env *string
	tasks, cpus, gpus, maxRunning                                                *int
	onlyIncomplete, submit                                                       *bool
}

// addSlurmFlags declares the -emit-slurm and -slurm-* flags on fs.
func addSlurmFlags(fs *flag.FlagSet) slurmFlags {
	return slurmFlags{
		emit:           fs.String("emit-slurm", "", "write the sbatch array-job script of this sweep to FILE (one array task per shard) and stop: nothing is trained"),
		tasks:          fs.Int("slurm-tasks", 0, "with -emit-slurm: number of shards N = array tasks; task i runs -shard i/N (required)"),
		timeLimit:      fs.String("slurm-time", "", "with -emit-slurm: --time of each task, e.g. 4:00:00 (default: the partition's)"),
		cpus:           fs.Int("slurm-cpus-per-task", 1, "with -emit-slurm: --cpus-per-task (GOMAXPROCS is set to it; with the default -workers 0 a pure-Go task trains one cell per CPU at once)"),
		gpus:           fs.Int("slurm-gpus-per-task", 0, "with -emit-slurm: --gpus-per-task; > 0 selects -backend xla:cuda unless -backend says otherwise"),
		partition:      fs.String("slurm-partition", "", "with -emit-slurm: --partition (default: the cluster's)"),
		account:        fs.String("slurm-account", "", "with -emit-slurm: --account"),
		memPerCPU:      fs.String("slurm-mem-per-cpu", "", "with -emit-slurm: --mem-per-cpu, e.g. 2G"),
		output:         fs.String("slurm-output", "", "with -emit-slurm: --output pattern of the task logs (%x job name, %A job id, %a task id; its folder must exist) (default ./slurm-%x-%A_%a.out, made absolute)"),
		jobName:        fs.String("slurm-job-name", "", "with -emit-slurm: --job-name (default softshape-TABLE)"),
		maxRunning:     fs.Int("slurm-max-running", 0, "with -emit-slurm: run at most this many tasks at once (--array=...%M; 0: no limit)"),
		binary:         fs.String("slurm-binary", "", "with -emit-slurm: the softshape binary the tasks run, as seen from the nodes (default: this binary's absolute path)"),
		env:            fs.String("slurm-env", "", "with -emit-slurm: comma-separated NAME=value exported by the script, e.g. PJRT_PLUGIN_LIBRARY_PATH=/opt/pjrt"),
		onlyIncomplete: fs.Bool("only-incomplete", false, "with -emit-slurm: put in --array only the shards that still have missing (or, with -retry-failed, failed) cells in -results"),
		submit:         fs.Bool("slurm-submit", false, "with -emit-slurm: submit the script with sbatch after writing it"),
	}
}

// slurmSweep is what emitSlurm needs of the parsed sweep flags.
type slurmSweep struct {
	spec                  sweep.GridSpec
	grid                  *sweep.Grid
	folds, seeds, results string
	// exec is how the tasks run, as the flags gave it (its BackendName
	// the -backend flag's value).
	exec                 softshape.Execution
	retryFailed, noReuse bool
	// saveProgress is -save-progress (passed on when not the default).
	saveProgress time.Duration
}

// sweepArgs returns the grid flags that make every task compute the same
// grid: the resolved dataset list and absolute paths.
func (s slurmSweep) sweepArgs() ([]string, error) {
	args := []string{"-table", s.spec.Table, "-datasets", strings.Join(s.spec.Datasets, ","), "-folds", s.folds, "-seeds", s.seeds}
	if s.spec.Variants != nil {
		args = append(args, "-variants", strings.Join(s.spec.Variants, ","))
	}
	if s.spec.Quick {
		args = append(args, "-quick")
	}
	if s.spec.Settings != "" {
		args = append(args, "-set", s.spec.Settings)
	}
	if s.exec.DataRoot != "" {
		d, err := filepath.Abs(s.exec.DataRoot)
		if err != nil {
			return nil, err
		}
		args = append(args, "-data", d)
	}
	if s.exec.Offline {
		args = append(args, "-offline")
	}
	// 0, the default, is left out: each task then chooses automatically for
	// its own CPUs (GOMAXPROCS, which the script sets to
	// $SLURM_CPUS_PER_TASK); an explicit -workers N (1 included) is passed on.
	if s.exec.Workers != 0 {
		args = append(args, "-workers", strconv.Itoa(s.exec.Workers))
	}
	if s.exec.MaxRuns != 0 {
		args = append(args, "-max-runs", strconv.Itoa(s.exec.MaxRuns))
	}
	// -stopped-runs is accepted and ignored (execFlags): not passed on.
	if s.exec.RunAxis != "" && s.exec.RunAxis != softshape.RunAxisAuto {
		args = append(args, "-run-axis="+string(s.exec.RunAxis))
	}
	if s.exec.Fast {
		args = append(args, "-fast")
	}
	if s.retryFailed {
		args = append(args, "-retry-failed")
	}
	if s.noReuse {
		args = append(args, "-no-reuse")
	}
	if s.saveProgress != softshape.DefaultResumeEvery {
		args = append(args, "-save-progress="+s.saveProgress.String())
	}
	return args, nil
}

// emitSlurm writes the sbatch script of the sweep (and submits it with
// -slurm-submit). It reads the results folder only for -only-incomplete and
// creates nothing but the script.
func emitSlurm(w io.Writer, f slurmFlags, s slurmSweep) error {
	if *f.tasks < 1 {
		return errors.New("-emit-slurm needs -slurm-tasks N (the number of shards, one array task each)")
	}
	results, err := filepath.Abs(s.results)
	if err != nil {
		return err
	}
	binary := *f.binary
	if binary == "" {
		if binary, err = os.Executable(); err != nil {
			return fmt.Errorf("-emit-slurm: cannot find this binary (give -slurm-binary): %w", err)
		}
	}
	if binary, err = filepath.Abs(binary); err != nil {
		return err
	}
	output := *f.output
	if output == "" {
		output = "slurm-%x-%A_%a.out"
	}
	if output, err = filepath.Abs(output); err != nil {
		return err
	}
	args, err := s.sweepArgs()
	if err != nil {
		return err
	}
	name := *f.jobName
	if name == "" {
		name = "softshape-" + s.spec.Table
	}
	job := slurm.ArrayJob{JobName: name, Shards: *f.tasks, MaxRunning: *f.maxRunning, Time: *f.timeLimit,
		CPUsPerTask: *f.cpus, GPUsPerTask: *f.gpus, MemPerCPU: *f.memPerCPU, Partition: *f.partition, Account: *f.account,
		Output: output, Binary: binary, SweepArgs: args, Results: results, Backend: s.exec.BackendName, Env: sweep.SplitList(*f.env)}
	if *f.onlyIncomplete {
		var store *sweep.Store
		if st, err := os.Stat(results); err == nil && st.IsDir() {
			if store, err = sweep.Open(results); err != nil {
				return err
			}
			store.SetForeignLockCheck(slurm.LockOwnerAlive())
		}
		states, err := slurm.ShardStates(store, s.grid.Cells, *f.tasks)
		if err != nil {
			return err
		}
		for _, st := range states {
			fmt.Fprintf(w, "  %s\n", st)
		}
		job.Tasks = slurm.IncompleteTasks(states, s.retryFailed)
		if len(job.Tasks) == 0 {
			fmt.Fprintf(w, "every shard of %d is complete (or running) in %s: no script written, nothing submitted\n", *f.tasks, results)
			return nil
		}
	}
	script, err := slurm.Script(job)
	if err != nil {
		return err
	}
	if err := checkOwnScript(*f.emit); err != nil {
		return err
	}
	if err := os.WriteFile(*f.emit, []byte(script), 0o755); err != nil {
		return fmt.Errorf("-emit-slurm: %w", err)
	}
	fmt.Fprintf(w, "wrote %s: Slurm array job %q, --array=%s (shards of %d), results in %s\n", *f.emit, name,
		slurm.ArraySpec(arrayTasks(job)), *f.tasks, results)
	if !*f.submit {
		fmt.Fprintf(w, "submit with: sbatch %s\n", *f.emit)
		return nil
	}
	out, err := exec.Command("sbatch", "--parsable", *f.emit).CombinedOutput()
	if err != nil {
		return fmt.Errorf("sbatch %s: %v: %s", *f.emit, err, strings.TrimSpace(string(out)))
	}
	fmt.Fprintf(w, "submitted job %s\n", strings.TrimSpace(string(out)))
	return nil
}

// arrayTasks returns the task ids of the job (all shards when Tasks is nil).
func arrayTasks(j slurm.ArrayJob) []int {
	if j.Tasks != nil {
		return j.Tasks
	}
	var out []int
	for i := 1; i <= j.Shards; i++ {
		out = append(out, i)
	}
	return out
}

// scriptMarker is a line of every script that slurm.Script writes.
const scriptMarker = "Written by `softshape sweep -emit-slurm`"

// checkOwnScript refuses to overwrite a file at path unless it is a script
// that -emit-slurm wrote earlier: a user's own file there is left alone.
func checkOwnScript(path string) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("-emit-slurm %s: %w", path, err)
	}
	if !bytes.Contains(b, []byte(scriptMarker)) {
		return fmt.Errorf("-emit-slurm %s: the file exists and was not written by softshape sweep -emit-slurm; not overwriting it (choose another path)", path)
	}
	return nil
}
