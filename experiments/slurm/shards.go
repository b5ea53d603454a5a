package slurm

import (
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/softshape-go/softshape/experiments/sweep"
)

// ShardState counts the states of the cells of one shard of a grid.
type ShardState struct {
	// Shard is the shard (1-based index of Count).
	Shard sweep.Shard
	// Cells is the number of cells of the shard; Counts per state.
	Cells  int
	Counts map[sweep.CellState]int
}

// Incomplete reports whether the shard has cells that a new run of it would
// train: missing or corrupt ones, and failed ones when retryFailed (a sweep
// runs failed cells again only with -retry-failed). Running cells are not
// counted: their owner is alive.
func (s ShardState) Incomplete(retryFailed bool) bool {
	n := s.Counts[sweep.StateMissing] + s.Counts[sweep.StateCorrupt]
	if retryFailed {
		n += s.Counts[sweep.StateFailed]
	}
	return n > 0
}

// String is "shard 2/4: 3 cells: 1 done, 2 missing" (states with count 0 left out).
func (s ShardState) String() string {
	var parts []string
	for _, st := range sweep.States() {
		if s.Counts[st] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", s.Counts[st], st))
		}
	}
	if len(parts) == 0 {
		parts = append(parts, "nothing to run")
	}
	return fmt.Sprintf("shard %s: %d cells: %s", s.Shard, s.Cells, strings.Join(parts, ", "))
}

// ShardStates returns the state of each of the n shards of cells in store
// (nil store: every cell missing), shard 1 first.
func ShardStates(store *sweep.Store, cells []sweep.Cell, n int) ([]ShardState, error) {
	if n < 1 {
		return nil, fmt.Errorf("slurm: %d shards: want at least 1", n)
	}
	out := make([]ShardState, n)
	for i := range n {
		sh := sweep.Shard{Index: i + 1, Count: n}
		st := ShardState{Shard: sh, Counts: map[sweep.CellState]int{}}
		for _, c := range sh.Select(cells) {
			state := sweep.StateMissing
			if store != nil {
				state = store.CellStatus(c.Key).State
			}
			st.Counts[state]++
			st.Cells++
		}
		out[i] = st
	}
	return out, nil
}

// IncompleteTasks returns the 1-based indices of the incomplete shards.
func IncompleteTasks(states []ShardState, retryFailed bool) []int {
	var out []int
	for _, s := range states {
		if s.Incomplete(retryFailed) {
			out = append(out, s.Shard.Index)
		}
	}
	return out
}

// JobActive asks squeue whether Slurm job id (e.g. "1234" or "1234_5" for an
// array task) is pending, running or being finished. known is false when
// squeue cannot say (not installed, controller unreachable): callers must then
// treat the job as alive.
func JobActive(id string) (active, known bool) {
	out, err := exec.Command("squeue", "-h", "-j", id, "-o", "%T").CombinedOutput()
	text := strings.TrimSpace(string(out))
	if err != nil {
		// squeue exits 1 with "Invalid job id specified" once the job has left
		// the controller's memory (MinJobAge after its end).
		if strings.Contains(strings.ToLower(text), "invalid job id") {
			return false, true
		}
		return false, false
	}
	return jobStatesActive(text), true
}

// jobStatesActive reads squeue's %T column: one state per job line.
func jobStatesActive(text string) bool {
	for _, st := range strings.Fields(text) {
		switch strings.ToUpper(st) {
		case "PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "SUSPENDED", "REQUEUED", "RESIZING", "SIGNALING", "STAGE_OUT", "STOPPED", "REQUEUE_HOLD", "REQUEUE_FED", "RESV_DEL_HOLD":
			return true
		}
	}
	return false
}

// LockOwnerAlive is a sweep.Store foreign-lock check (Store.SetForeignLockCheck):
// a lock written on another host by a Slurm job is alive while squeue says
// the job is, and stale once Slurm reports it gone. Without squeue (or when it
// fails) the lock is taken as alive. Answers are cached for a few seconds.
func LockOwnerAlive() func(sweep.LockInfo) bool {
	if _, err := exec.LookPath("squeue"); err != nil {
		return nil
	}
	type answer struct {
		alive bool
		at    time.Time
	}
	var mu sync.Mutex
	cache := map[string]answer{}
	return func(info sweep.LockInfo) bool {
		if info.SlurmJob == "" {
			return true
		}
		mu.Lock()
		defer mu.Unlock()
		if a, ok := cache[info.SlurmJob]; ok && time.Since(a.at) < 10*time.Second {
			return a.alive
		}
		active, known := JobActive(info.SlurmJob)
		alive := active || !known
		cache[info.SlurmJob] = answer{alive, time.Now()}
		return alive
	}
}
