package sweep

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/softshape-go/softshape/softshape"
)

// CellState is the state of one expected cell.
type CellState string

// Cell states reported by Status.
const (
	// StateDone: an ok record exists.
	StateDone CellState = "done"
	// StateFailed: a failed record exists (training failed).
	StateFailed CellState = "failed"
	// StateInvalid: an invalid record exists (the dataset rejects the configuration).
	StateInvalid CellState = "invalid"
	// StateRunning: a lock is held by a live process (or one on another host).
	StateRunning CellState = "running"
	// StateMissing: no record and no live lock.
	StateMissing CellState = "missing"
	// StateCorrupt: a record file exists but does not parse or validate.
	StateCorrupt CellState = "corrupt"
)

// States lists the cell states in report order.
func States() []CellState {
	return []CellState{StateDone, StateRunning, StateFailed, StateInvalid, StateMissing, StateCorrupt}
}

// CellStatus is the state of one cell and its detail (the error of a failed,
// invalid or corrupt record, the owner of a running lock).
type CellStatus struct {
	// Key is the cell.
	Key Key
	// State is its state.
	State CellState
	// Detail is the error or the lock owner, and where the fold of a cell
	// without a record stopped (its saved progress, Store.ResumePath).
	Detail string
}

// TableStatus is the state of the recorded sweeps of one table and mode.
type TableStatus struct {
	// Table is the paper table; Quick the mode of its sweeps.
	Table string
	Quick bool
	// Grids are the ids of the grids merged (every shard writes the same grid).
	Grids []string
	// Total is the number of distinct expected cells; Counts per state.
	Total  int
	Counts map[CellState]int
	// Cells lists every cell that is not done, in key order.
	Cells []CellStatus
	// Blocked lists the variants that cannot run (they need model support).
	Blocked []GridVariant
}

// Status reports, for every recorded sweep of table (every table when ""),
// how many expected cells are done, running, failed, invalid or missing, and
// lists those not done. Sweeps whose shards wrote to this folder are merged.
// A grid file it cannot read does not stop it: unreadable holds one error
// per such file, naming it (ReadGrids), and the other grids are reported.
func (s *Store) Status(table string) (_ []TableStatus, unreadable []error, err error) {
	grids, unreadable, err := s.ReadGrids(table)
	if err != nil {
		return nil, nil, err
	}
	type group struct {
		table string
		quick bool
	}
	byGroup := map[group]*TableStatus{}
	seen := map[group]map[string]bool{}
	blocked := map[group]map[string]bool{}
	var order []group
	var cells = map[group][]Key{}
	for _, g := range grids {
		k := group{g.Spec.Table, g.Spec.Quick}
		ts, ok := byGroup[k]
		if !ok {
			ts = &TableStatus{Table: k.table, Quick: k.quick, Counts: map[CellState]int{}}
			byGroup[k], seen[k], blocked[k] = ts, map[string]bool{}, map[string]bool{}
			order = append(order, k)
		}
		ts.Grids = append(ts.Grids, g.ID())
		for _, v := range g.Blocked() {
			if !blocked[k][v.Name] {
				blocked[k][v.Name] = true
				ts.Blocked = append(ts.Blocked, v)
			}
		}
		for _, c := range g.Cells {
			if id := c.sortKey(); !seen[k][id] {
				seen[k][id] = true
				cells[k] = append(cells[k], c.Key)
			}
		}
	}
	sort.Slice(order, func(i, j int) bool {
		if order[i].table != order[j].table {
			return order[i].table < order[j].table
		}
		return !order[i].quick && order[j].quick
	})
	var out []TableStatus
	for _, k := range order {
		ts := byGroup[k]
		keys := cells[k]
		sort.Slice(keys, func(i, j int) bool { return keys[i].sortKey() < keys[j].sortKey() })
		ts.Total = len(keys)
		for _, key := range keys {
			cs := s.CellStatus(key)
			ts.Counts[cs.State]++
			if cs.State != StateDone {
				ts.Cells = append(ts.Cells, cs)
			}
		}
		out = append(out, *ts)
	}
	return out, unreadable, nil
}

// CellStatus returns the state of one cell.
func (s *Store) CellStatus(k Key) CellStatus {
	rec, err := s.Read(k)
	switch {
	case err == nil:
		switch rec.Status {
		case StatusOK:
			return CellStatus{Key: k, State: StateDone}
		case StatusFailed:
			return CellStatus{Key: k, State: StateFailed, Detail: rec.Error}
		default:
			return CellStatus{Key: k, State: StateInvalid, Detail: rec.Error}
		}
	case !errors.Is(err, fs.ErrNotExist):
		return CellStatus{Key: k, State: StateCorrupt, Detail: err.Error()}
	}
	st := s.lockStatus(k)
	if epoch, err := softshape.ResumeEpoch(s.ResumePath(k)); err == nil {
		saved := fmt.Sprintf("progress saved after epoch %d (the next sweep continues from it)", epoch)
		if st.State == StateRunning {
			saved = fmt.Sprintf("progress saved after epoch %d", epoch)
		}
		st.Detail = strings.TrimPrefix(st.Detail+"; "+saved, "; ")
	}
	return st
}

// lockStatus returns the state of cell k, which has no record: running or
// missing, as its lock says.
func (s *Store) lockStatus(k Key) CellStatus {
	path := s.LockPath(k)
	info, _, ok, err := readLock(path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return CellStatus{Key: k, State: StateMissing, Detail: fmt.Sprintf("unreadable lock %s: %v", path, err)}
		}
		return CellStatus{Key: k, State: StateMissing}
	}
	if s.lockState(path, info, ok) == lockStale {
		job := ""
		if info.SlurmJob != "" {
			job = fmt.Sprintf(" of Slurm job %s", info.SlurmJob)
		}
		return CellStatus{Key: k, State: StateMissing, Detail: fmt.Sprintf("stale lock of dead pid %d on %s%s (removed by the next sweep)", info.PID, info.Hostname, job)}
	}
	if !ok {
		return CellStatus{Key: k, State: StateRunning, Detail: "lock being written"}
	}
	since := ""
	if !info.Started.IsZero() {
		since = fmt.Sprintf(" since %s", info.Started.Format("2006-01-02 15:04:05Z"))
	}
	job := ""
	if info.SlurmJob != "" {
		job = fmt.Sprintf(" (Slurm job %s)", info.SlurmJob)
	}
	return CellStatus{Key: k, State: StateRunning, Detail: fmt.Sprintf("pid %d on %s%s%s", info.PID, info.Hostname, job, since)}
}

// MergeReport says what Merge did.
type MergeReport struct {
	// Copied counts records copied, Identical those already present with the
	// same content, Grids the grid files copied.
	Copied, Identical, Grids int
	// Conflicts lists records present in both folders with different content
	// (the destination's is kept).
	Conflicts []string
	// Errors lists source files that could not be read (not copied).
	Errors []error
}

// Merge copies into s every valid record and grid file of the results folder
// src that s lacks (atomically, like Write), e.g. the folders of shards run on
// different machines. Records present in both with different content are
// reported as conflicts and left as they are in s.
func (s *Store) Merge(src string) (MergeReport, error) {
	var rep MergeReport
	from := &Store{root: src, host: s.host, pid: s.pid}
	if st, err := os.Stat(src); err != nil || !st.IsDir() {
		return rep, fmt.Errorf("merge: %s is not a results folder: %v", src, err)
	}
	grids, err := from.LoadGrids("")
	if err != nil {
		return rep, fmt.Errorf("merge from %s: %w", src, err)
	}
	for _, g := range grids {
		if _, err := os.Stat(s.gridPath(g.Spec.Table, g.ID())); err == nil {
			continue
		}
		if err := s.SaveGrid(g); err != nil {
			return rep, err
		}
		rep.Grids++
	}
	err = from.Walk("", func(path string, rec *Record, err error) error {
		if err != nil {
			rep.Errors = append(rep.Errors, err)
			return nil
		}
		srcBytes, err := os.ReadFile(path)
		if err != nil {
			rep.Errors = append(rep.Errors, err)
			return nil
		}
		dst := s.RecordPath(rec.Key())
		old, err := os.ReadFile(dst)
		switch {
		case err == nil && string(old) == string(srcBytes):
			rep.Identical++
		case err == nil:
			rep.Conflicts = append(rep.Conflicts, fmt.Sprintf("%s differs from %s (kept)", path, dst))
		case errors.Is(err, fs.ErrNotExist):
			if err := s.writeAtomic(dst, srcBytes); err != nil {
				return err
			}
			rep.Copied++
		default:
			return fmt.Errorf("merge: reading %s: %w", dst, err)
		}
		return nil
	})
	return rep, err
}

// InvalidCells returns the state of each of cells that is recorded invalid
// (the dataset rejects its configuration), in the order of cells.
func (s *Store) InvalidCells(cells []Cell) []CellStatus {
	var out []CellStatus
	for _, c := range cells {
		if cs := s.CellStatus(c.Key); cs.State == StateInvalid {
			out = append(out, cs)
		}
	}
	return out
}

// CheckNotAllInvalid returns an error when every one of cells (at least
// one) is recorded invalid: such a sweep or table has nothing to show, and
// its settings are wrong, which must not read as success. The error says how
// many and why the first was rejected.
func (s *Store) CheckNotAllInvalid(cells []Cell) error {
	inv := s.InvalidCells(cells)
	if len(cells) == 0 || len(inv) < len(cells) {
		return nil
	}
	first := inv[0]
	return fmt.Errorf("all %d cells are recorded invalid, none trained: the datasets reject the configuration (e.g. %s · %s: %s); fix the settings (-set, $SOFTSHAPE_SETTINGS) and move the invalid records aside (or use another results folder) to run again",
		len(cells), first.Key.Dataset, first.Key.Variant, first.Detail)
}
