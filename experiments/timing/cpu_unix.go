//go:build unix

package timing

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user + system) used so far by this process.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
