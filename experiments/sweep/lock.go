package sweep

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/softshape-go/softshape/internal/checkpointdir"
)

// lockSuffix ends the lock file of a run in progress.
const lockSuffix = ".running"

// unreadableLockAge is how old an empty or unreadable lock file must be
// before it counts as stale. Locks appear with their content (see Claim); an
// empty one can only come from the fallback without hard links, whose
// creator died between creating and writing it.
const unreadableLockAge = time.Minute

// LockInfo is the content of a lock file.
type LockInfo struct {
	// PID and Hostname identify the owner; Started is when it took the lock.
	PID      int       `json:"pid"`
	Hostname string    `json:"hostname"`
	Started  time.Time `json:"started"`
	// ProcStart is the process start time in clock ticks since boot
	// (/proc/<pid>/stat), so that a reused pid is not taken for the owner.
	ProcStart string `json:"proc_start,omitempty"`
	// SlurmJob is the Slurm job of the owner ("<array job>_<task>", or the
	// job id), from the environment; empty outside Slurm. A lock of another
	// host is judged by it when the store has a foreign-lock check.
	SlurmJob string `json:"slurm_job,omitempty"`
}

// slurmJobID returns the Slurm job of this process from its environment:
// "<array job id>_<task id>" in an array task, else the job id, else "".
func slurmJobID() string {
	if a, t := os.Getenv("SLURM_ARRAY_JOB_ID"), os.Getenv("SLURM_ARRAY_TASK_ID"); a != "" && t != "" {
		return a + "_" + t
	}
	return os.Getenv("SLURM_JOB_ID")
}

// SetForeignLockCheck sets how locks written on other hosts are judged: by
// default they count as alive (a process on another machine cannot be
// checked), so a cell whose owner died there stays "running" and is skipped.
// With alive set, a lock of another host whose alive(info) is false is stale
// (removed and the cell run again), e.g. slurm.LockOwnerAlive, which asks
// Slurm whether the owner's job still exists. Call before using the store.
func (s *Store) SetForeignLockCheck(alive func(LockInfo) bool) { s.foreignAlive = alive }

// ErrBusy is returned by Claim when another live process holds the cell.
var ErrBusy = errors.New("cell is being run by another process")

// Claim is a held lock on one cell.
type Claim struct {
	path string
}

// Release removes the lock file.
func (c *Claim) Release() error {
	if err := os.Remove(c.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("releasing %s: %w", c.path, err)
	}
	return nil
}

// Claim takes the lock of cell k. The lock file is created exclusively and
// appears with its content at once: the owner's pid, host and start time are
// written to a temporary file (created with O_CREATE|O_EXCL) that is then
// hard-linked to the lock path, which fails if the lock exists; where hard
// links are not supported the lock is created with O_CREATE|O_EXCL and then
// written. When the lock exists and its owner is alive (or on another host)
// Claim returns ErrBusy; when the owner is dead on this host the stale lock
// is removed (under an flock of the folder, re-checked there) and the claim
// retried.
func (s *Store) Claim(k Key) (*Claim, error) {
	path := s.LockPath(k)
	if err := s.mkdirAll(filepath.Dir(path)); err != nil {
		return nil, err
	}
	info := LockInfo{PID: s.pid, Hostname: s.host, Started: time.Now().UTC(), ProcStart: s.procStart, SlurmJob: s.slurmJob}
	b, _ := json.Marshal(info)
	b = append(b, '\n')
	for attempt := 0; attempt < 5; attempt++ {
		created, err := s.createLock(path, b)
		if err != nil {
			return nil, err
		}
		if created {
			return &Claim{path: path}, nil
		}
		removed, err := s.removeIfStale(path)
		if err != nil {
			return nil, err
		}
		if !removed {
			if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
				continue // released meanwhile: try again
			}
			return nil, ErrBusy
		}
	}
	return nil, ErrBusy
}

// createLock creates the lock file at path holding content, exclusively; it
// returns false when the lock exists.
func (s *Store) createLock(path string, content []byte) (bool, error) {
	dir := filepath.Dir(path)
	tmp := filepath.Join(dir, fmt.Sprintf(".%s.tmp-%d-%016x@%s", filepath.Base(path), s.pid, rand.Uint64(), s.hostTag()))
	if err := writeNew(tmp, content); err != nil {
		return false, fmt.Errorf("writing lock %s: %w", path, err)
	}
	err := os.Link(tmp, path)
	os.Remove(tmp)
	switch {
	case err == nil:
		return true, syncDir(dir)
	case errors.Is(err, fs.ErrExist):
		return false, nil
	}
	// No hard links here: create the lock itself exclusively, then write it.
	if err := writeNew(path, content); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return false, nil
		}
		os.Remove(path)
		return false, fmt.Errorf("creating lock %s: %w", path, err)
	}
	return true, nil
}

// writeNew creates path with O_CREATE|O_EXCL, writes content and fsyncs it.
func writeNew(path string, content []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, werr := f.Write(content)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(path)
	}
	return werr
}

// readLock reads a lock file; ok is false when it is empty or unparsable.
func readLock(path string) (info LockInfo, raw []byte, ok bool, err error) {
	raw, err = os.ReadFile(path)
	if err != nil {
		return info, nil, false, err
	}
	if json.Unmarshal(raw, &info) != nil || info.PID <= 0 {
		return info, raw, false, nil
	}
	return info, raw, true, nil
}

// liveness describes a lock file.
type liveness int

const (
	// lockAlive: the owner runs (on this host), or is on another host.
	lockAlive liveness = iota
	// lockStale: the owner is dead on this host (or the file is unreadable
	// and old): the cell is not being run.
	lockStale
)

// lockState judges a lock file.
func (s *Store) lockState(path string, info LockInfo, ok bool) liveness {
	if !ok {
		st, err := os.Stat(path)
		if err == nil && time.Since(st.ModTime()) > unreadableLockAge {
			return lockStale
		}
		return lockAlive
	}
	if info.Hostname != s.host {
		if s.foreignAlive != nil && !s.foreignAlive(info) {
			return lockStale
		}
		return lockAlive
	}
	if info.PID == s.pid && info.ProcStart == s.procStart {
		return lockAlive
	}
	if processAlive(info.PID, info.ProcStart) {
		return lockAlive
	}
	return lockStale
}

// removeIfStale removes the lock file at path when its owner is dead,
// re-checking under an flock of the folder so that of several processes
// reclaiming one lock only one removes it (and never a fresh lock).
func (s *Store) removeIfStale(path string) (bool, error) {
	info, raw, ok, err := readLock(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading lock %s: %w", path, err)
	}
	if s.lockState(path, info, ok) != lockStale {
		return false, nil
	}
	unlock, err := lockDir(filepath.Dir(path))
	if err != nil {
		return false, err
	}
	defer unlock()
	_, raw2, _, err := readLock(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading lock %s: %w", path, err)
	}
	if string(raw2) != string(raw) {
		return false, nil // replaced by a new owner meanwhile
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("removing stale lock %s: %w", path, err)
	}
	return true, nil
}

// CleanReport lists what Clean removed.
type CleanReport struct {
	// StaleLocks and TempFiles are the paths removed.
	StaleLocks, TempFiles []string
}

// Clean removes, under <root>/<table> (every table when table is ""), the
// lock files and temporary files (and half-saved carried states, which hold
// nothing but checkpoint files) left by processes that died on this host.
// Files of live processes and of other hosts are left alone.
func (s *Store) Clean(table string) (CleanReport, error) {
	var rep CleanReport
	tables := []string{table}
	if table == "" {
		var err error
		if tables, err = s.Tables(); err != nil {
			return rep, err
		}
	}
	for _, t := range tables {
		dirs, err := filepath.Glob(filepath.Join(s.root, t, "*", "*"))
		if err != nil {
			return rep, err
		}
		dirs = append(dirs, filepath.Join(s.root, t))
		for _, dir := range dirs {
			if st, err := os.Stat(dir); err != nil || !st.IsDir() {
				continue
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					continue
				}
				return rep, fmt.Errorf("cleaning %s: %w", dir, err)
			}
			for _, e := range entries {
				path := filepath.Join(dir, e.Name())
				switch {
				case strings.HasSuffix(e.Name(), lockSuffix):
					removed, err := s.removeIfStale(path)
					if err != nil {
						return rep, err
					}
					if removed {
						rep.StaleLocks = append(rep.StaleLocks, path)
					}
				case tmpPattern.MatchString(e.Name()):
					m := tmpPattern.FindStringSubmatch(e.Name())
					pid, _ := strconv.Atoi(m[1])
					if m[2] != s.hostTag() || pid == s.pid || processAlive(pid, "") {
						continue
					}
					remove := os.Remove
					if e.IsDir() { // a carried state being saved (saveCarried)
						remove = checkpointdir.Remove
					}
					var foreign *checkpointdir.ForeignFileError
					if err := remove(path); errors.As(err, &foreign) {
						continue // not ours alone: leave it
					} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
						return rep, fmt.Errorf("removing temporary file %s: %w", path, err)
					}
					rep.TempFiles = append(rep.TempFiles, path)
				}
			}
		}
	}
	return rep, nil
}
