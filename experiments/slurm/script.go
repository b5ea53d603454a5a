// Package slurm runs softshape sweeps on a Slurm cluster: it writes the
// sbatch array-job script of a sweep (one array task per shard), tells which
// shards of a sweep still have cells to run (so that only those are
// resubmitted), and asks Slurm whether the job that holds a cell's lock is
// still alive.
//
// The sweep itself is experiments/sweep: every array task runs
// "softshape sweep <grid flags> -shard i/N -results DIR" into one results
// folder on a file system shared by the nodes; the store's lock files and
// atomic records make the tasks independent and resumable.
package slurm

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// ArrayJob describes the sbatch array job of one sweep.
type ArrayJob struct {
	// JobName is --job-name (default "softshape").
	JobName string
	// Shards is the number of shards N of the sweep: task i runs shard i/N.
	Shards int
	// Tasks are the array task ids (1-based shard indices) to submit; nil
	// means all of 1..Shards.
	Tasks []int
	// MaxRunning, when > 0, limits the tasks running at once (--array=...%M).
	MaxRunning int
	// Time is --time (e.g. "4:00:00"); "" leaves the partition default.
	Time string
	// CPUsPerTask is --cpus-per-task (default 1); GOMAXPROCS is set to it.
	CPUsPerTask int
	// GPUsPerTask is --gpus-per-task (0: none).
	GPUsPerTask int
	// MemPerCPU is --mem-per-cpu (e.g. "2G"); "" leaves the default.
	MemPerCPU string
	// Partition is --partition; "" leaves the cluster default.
	Partition string
	// Account is --account; "" leaves the default.
	Account string
	// Output is --output, an absolute pattern (%x job name, %A array job id,
	// %a task id). Its folder must exist: sbatch does not create it.
	Output string
	// Binary is the absolute path of the softshape binary on the nodes.
	Binary string
	// SweepArgs are the grid flags of "softshape sweep" (without -shard and
	// -results), the same for every task.
	SweepArgs []string
	// Results is the absolute results folder shared by every task.
	Results string
	// Backend is the GoMLX backend (exported as GOMLX_BACKEND and passed as
	// -backend); "" keeps the default, or xla:cuda when GPUsPerTask > 0.
	Backend string
	// Env are extra variables exported by the script ("NAME=value").
	Env []string
}

// envName matches a shell variable name.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// check validates the job and fills defaults into a copy.
func (j ArrayJob) check() (ArrayJob, error) {
	if j.JobName == "" {
		j.JobName = "softshape"
	}
	if j.CPUsPerTask == 0 {
		j.CPUsPerTask = 1
	}
	switch {
	case j.Shards < 1:
		return j, fmt.Errorf("slurm: %d shards: want at least 1", j.Shards)
	case j.CPUsPerTask < 1:
		return j, fmt.Errorf("slurm: -slurm-cpus-per-task %d: want at least 1", j.CPUsPerTask)
	case j.GPUsPerTask < 0:
		return j, fmt.Errorf("slurm: -slurm-gpus-per-task %d: want 0 or more", j.GPUsPerTask)
	case j.MaxRunning < 0:
		return j, fmt.Errorf("slurm: max running %d: want 0 or more", j.MaxRunning)
	case !filepath.IsAbs(j.Binary):
		return j, fmt.Errorf("slurm: the softshape binary path %q is not absolute", j.Binary)
	case !filepath.IsAbs(j.Results):
		return j, fmt.Errorf("slurm: the results folder %q is not absolute", j.Results)
	case j.Output != "" && !filepath.IsAbs(j.Output):
		return j, fmt.Errorf("slurm: the output pattern %q is not absolute", j.Output)
	case strings.ContainsAny(j.JobName+j.Time+j.Partition+j.Account+j.MemPerCPU+j.Output, "\n\r"):
		return j, errors.New("slurm: an option holds a line break")
	case strings.ContainsAny(j.JobName+j.Time+j.Partition+j.Account+j.MemPerCPU, " \t"):
		return j, errors.New("slurm: job name, time, partition, account and memory cannot hold spaces")
	}
	if j.GPUsPerTask > 0 {
		if j.Backend == "" {
			j.Backend = "xla:cuda"
		}
		if !strings.Contains(j.Backend, "cuda") {
			return j, fmt.Errorf("slurm: %d GPU(s) per task asked with backend %q: GPUs need a CUDA backend (xla:cuda)", j.GPUsPerTask, j.Backend)
		}
	}
	if j.Tasks == nil {
		for i := 1; i <= j.Shards; i++ {
			j.Tasks = append(j.Tasks, i)
		}
	}
	if len(j.Tasks) == 0 {
		return j, errors.New("slurm: no array task to submit")
	}
	for _, t := range j.Tasks {
		if t < 1 || t > j.Shards {
			return j, fmt.Errorf("slurm: array task %d is not a shard of 1..%d", t, j.Shards)
		}
	}
	for _, e := range j.Env {
		name, _, ok := strings.Cut(e, "=")
		if !ok || !envName.MatchString(name) {
			return j, fmt.Errorf("slurm: environment entry %q: want NAME=value", e)
		}
	}
	return j, nil
}

// ArraySpec returns the value of --array for task ids: sorted, duplicates
// dropped, runs of consecutive ids as ranges ("1-3,5,7-8").
func ArraySpec(tasks []int) string {
	ids := slices.Clone(tasks)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	var parts []string
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", ids[i], ids[j]))
		} else {
			parts = append(parts, strconv.Itoa(ids[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// ParseArraySpec reads an --array value without its "%M" throttle:
// ids, ranges "a-b" and stepped ranges "a-b:s", comma-separated.
func ParseArraySpec(s string) ([]int, error) {
	s, _, _ = strings.Cut(s, "%")
	var out []int
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		rng, stepS, hasStep := strings.Cut(p, ":")
		a, b, isRange := strings.Cut(rng, "-")
		lo, err1 := strconv.Atoi(a)
		hi, err2 := lo, error(nil)
		if isRange {
			hi, err2 = strconv.Atoi(b)
		}
		step, err3 := 1, error(nil)
		if hasStep {
			step, err3 = strconv.Atoi(stepS)
		}
		if err1 != nil || err2 != nil || err3 != nil || lo < 0 || hi < lo || step < 1 || (hasStep && !isRange) {
			return nil, fmt.Errorf("slurm: bad --array element %q", p)
		}
		for i := lo; i <= hi; i += step {
			out = append(out, i)
		}
	}
	return out, nil
}

// Quote quotes s for a POSIX shell when it holds anything but safe characters.
func Quote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Script returns the sbatch script of the job: one array task per shard,
// each running "softshape sweep <SweepArgs> -shard $SLURM_ARRAY_TASK_ID/N
// -results <Results>". N is written into the script rather than taken from
// $SLURM_ARRAY_TASK_COUNT, which counts the submitted tasks and so is wrong
// when only some shards are resubmitted.
func Script(j ArrayJob) (string, error) {
	j, err := j.check()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	line := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	line("#!/bin/bash")
	line("# softshape sweep as a Slurm array job: array task i runs shard i/%d of the grid.", j.Shards)
	line("# Written by `softshape sweep -emit-slurm`; submit with `sbatch THIS_FILE`.")
	line("#SBATCH --job-name=%s", j.JobName)
	array := ArraySpec(j.Tasks)
	if j.MaxRunning > 0 {
		array += "%" + strconv.Itoa(j.MaxRunning)
	}
	line("#SBATCH --array=%s", array)
	line("#SBATCH --ntasks=1")
	line("#SBATCH --cpus-per-task=%d", j.CPUsPerTask)
	if j.GPUsPerTask > 0 {
		line("#SBATCH --gpus-per-task=%d", j.GPUsPerTask)
	}
	if j.MemPerCPU != "" {
		line("#SBATCH --mem-per-cpu=%s", j.MemPerCPU)
	}
	if j.Time != "" {
		line("#SBATCH --time=%s", j.Time)
	}
	// SIGTERM to the sweep (the batch shell, which it replaces) two minutes
	// before the time limit: the fold in training saves its progress at the
	// end of its epoch and the sweep exits; resubmitted, it continues.
	line("#SBATCH --signal=B:TERM@%d", StopWarningSeconds)
	if j.Partition != "" {
		line("#SBATCH --partition=%s", j.Partition)
	}
	if j.Account != "" {
		line("#SBATCH --account=%s", j.Account)
	}
	if j.Output != "" {
		// sbatch reads #SBATCH lines without a shell: no quoting, no spaces.
		line("#SBATCH --output=%s", j.Output)
	}
	line("")
	line("set -euo pipefail")
	line(`if [ -z "${SLURM_ARRAY_TASK_ID:-}" ]; then`)
	line(`  echo "softshape: run this script with sbatch (it is an array job: SLURM_ARRAY_TASK_ID is unset)" >&2`)
	line("  exit 2")
	line("fi")
	line("# The Go runtime sees every core of the node without CPU binding: use the allocation.")
	line(`export GOMAXPROCS="${SLURM_CPUS_PER_TASK:-%d}"`, j.CPUsPerTask)
	if j.Backend != "" {
		line("export GOMLX_BACKEND=%s", Quote(j.Backend))
	}
	for _, e := range j.Env {
		name, value, _ := strings.Cut(e, "=")
		line("export %s=%s", name, Quote(value))
	}
	args := []string{Quote(j.Binary), "sweep"}
	for _, a := range j.SweepArgs {
		args = append(args, Quote(a))
	}
	if j.Backend != "" {
		args = append(args, "-backend", Quote(j.Backend))
	}
	args = append(args, "-shard", fmt.Sprintf(`"$((SLURM_ARRAY_TASK_ID))/%d"`, j.Shards), "-results", Quote(j.Results))
	line(`echo "softshape: array task ${SLURM_ARRAY_TASK_ID} (job ${SLURM_ARRAY_JOB_ID:-?}) on $(hostname): shard ${SLURM_ARRAY_TASK_ID}/%d"`, j.Shards)
	// One flag and its value per line.
	var cmd strings.Builder
	cmd.WriteString(args[0] + " " + args[1])
	for _, a := range args[2:] {
		if strings.HasPrefix(a, "-") {
			cmd.WriteString(" \\\n  ")
		} else {
			cmd.WriteString(" ")
		}
		cmd.WriteString(a)
	}
	line("exec %s", cmd.String())
	return b.String(), nil
}

// StopWarningSeconds is how long before its time limit a task's sweep gets
// SIGTERM (#SBATCH --signal), to stop with the progress of its fold in
// training saved (softshape sweep stops at the end of the fold's epoch).
const StopWarningSeconds = 120
