package hostinfo

import (
	"bufio"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
)

// ResetPeakRSS frees what the Go heap can give back and resets the kernel's
// peak-RSS counter (Linux: "5" to /proc/self/clear_refs), so that PeakRSS
// measures from now on; a no-op elsewhere.
func ResetPeakRSS() {
	runtime.GC()
	debug.FreeOSMemory()
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

// PeakRSS returns the process's peak resident memory in bytes (VmHWM from
// /proc/self/status, since the start or the last ResetPeakRSS), 0 where
// unknown.
func PeakRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			fields := strings.Fields(rest)
			if len(fields) >= 1 {
				kb, err := strconv.ParseInt(fields[0], 10, 64)
				if err == nil {
					return kb << 10
				}
			}
		}
	}
	return 0
}
