package main

import (
	"flag"
	"fmt"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/softshape"
)

// execParts says which flags of softshape.Execution a command declares
// besides -backend, -data and -offline, by their help: a flag whose help is
// "" is not declared (Graphs declares -max-runs, -run-axis and
// -stopped-runs).
type execParts struct {
	// Data is -data's help ("": dataRootHelp).
	Data string
	// Workers is -workers' help.
	Workers string
	// Graphs declares -max-runs (maxRunsHelp, then MaxRunsMore),
	// -run-axis and -stopped-runs.
	Graphs      bool
	MaxRunsMore string
	// Fast is -fast's help.
	Fast string
}

// execFlags are the flags of softshape.Execution, how a command runs: the
// one options type that the sweeps, the notebooks and the fidelity
// benchmark take too.
type execFlags struct {
	e       softshape.Execution
	parts   execParts
	stopped string
}

// addExecFlags declares on fs -backend, -data, -offline and the flags of
// parts, which fill an Execution (execution).
func addExecFlags(fs *flag.FlagSet, parts execParts) *execFlags {
	x := &execFlags{parts: parts, e: softshape.Execution{RunAxis: softshape.RunAxisAuto}}
	if parts.Data == "" {
		parts.Data = dataRootHelp
	}
	fs.StringVar(&x.e.BackendName, "backend", "", backendHelp)
	fs.StringVar(&x.e.DataRoot, "data", data.DefaultRoot(), parts.Data)
	fs.BoolVar(&x.e.Offline, "offline", false, offlineHelp)
	if parts.Workers != "" {
		fs.IntVar(&x.e.Workers, "workers", 0, parts.Workers)
	}
	if parts.Graphs {
		fs.IntVar(&x.e.MaxRuns, "max-runs", 0, maxRunsHelp+parts.MaxRunsMore)
		fs.Var((*runAxisFlag)(&x.e.RunAxis), "run-axis", runAxisHelp)
		fs.StringVar(&x.stopped, "stopped-runs", "leave", stoppedRunsHelp)
	}
	if parts.Fast != "" {
		fs.BoolVar(&x.e.Fast, "fast", false, parts.Fast)
	}
	return x
}

// execution returns the Execution the flags give, its BackendName the one
// the command runs on (cliBackend). A negative -workers or -max-runs, and a
// -stopped-runs other than leave or ride, are errors naming the flag.
// -stopped-runs is deprecated and without effect: the library's
// stopped-runs policies changed nothing once runs shared a graph only on a
// run axis, and are gone; the flag is checked so that a typo still fails,
// and otherwise ignored.
func (x *execFlags) execution() (softshape.Execution, error) {
	e := x.e
	if e.Workers < 0 {
		return e, fmt.Errorf("-workers %d: want 0 (automatic) or a positive number", e.Workers)
	}
	if e.MaxRuns < 0 {
		return e, fmt.Errorf("-max-runs %d: want 0 (the backend's default) or a positive number of runs", e.MaxRuns)
	}
	switch x.stopped {
	case "", "leave", "ride":
	default:
		return e, fmt.Errorf("-stopped-runs: stopped runs %q: want leave or ride (deprecated, without effect)", x.stopped)
	}
	e.BackendName = cliBackend(e.BackendName)
	return e, nil
}
