package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/softshape-go/softshape/softshape"
)

// progressInterval is the least time between two progress lines when the
// progress does not go to a terminal.
const progressInterval = 10 * time.Second

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// trainProgress shows the progress of softshape.Train on w. On a terminal it
// is a progress bar redrawn in place; elsewhere (a file, a pipe, a batch
// job's log) it writes plain lines: one per finished fold and at most one
// progress line every interval, so that a log holds no redraws.
type trainProgress struct {
	w        io.Writer
	label    string // "folds 1-5", for folds trained together
	together bool   // the folds advance together (one graph)
	total    int    // epochs of every fold together, for the shared bar
	tty      bool
	bar      *progressbar.ProgressBar

	// Plain lines.
	interval time.Duration
	now      func() time.Time
	last     time.Time // of the last progress line, or of the start
	current  int       // fold of the last epoch seen; -1 before the first
	folds    map[int]*foldProgress
}

// foldProgress is what the plain lines say about one fold.
type foldProgress struct {
	last               softshape.EpochStats
	bestVal            float64
	bestEpoch          int
	selected, reported bool
}

// newTrainProgress returns the progress of a training on w: of folds trained
// together as one (label "folds 1-5", epochs the limit of each fold, n the
// number of folds) when together, else of one fold after the other.
func newTrainProgress(w io.Writer, together bool, label string, epochs, n int) *trainProgress {
	p := &trainProgress{w: w, label: label, together: together, total: epochs * n, tty: isTerminal(w),
		interval: progressInterval, now: time.Now, current: -1, folds: map[int]*foldProgress{}}
	p.last = p.now()
	if p.tty && together {
		p.bar = progressbar.NewOptions(p.total, progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription(label), progressbar.OptionShowCount(), progressbar.OptionClearOnFinish())
	}
	return p
}

// epoch records one finished epoch (softshape.RunOptions.OnEpoch).
func (p *trainProgress) epoch(s softshape.EpochStats) {
	if p.tty {
		p.drawBar(s)
		return
	}
	if !p.together && p.current >= 0 && s.Fold != p.current {
		p.foldDone(p.current)
	}
	p.current = s.Fold
	f := p.folds[s.Fold]
	if f == nil {
		f = &foldProgress{}
		p.folds[s.Fold] = f
	}
	f.last = s
	if s.Selected {
		f.bestVal, f.bestEpoch, f.selected = s.ValLoss, s.Epoch, true
	}
	if now := p.now(); now.Sub(p.last) >= p.interval {
		p.last = now
		if p.together {
			done := 0
			for _, f := range p.folds {
				done += f.last.Epoch + 1
			}
			fmt.Fprintf(p.w, "%s: %d of at most %d epochs; fold %d at epoch %d/%d (%s), val loss %.4f, %s\n", p.label, done, p.total,
				s.Fold+1, s.Epoch+1, s.Epochs, s.Phase, s.ValLoss, s.Elapsed.Round(time.Second))
		} else {
			fmt.Fprintf(p.w, "fold %d: epoch %d/%d (%s), train loss %.4f, val loss %.4f, val acc %.4f, %s\n",
				s.Fold+1, s.Epoch+1, s.Epochs, s.Phase, s.TrainLoss, s.ValLoss, s.ValAcc, s.Elapsed.Round(time.Second))
		}
	}
}

// drawBar advances the terminal's progress bar.
func (p *trainProgress) drawBar(s softshape.EpochStats) {
	if p.together {
		_ = p.bar.Add(1)
		return
	}
	if s.Epoch == 0 {
		p.bar = progressbar.NewOptions(s.Epochs, progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetDescription(fmt.Sprintf("fold %d", s.Fold+1)), progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true), progressbar.OptionClearOnFinish())
	}
	p.bar.Describe(fmt.Sprintf("fold %d %s loss %.3f val %.3f acc %.3f", s.Fold+1, s.Phase, s.TrainLoss, s.ValLoss, s.ValAcc))
	_ = p.bar.Add(1)
}

// foldDone writes the line of a finished fold, once.
func (p *trainProgress) foldDone(fold int) {
	f := p.folds[fold]
	if f == nil || f.reported {
		return
	}
	f.reported = true
	best := "no epoch selected"
	if f.selected {
		// Numbered as the table's best epoch column.
		best = fmt.Sprintf("best epoch %d (val loss %.4f)", f.bestEpoch, f.bestVal)
	}
	fmt.Fprintf(p.w, "fold %d done: %d epochs, %s, %s\n", fold+1, f.last.Epoch+1, best, f.last.Elapsed.Round(time.Millisecond))
}

// finish clears the bar, or writes the lines of the folds not yet reported.
func (p *trainProgress) finish() {
	if p.tty {
		if p.bar != nil {
			_ = p.bar.Finish()
		}
		return
	}
	folds := make([]int, 0, len(p.folds))
	for f := range p.folds {
		folds = append(folds, f)
	}
	sort.Ints(folds)
	for _, f := range folds {
		p.foldDone(f)
	}
}
