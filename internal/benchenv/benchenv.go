// Package benchenv reads the settings that benchmarks take from the
// environment (SOFTSHAPE_BATCH_R=1,10 and the like): the benchmarks of
// package softshape and of experiments/timing share it. A bad value fails
// the benchmark with a message naming the variable. It is imported by tests
// only.
package benchenv

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Or returns the environment variable name, def when it is unset or empty.
func Or(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// Int reads the integer environment variable name, def when it is unset.
func Int(tb testing.TB, name string, def int) int {
	tb.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		tb.Fatalf("%s=%q: %v", name, v, err)
	}
	return n
}

// List parses the comma-separated environment variable name (def when
// unset) with parse, each item trimmed; a bad item fails the benchmark.
func List[T any](tb testing.TB, name, def string, parse func(string) (T, error)) []T {
	tb.Helper()
	var out []T
	for _, f := range strings.Split(Or(name, def), ",") {
		v, err := parse(strings.TrimSpace(f))
		if err != nil {
			tb.Fatalf("%s: %v", name, err)
		}
		out = append(out, v)
	}
	return out
}

// Count parses a whole number ≥ 1 (runs per graph, a batch size), for List.
func Count(f string) (int, error) {
	n, err := strconv.Atoi(f)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%q is not a whole number ≥ 1", f)
	}
	return n, nil
}
