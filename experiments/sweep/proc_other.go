//go:build !unix

package sweep

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// selfStart is unknown on this system.
func selfStart() string { return "" }

// processAlive reports whether process pid exists (os.FindProcess opens it).
func processAlive(pid int, _ string) bool {
	if pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	_ = p.Release()
	return true
}

// mutexName is the mutex file that lockDir creates where flock is missing.
const mutexName = ".reclaim.mutex"

// lockDir takes a folder mutex by creating a file with O_EXCL (a mutex older
// than a minute is taken for abandoned) and returns the function that
// releases it.
func lockDir(dir string) (func(), error) {
	path := filepath.Join(dir, mutexName)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			f.Close()
			return func() { os.Remove(path) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("locking folder %s: %w", dir, err)
		}
		if st, serr := os.Stat(path); serr == nil && time.Since(st.ModTime()) > time.Minute {
			os.Remove(path)
			continue
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("locking folder %s: %s held for too long", dir, path)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
