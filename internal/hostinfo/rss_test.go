package hostinfo

import (
	"runtime"
	"testing"
)

// TestPeakRSSSeesMemoryTouched: on Linux, after 64 MiB are written the
// peak resident memory is at least that much.
func TestPeakRSSSeesMemoryTouched(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("PeakRSS reads /proc/self/status (Linux)")
	}
	ResetPeakRSS()
	const size = 64 << 20
	buf := make([]byte, size)
	for i := range buf {
		buf[i] = byte(i)
	}
	got := PeakRSS()
	runtime.KeepAlive(buf)
	if got < size {
		t.Errorf("PeakRSS() = %d bytes after touching %d", got, size)
	}
}
