//go:build unix

package sweep

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// procStat returns the state and start time (clock ticks since boot) of a
// process from /proc/<pid>/stat; ok is false without procfs or process.
func procStat(pid string) (state, start string, ok bool, err error) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return "", "", false, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the command name may hold spaces and parentheses
	if i < 0 {
		return "", "", false, nil
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return "", "", false, nil
	}
	return f[0], f[19], true, nil // fields 3 (state) and 22 (starttime) of proc(5)
}

// selfStart returns this process's start time in clock ticks, or "".
func selfStart() string {
	_, start, ok, _ := procStat("self")
	if !ok {
		return ""
	}
	return start
}

// processAlive reports whether process pid runs on this host. A zombie is
// dead; with procStart set, a process with that pid but another start time
// (a reused pid) is not the owner.
func processAlive(pid int, procStart string) bool {
	if pid <= 0 {
		return false
	}
	state, start, ok, err := procStat(strconv.Itoa(pid))
	if ok {
		if state == "Z" || state == "X" || state == "x" {
			return false
		}
		return procStart == "" || start == procStart
	}
	if errors.Is(err, fs.ErrNotExist) {
		if _, serr := os.Stat("/proc/self/stat"); serr == nil {
			return false // procfs works and the process is gone
		}
	}
	err = syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// lockDir takes an exclusive flock on a folder (blocking) and returns the
// function that releases it.
func lockDir(dir string) (func(), error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("locking folder %s: %w", dir, err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("locking folder %s: %w", dir, err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
