package sweep

import (
	"context"
	"fmt"
	"github.com/softshape-go/softshape/softshape"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Environment of the helper process (TestHelperProcess).
const (
	helperEnv     = "SOFTSHAPE_SWEEP_HELPER" // "train" (real tiny training), "batched" (the same, 3 runs per graph) or "fake"
	helperRootEnv = "SOFTSHAPE_SWEEP_HELPER_ROOT"
	helperLogEnv  = "SOFTSHAPE_SWEEP_HELPER_LOG" // file that gets one line per execution
)

// crashSettings make a run long enough to be killed in the middle.
const crashSettings = "embed_dim=16;epochs=30;warmup_epochs=15"

// helperGrid is the grid of the helper process for a mode.
func helperGrid(t testing.TB, mode string) *Grid {
	if mode == "fake" {
		return mustGrid(t, GridSpec{Table: "stride_q", Datasets: []string{"CBF-a", "CBF-b"}, Folds: []int{1, 2, 3, 4, 5},
			Seeds: []int64{1, 2}, Settings: tinySettings})
	}
	// 2 datasets × 2 folds × 3 variants of small training runs (≈0.4 s each).
	return mustGrid(t, GridSpec{Table: "ablation", Datasets: []string{"CBF-a", "CBF-b"}, Folds: []int{1, 2},
		Variants: []string{"SoftShape", "w/o Intra", "w/o Inter"}, Seeds: []int64{42}, Settings: crashSettings})
}

// TestHelperProcess is not a test: it is the sweep process that the crash and
// cross-process tests start (and kill) with the environment set.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		return
	}
	s, err := Open(os.Getenv(helperRootEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	// Widen the window between writing a temporary file and renaming it, so
	// that some kills land there.
	s.beforeRename = func(string) { time.Sleep(20 * time.Millisecond) }
	r := &Runner{Execution: softshape.Execution{Workers: 2}, Store: s, Load: cbfLoader, NoReuse: true}
	switch mode {
	case "fake":
		r.Train = fakeTrain(5 * time.Millisecond)
	case "batched":
		r.MaxRuns = 3
	}
	if log := os.Getenv(helperLogEnv); log != "" {
		r.OnExecute = func(k Key) {
			f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
			if err == nil {
				fmt.Fprintf(f, "%d %s\n", os.Getpid(), k.RelPath())
				f.Close()
			}
		}
	}
	g := helperGrid(t, mode)
	if err := s.SaveGrid(g); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	rep, err := r.Run(context.Background(), g.Cells)
	if err != nil || len(rep.Errors) > 0 {
		fmt.Fprintln(os.Stderr, err, rep.Errors)
		os.Exit(3)
	}
	os.Exit(0)
}

// helperCmd returns the command that runs the helper process on root.
func helperCmd(mode, root, log string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode, helperRootEnv+"="+root, helperLogEnv+"="+log)
	return cmd
}

// TestCrashSafety kills a sweep process with SIGKILL at random moments, each
// time after it has made progress, resumes, and finally checks that every cell
// has exactly one complete record and no lock or temporary file is left: for
// cells trained one at a time and for cells trained three to a graph
// (Runner.MaxRuns), whose records are written together when their group ends.
func TestCrashSafety(t *testing.T) {
	for _, mode := range []string{"train", "batched"} {
		t.Run(mode, func(t *testing.T) { crashSafety(t, mode) })
	}
}

func crashSafety(t *testing.T, mode string) {
	s := openStore(t)
	g := helperGrid(t, mode)
	log := s.Root() + ".log"
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	kills, partial, tmpLeft := 0, 0, 0
	lastPID := 0
	for attempt := 0; attempt < 10; attempt++ {
		before := len(recordFiles(t, s.Root()))
		if before == len(g.Cells) {
			break
		}
		cmd := helperCmd(mode, s.Root(), log)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		t.Cleanup(func() { cmd.Process.Kill() }) // if the test stops early
		// Wait for progress (a new record), then kill after a random delay.
		// A helper that never progresses hangs the test until go test's
		// -timeout: no time limit here, which a loaded machine would break.
		finished := false
		for !finished && len(recordFiles(t, s.Root())) == before {
			select {
			case err := <-exited:
				if len(recordFiles(t, s.Root())) == before {
					t.Fatalf("helper exited without making progress: %v", err)
				}
				finished = true
			case <-time.After(10 * time.Millisecond):
			}
		}
		if finished {
			continue
		}
		time.Sleep(time.Duration(rng.IntN(200)) * time.Millisecond)
		if err := cmd.Process.Signal(syscall.SIGKILL); err == nil {
			if err := <-exited; err != nil {
				kills++
				lastPID = cmd.Process.Pid
			}
		} else {
			<-exited
		}
		for _, l := range leftovers(t, s.Root()) {
			if !strings.HasSuffix(l, lockSuffix) {
				tmpLeft++
			}
		}
		if n := len(recordFiles(t, s.Root())); n > 0 && n < len(g.Cells) {
			partial++
		}
	}
	if kills < 3 || partial < 3 {
		t.Errorf("only %d kills (%d with a partial sweep): the test did not exercise crashes", kills, partial)
	}
	// Whatever the kills hit, plant what a kill between the rename of a record
	// and the release of its lock, and one during a write, leave behind.
	if lastPID > 0 {
		var done Key
		for _, c := range g.Cells {
			if _, err := s.Read(c.Key); err == nil {
				done = c.Key
				break
			}
		}
		writeLock(t, s, done, LockInfo{PID: lastPID, Hostname: s.host, Started: time.Now()})
		tmp := filepath.Join(filepath.Dir(s.RecordPath(done)), fmt.Sprintf(".%s.tmp-%d-00ff@%s", filepath.Base(s.RecordPath(done)), lastPID, s.hostTag()))
		if err := os.WriteFile(tmp, []byte(`{"schema":`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The final, clean run.
	if out, err := helperCmd(mode, s.Root(), log).CombinedOutput(); err != nil {
		t.Fatalf("final run: %v\n%s", err, out)
	}
	files := recordFiles(t, s.Root())
	if len(files) != len(g.Cells) {
		t.Errorf("%d record files for %d cells: %v", len(files), len(g.Cells), files)
	}
	for _, c := range g.Cells {
		rec, err := s.Read(c.Key)
		if err != nil {
			t.Errorf("%s: %v", c.Key, err)
			continue
		}
		if rec.Status != StatusOK || rec.EpochsRun != 30 || rec.Params <= 0 {
			t.Errorf("%s: incomplete record %+v", c.Key, rec)
		}
		if mode == "batched" && rec.BatchRuns < 1 {
			t.Errorf("%s: batch_runs %d in a batched sweep", c.Key, rec.BatchRuns)
		}
	}
	if l := leftovers(t, s.Root()); len(l) != 0 {
		t.Errorf("lock or temporary files left: %v", l)
	}
	b, _ := os.ReadFile(log)
	t.Logf("%d kills (%d mid-sweep, %d temporary files left by them), %d executions for %d cells", kills, partial, tmpLeft, strings.Count(string(b), "\n"), len(g.Cells))
}

// TestConcurrentProcessesRunEachCellOnce: two sweep processes started at once
// on one folder never both run a cell.
func TestConcurrentProcessesRunEachCellOnce(t *testing.T) {
	s := openStore(t)
	log := s.Root() + ".log"
	cmds := []*exec.Cmd{helperCmd("fake", s.Root(), log), helperCmd("fake", s.Root(), log)}
	for _, c := range cmds {
		c.Stderr = os.Stderr
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	runs := map[string]int{}
	pids := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		pid, path, _ := strings.Cut(line, " ")
		runs[path]++
		pids[pid]++
	}
	g := helperGrid(t, "fake")
	for _, c := range g.Cells {
		if n := runs[c.RelPath()]; n != 1 {
			t.Errorf("%s ran %d times", c.Key, n)
		}
	}
	if len(runs) != len(g.Cells) || len(pids) != 2 {
		t.Errorf("%d cells run by %d processes (%v), want %d by 2", len(runs), len(pids), pids, len(g.Cells))
	}
	if l := leftovers(t, s.Root()); len(l) != 0 {
		t.Errorf("left over: %v", l)
	}
}
