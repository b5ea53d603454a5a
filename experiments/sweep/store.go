package sweep

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/softshape-go/softshape/internal/buildinfo"
	"github.com/softshape-go/softshape/internal/hostinfo"
)

// DefaultRoot is the results folder used when none is given.
const DefaultRoot = "results"

// Store is a results folder: one JSON record per finished run, lock files for
// runs in progress, and the grid files of the sweeps. Any number of Stores,
// in one process or several, may use one folder at once.
type Store struct {
	root string
	host string
	// cpu describes the processor (hostinfo.CPU), written into records.
	cpu string
	// build is the revision of the running binary (buildinfo.Revision),
	// written into records; "" when the binary carries none.
	build string
	pid   int
	// procStart identifies this process beside its pid (see lockInfo).
	procStart string
	// slurmJob is this process's Slurm job ("" outside Slurm), written into
	// its locks; foreignAlive judges locks of other hosts (nil: alive).
	slurmJob     string
	foreignAlive func(LockInfo) bool
	// beforeRename, when set (tests), runs between writing and renaming a
	// temporary file.
	beforeRename func(path string)
}

// Open returns the store at root, creating the folder if needed.
func Open(root string) (*Store, error) {
	if root == "" {
		root = DefaultRoot
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("results folder %s: %w", root, err)
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown-host"
	}
	return &Store{root: root, host: host, cpu: hostinfo.CPU(), build: buildinfo.Revision(), pid: os.Getpid(), procStart: selfStart(), slurmJob: slurmJobID()}, nil
}

// Root returns the results folder.
func (s *Store) Root() string { return s.root }

// RecordPath returns the record file of k.
func (s *Store) RecordPath(k Key) string { return filepath.Join(s.root, k.RelPath()) }

// LockPath returns the lock file of k (present while a run is in progress).
func (s *Store) LockPath(k Key) string {
	return filepath.Join(s.root, k.Dir(), k.base()+lockSuffix)
}

// Read returns the record of k. A missing record is an error matching
// fs.ErrNotExist; a record that does not parse or validate is an error naming
// the file.
func (s *Store) Read(k Key) (*Record, error) {
	r, err := s.readFile(s.RecordPath(k))
	if err != nil {
		return nil, err
	}
	if r.Key() != k {
		return nil, unusableRecord(s.RecordPath(k), fmt.Errorf("holds %s, not %s", r.Key(), k))
	}
	return r, nil
}

// readFile reads and validates one record file.
func (s *Store) readFile(path string) (*Record, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r, err := decodeRecord(b)
	if err != nil {
		var head struct {
			Schema int `json:"schema"`
		}
		if json.Unmarshal(b, &head) == nil && head.Schema > SchemaVersion {
			return nil, fmt.Errorf("record %s: schema %d, written by a newer softshape (this one reads schema %d): "+
				"use that newer softshape, or move it aside (e.g. rename it to %s.bad) to have softshape sweep run the cell again",
				path, head.Schema, SchemaVersion, filepath.Base(path))
		}
		return nil, unusableRecord(path, err)
	}
	return r, nil
}

// unusableRecord is the error of a record file that exists but cannot be
// used: it says what is wrong and what to do, since a sweep never overwrites
// a record (its cell fails until the file is moved aside).
func unusableRecord(path string, err error) error {
	return fmt.Errorf("record %s: %w; softshape sweep never overwrites a record: "+
		"move it aside (e.g. rename it to %s.bad) to have the cell run again", path, err, filepath.Base(path))
}

// Write validates r and writes it atomically at its key's path, replacing an
// earlier record of the same key.
func (s *Store) Write(r *Record) error {
	if err := r.Validate(); err != nil {
		return fmt.Errorf("record of %s: %w", r.Key(), err)
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("record of %s: %w", r.Key(), err)
	}
	return s.writeAtomic(s.RecordPath(r.Key()), append(b, '\n'))
}

// tmpPattern matches the temporary files of writeAtomic:
// .<name>.tmp-<pid>-<random>@<host>.
var tmpPattern = regexp.MustCompile(`^\..+\.tmp-(\d+)-[0-9a-f]+@(.+)$`)

// hostTag is the host name as written in temporary file names.
func (s *Store) hostTag() string {
	return strings.Map(func(r rune) rune {
		if r == '@' || r == '/' || r == '\\' || r < ' ' {
			return '_'
		}
		return r
	}, s.host)
}

// tmpPath returns a new temporary name beside path, of this process
// (tmpPattern), under which path is written before being renamed into place.
func (s *Store) tmpPath(path string) string {
	return filepath.Join(filepath.Dir(path), fmt.Sprintf(".%s.tmp-%d-%016x@%s", filepath.Base(path), s.pid, rand.Uint64(), s.hostTag()))
}

// writeAtomic writes data to path so that path is either absent, its old
// content, or the complete new content: a temporary file in the same folder,
// fsync, rename over path, fsync of the folder.
func (s *Store) writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := s.mkdirAll(dir); err != nil {
		return err
	}
	tmp := s.tmpPath(path)
	if err := writeNew(tmp, data); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if s.beforeRename != nil {
		s.beforeRename(path)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return syncDir(dir)
}

// mkdirAll creates dir and fsyncs the parent of every folder it creates, so
// that a new record's folder survives a crash.
func (s *Store) mkdirAll(dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	parent := filepath.Dir(dir)
	if parent != dir {
		if err := s.mkdirAll(parent); err != nil {
			return err
		}
	}
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	return syncDir(parent)
}

// syncDir fsyncs a folder so that renames and new entries in it are durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("syncing folder %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return fmt.Errorf("syncing folder %s: %w", dir, err)
	}
	return nil
}

// recordName matches record file names.
var recordName = regexp.MustCompile(`^fold\d+-seed-?\d+-[0-9a-f]{` + strconv.Itoa(HashLen) + `}\.json$`)

// Walk calls fn for every record file under <root>/<table> (every table when
// table is ""), in lexical order, with the record or the error reading it.
// A record whose path does not match its key is an error too.
func (s *Store) Walk(table string, fn func(path string, r *Record, err error) error) error {
	tables := []string{table}
	if table == "" {
		var err error
		if tables, err = s.Tables(); err != nil {
			return err
		}
	}
	for _, t := range tables {
		files, err := filepath.Glob(filepath.Join(s.root, t, "*", "*", "*.json"))
		if err != nil {
			return err
		}
		for _, path := range files {
			if !recordName.MatchString(filepath.Base(path)) {
				continue
			}
			r, err := s.readFile(path)
			if err == nil {
				if want := filepath.Join(s.root, r.Key().RelPath()); filepath.Clean(path) != want {
					err = fmt.Errorf("record %s holds %s, which belongs at %s", path, r.Key(), want)
					r = nil
				}
			}
			if err := fn(path, r, err); err != nil {
				return err
			}
		}
	}
	return nil
}

// Tables returns the table folders present in the store, sorted.
func (s *Store) Tables() ([]string, error) {
	entries, err := os.ReadDir(s.root)
	if err != nil {
		return nil, fmt.Errorf("results folder %s: %w", s.root, err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, e.Name())
		}
	}
	return out, nil
}
