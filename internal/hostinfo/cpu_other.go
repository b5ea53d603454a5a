//go:build !unix

package hostinfo

import "time"

// ProcessCPU is not measured on this system (0).
func ProcessCPU() time.Duration { return 0 }
