// Package benchflags declares the command-line flags of the benchmarks and
// tests of this module that take settings (-batch-r=1,10 and the like):
// `go test` hands them to the test binary, after the package list:
//
//	go test -run '^$' -bench TrainRunsProtocol -benchtime 1x ./experiments/timing/ -args -batch-r=1,10
//
// Each function declares one flag on flag.CommandLine and returns its getter.
// Call it for a package-level var of a _test.go file, so that the flag exists
// before the test binary parses its flags. A test binary panics on a name
// declared twice, so each flag is declared once per package (the test
// binaries of two packages may each declare it). The getter reads
// the flag from a test or benchmark, once the flags are parsed: a value it
// cannot parse fails the test with a message naming the flag. An empty value
// stands for the default. Names are lower case with dashes and start with the
// benchmark family (batch-r, wholerun-epochs, threads-cases).
//
// The flags replaced environment variables, each named SOFTSHAPE_ and the
// flag's name in capitals with underscores. The getter fails while that
// variable is set, so that a benchmark started the old way does not measure
// the defaults unnoticed; a new flag must therefore not map to a variable
// still in use (SOFTSHAPE_DATA and the others of environment.md).
//
// It is imported by tests only.
package benchflags

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// String declares the flag name with default def and help text usage, and
// returns its getter.
func String(name, def, usage string) func(testing.TB) string {
	p := flag.String(name, def, usage)
	return func(tb testing.TB) string {
		tb.Helper()
		if env := oldEnvVar(name); os.Getenv(env) != "" {
			tb.Fatalf("-%s: $%s is not read any more: unset it and pass the flag (go test ... -args -%s=%s)",
				name, env, name, os.Getenv(env))
		}
		if *p == "" {
			return def
		}
		return *p
	}
}

// Int declares the integer flag name (see String).
func Int(name string, def int, usage string) func(testing.TB) int {
	get := String(name, strconv.Itoa(def), usage)
	return func(tb testing.TB) int {
		tb.Helper()
		v := get(tb)
		n, err := strconv.Atoi(v)
		if err != nil {
			tb.Fatalf("-%s: %q is not an integer", name, v)
		}
		return n
	}
}

// List declares the flag name whose value is a comma-separated list (see
// String); its getter parses each item, trimmed, with parse.
func List[T any](name, def, usage string, parse func(string) (T, error)) func(testing.TB) []T {
	get := String(name, def, usage)
	return func(tb testing.TB) []T {
		tb.Helper()
		var out []T
		for _, f := range strings.Split(get(tb), ",") {
			v, err := parse(strings.TrimSpace(f))
			if err != nil {
				tb.Fatalf("-%s: %v", name, err)
			}
			out = append(out, v)
		}
		return out
	}
}

// Counts declares a List flag of whole numbers ≥ 1 (runs per graph, batch
// sizes).
func Counts(name, def, usage string) func(testing.TB) []int {
	return List(name, def, usage, count)
}

// Names declares a List flag of names (datasets, say), none of them empty.
func Names(name, def, usage string) func(testing.TB) []string {
	return List(name, def, usage, nonEmpty)
}

// oldEnvVar is the environment variable that the flag name replaced.
func oldEnvVar(name string) string {
	return "SOFTSHAPE_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// count parses a whole number ≥ 1.
func count(f string) (int, error) {
	n, err := strconv.Atoi(f)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%q is not a whole number ≥ 1", f)
	}
	return n, nil
}

// nonEmpty takes any item but an empty one.
func nonEmpty(f string) (string, error) {
	if f == "" {
		return "", errors.New("an empty item")
	}
	return f, nil
}
