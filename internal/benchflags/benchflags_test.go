package benchflags

import (
	"flag"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// The flags of this test, declared as a benchmark file declares its own.
var (
	testString = String("benchflags-string", "x", "a string")
	testInt    = Int("benchflags-int", 7, "an integer")
	testCounts = Counts("benchflags-counts", "1,10", "whole numbers ≥ 1")
	testNames  = Names("benchflags-names", "GunPoint,ECG200", "names")
)

// set gives the flag name the value v for the rest of the test.
func set(t *testing.T, name, v string) {
	t.Helper()
	old := flag.Lookup(name).Value.String()
	if err := flag.Set(name, v); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { flag.Set(name, old) })
}

// fatalTB stands for the testing.TB of a getter: it records the getter's
// Fatalf and ends its goroutine, as a test's does.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Helper() {}

func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// fatal calls get and returns the message it failed with, "" if none.
func fatal[T any](t *testing.T, get func(testing.TB) T) string {
	f := &fatalTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		get(f)
	}()
	<-done
	return f.msg
}

// TestDefaults: a flag not given, or given empty, is its default.
func TestDefaults(t *testing.T) {
	for _, v := range []string{"x", ""} {
		set(t, "benchflags-string", v)
		if got := testString(t); got != "x" {
			t.Errorf("String, %q: %q, want the default", v, got)
		}
	}
	if got := testInt(t); got != 7 {
		t.Errorf("Int: %d, want the default 7", got)
	}
	if got := testCounts(t); !slices.Equal(got, []int{1, 10}) {
		t.Errorf("Counts: %v, want the default [1 10]", got)
	}
	if got := testNames(t); !slices.Equal(got, []string{"GunPoint", "ECG200"}) {
		t.Errorf("Names: %v, want the default", got)
	}
}

// TestParses: a value given is parsed item by item, each trimmed.
func TestParses(t *testing.T) {
	set(t, "benchflags-string", "y")
	if got := testString(t); got != "y" {
		t.Errorf("String: %q, want y", got)
	}
	set(t, "benchflags-int", "-12")
	if got := testInt(t); got != -12 {
		t.Errorf("Int of -12: %d", got)
	}
	set(t, "benchflags-counts", " 3, 20 ")
	if got := testCounts(t); !slices.Equal(got, []int{3, 20}) {
		t.Errorf("Counts of %q: %v, want [3 20]", " 3, 20 ", got)
	}
	set(t, "benchflags-names", "ArrowHead, Wine")
	if got := testNames(t); !slices.Equal(got, []string{"ArrowHead", "Wine"}) {
		t.Errorf("Names: %v, want [ArrowHead Wine]", got)
	}
}

// TestBadValues: a value the getter cannot parse fails the test with a
// message naming the flag.
func TestBadValues(t *testing.T) {
	check := func(name, v, msg string) {
		t.Helper()
		if !strings.HasPrefix(msg, "-"+name+": ") {
			t.Errorf("-%s=%s: failed with %q, want a message naming the flag", name, v, msg)
		}
	}
	set(t, "benchflags-int", "ten")
	check("benchflags-int", "ten", fatal(t, testInt))
	for _, bad := range []string{"0", "-1", "ten", "1,,2"} {
		set(t, "benchflags-counts", bad)
		check("benchflags-counts", bad, fatal(t, testCounts))
	}
	set(t, "benchflags-names", "GunPoint,")
	check("benchflags-names", "GunPoint,", fatal(t, testNames))
}

// TestOldVariable: the environment variable a flag replaced fails its getter
// while it is set, with a message naming both.
func TestOldVariable(t *testing.T) {
	t.Setenv("SOFTSHAPE_BENCHFLAGS_INT", "")
	if got := testInt(t); got != 7 {
		t.Errorf("Int, variable empty: %d, want the default 7", got)
	}
	t.Setenv("SOFTSHAPE_BENCHFLAGS_INT", "3")
	msg := fatal(t, testInt)
	if !strings.HasPrefix(msg, "-benchflags-int: ") || !strings.Contains(msg, "$SOFTSHAPE_BENCHFLAGS_INT") {
		t.Errorf("$SOFTSHAPE_BENCHFLAGS_INT=3: failed with %q, want a message naming it and -benchflags-int", msg)
	}
}
