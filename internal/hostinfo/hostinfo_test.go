package hostinfo

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/cpuid/v2"
)

func TestProcessorNamesBrandFamilyAndLevel(t *testing.T) {
	zen3 := cpuid.CPUInfo{BrandName: "  AMD   EPYC ", Family: 25, Model: 1, LogicalCores: 2}
	if got, want := processor(zen3, "amd64"), "AMD EPYC (family 25 model 1)"; got != want {
		t.Errorf("no features known: got %q, want %q", got, want)
	}
	if got, want := processor(cpuid.CPUInfo{}, "arm64"), "unknown arm64 CPU"; got != want {
		t.Errorf("nothing known: got %q, want %q", got, want)
	}
	// The machine's cores are the system's online CPUs where it lists them
	// (a VM's cpuid reports the host's), else cpuid's, at least the usable.
	if n := onlineCPUs(onlineFile); n > 0 {
		if got := logicalCores(cpuid.CPUInfo{LogicalCores: 254}, 1); got != n {
			t.Errorf("logical cores with %d online and cpuid's 254: got %d", n, got)
		}
	} else {
		if got := logicalCores(cpuid.CPUInfo{}, 3); got != 3 {
			t.Errorf("logical cores unknown: got %d, want the usable 3", got)
		}
		if got := logicalCores(zen3, 1); got != 2 {
			t.Errorf("logical cores: got %d, want 2", got)
		}
	}
	// This machine's processor: its instruction-set level as cpuid reports it.
	if runtime.GOARCH == "amd64" && cpuid.CPU.X64Level() > 0 {
		want := fmt.Sprintf("x86-64-v%d)", cpuid.CPU.X64Level())
		if got := processor(cpuid.CPU, "amd64"); !strings.HasSuffix(got, want) {
			t.Errorf("this machine: got %q, want it to end in %q", got, want)
		}
		noAVX2 := cpuid.CPU
		noAVX2.Disable(cpuid.AVX2)
		if noAVX2.X64Level() >= 3 {
			t.Errorf("without AVX2 the level is %d, want below 3", noAVX2.X64Level())
		}
	}
}

func TestCPUSaysTheCoresThisProcessMayUse(t *testing.T) {
	got := CPU()
	want := fmt.Sprintf(", %d of %d cores", runtime.NumCPU(), logicalCores(cpuid.CPU, runtime.NumCPU()))
	if !strings.HasSuffix(got, want) {
		t.Errorf("CPU() = %q, want it to end in %q", got, want)
	}
	if p := Processor(); got != p+want {
		t.Errorf("CPU() = %q, want Processor() %q and the cores", got, p)
	}
	if m := Machine(); !strings.HasPrefix(m, processor(cpuid.CPU, runtime.GOARCH)+",") || !strings.HasSuffix(m, runtime.GOOS+"/"+runtime.GOARCH) {
		t.Errorf("Machine() = %q: want the processor first and the OS/architecture last", m)
	}
}

// TestProcessorOf: a record's CPU gives back its processor; a text not in
// CPU's format is returned whole.
func TestProcessorOf(t *testing.T) {
	for _, tc := range []struct{ cpu, want string }{
		{CPU(), Processor()},
		{"AMD EPYC (family 25 model 1, x86-64-v3), 1 of 2 cores", "AMD EPYC (family 25 model 1, x86-64-v3)"},
		{"AMD EPYC (family 25 model 1, x86-64-v3)", "AMD EPYC (family 25 model 1, x86-64-v3)"},
		{"Xeon, many cores", "Xeon, many cores"},
		{"", ""},
	} {
		if got := ProcessorOf(tc.cpu); got != tc.want {
			t.Errorf("ProcessorOf(%q) = %q, want %q", tc.cpu, got, tc.want)
		}
	}
}

// TestOnlineCPUs: Linux's CPU list format, counted by hand.
func TestOnlineCPUs(t *testing.T) {
	dir := t.TempDir()
	for list, want := range map[string]int{"0-1\n": 2, "0": 1, "0-3,8-11": 8, "0,2,4-5": 4, "": 0, "a-b": 0, "3-1": 0} {
		path := filepath.Join(dir, "online")
		if err := os.WriteFile(path, []byte(list), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := onlineCPUs(path); got != want {
			t.Errorf("onlineCPUs(%q) = %d, want %d", list, got, want)
		}
	}
	if got := onlineCPUs(filepath.Join(dir, "missing")); got != 0 {
		t.Errorf("missing file: %d, want 0", got)
	}
}
