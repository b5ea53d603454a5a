// Package hostinfo describes the machine a process runs on, and what the
// process uses of it (CPU time, peak memory), for records and
// manifests that say where a run was timed: wall times from two machines of
// the same name can differ several-fold (docs/performance.md, "Speed, and what to
// compare it with").
package hostinfo

import (
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/klauspost/cpuid/v2"
)

// CPU describes the processor this process runs on and how much of it it may
// use, e.g. "AMD EPYC (family 25 model 1, x86-64-v3), 1 of 2 cores": the
// brand name, family and model, the instruction-set level (x86-64-v4 has
// AVX-512, v3 AVX2; arm64 gives its version), and the cores the process may
// run on (runtime.NumCPU, which follows its affinity mask and cpuset) of the
// machine's logical cores.
func CPU() string {
	usable := runtime.NumCPU()
	return fmt.Sprintf("%s, %d of %d cores", processor(cpuid.CPU, runtime.GOARCH), usable, logicalCores(cpuid.CPU, usable))
}

// Processor names the processor this process runs on, e.g. "AMD EPYC
// (family 25 model 1, x86-64-v3)": CPU without the cores, for a record that
// must not depend on the process's CPU affinity.
func Processor() string { return processor(cpuid.CPU, runtime.GOARCH) }

// ProcessorOf returns the processor of a CPU description in CPU's format:
// the description without its cores ("AMD EPYC (family 25 model 1,
// x86-64-v3), 1 of 2 cores" gives "AMD EPYC (family 25 model 1,
// x86-64-v3)"), so that a record's CPU compares with another's Processor.
// A text without the cores is returned as it is.
func ProcessorOf(cpu string) string {
	if i := strings.LastIndex(cpu, ", "); i >= 0 && strings.HasSuffix(cpu, " cores") {
		var usable, total int
		if n, err := fmt.Sscanf(cpu[i+2:], "%d of %d cores", &usable, &total); err == nil && n == 2 {
			return cpu[:i]
		}
	}
	return cpu
}

// Machine describes this machine for a manifest: its processor, logical
// cores, memory and OS/architecture, e.g. "AMD EPYC (family 25 model 1,
// x86-64-v3), 2 cores, 24 GiB, linux/amd64".
func Machine() string {
	s := fmt.Sprintf("%s, %d cores", processor(cpuid.CPU, runtime.GOARCH), logicalCores(cpuid.CPU, runtime.NumCPU()))
	if gib := memoryGiB(); gib > 0 {
		s += fmt.Sprintf(", %d GiB", gib)
	}
	return s + ", " + runtime.GOOS + "/" + runtime.GOARCH
}

// processor names the processor c of architecture arch: brand, family and
// model, instruction-set level, each where known.
func processor(c cpuid.CPUInfo, arch string) string {
	s := strings.Join(strings.Fields(c.BrandName), " ")
	if s == "" {
		s = "unknown " + arch + " CPU"
	}
	var id []string
	if c.Family != 0 || c.Model != 0 {
		id = append(id, fmt.Sprintf("family %d model %d", c.Family, c.Model))
	}
	switch {
	case arch == "amd64" && c.X64Level() > 0:
		id = append(id, fmt.Sprintf("x86-64-v%d", c.X64Level()))
	case arch == "arm64":
		if major, minor := c.ARM64Level(); major > 0 {
			id = append(id, fmt.Sprintf("armv%d.%d", major, minor))
		}
	}
	if len(id) > 0 {
		s += " (" + strings.Join(id, ", ") + ")"
	}
	return s
}

// logicalCores returns the machine's logical cores, at least usable: the
// CPUs the operating system has online (onlineCPUs) where it says, else those
// of c. In a virtual machine cpuid reports the host's processor (254 cores
// on a 2-core VM), so the system's count comes first.
func logicalCores(c cpuid.CPUInfo, usable int) int {
	if n := onlineCPUs(onlineFile); n > 0 {
		return max(n, usable)
	}
	return max(c.LogicalCores, usable)
}

// onlineFile lists the CPUs Linux has online, e.g. "0-1" or "0-3,8-11".
const onlineFile = "/sys/devices/system/cpu/online"

// onlineCPUs counts the CPUs of a Linux CPU list file such as onlineFile;
// 0 where it cannot be read or parsed (not Linux).
func onlineCPUs(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n := 0
	for _, part := range strings.Split(strings.TrimSpace(string(b)), ",") {
		var lo, hi int
		if _, err := fmt.Sscanf(part, "%d-%d", &lo, &hi); err == nil && hi >= lo {
			n += hi - lo + 1
		} else if _, err := fmt.Sscanf(part, "%d", &lo); err == nil && !strings.Contains(part, "-") {
			n++
		} else {
			return 0
		}
	}
	return n
}

// memoryGiB returns the machine's memory rounded to GiB from /proc/meminfo,
// 0 where it cannot be read (not Linux).
func memoryGiB() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	var kb int64
	if _, err := fmt.Sscanf(strings.SplitN(string(b), "\n", 2)[0], "MemTotal: %d kB", &kb); err != nil {
		return 0
	}
	return (kb + (1 << 19)) >> 20
}
