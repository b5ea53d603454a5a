package data

import (
	"fmt"
	"strings"
)

// BatchRule selects how the batch size is derived from the training-split
// size.
type BatchRule int

const (
	// BatchPaper is the paper-era rule, min(n_train/10, 16) rounded down
	// and at least 1 (the reference's --use_large_batch 0).
	BatchPaper BatchRule = iota
	// BatchLarge is the reference code's default since 2025-06-09,
	// min(512, n_train): most UCR datasets train full-batch.
	BatchLarge
)

// String returns the rule's name as ParseBatchRule accepts it.
func (r BatchRule) String() string {
	switch r {
	case BatchPaper:
		return "paper"
	case BatchLarge:
		return "large"
	}
	return fmt.Sprintf("BatchRule(%d)", int(r))
}

// BatchSize returns the batch size for a training split of nTrain rows
// under rule; it is at least 1. An unknown rule is treated as BatchPaper.
func BatchSize(nTrain int, rule BatchRule) int {
	var b int
	switch rule {
	case BatchLarge:
		b = min(512, nTrain)
	default:
		b = min(nTrain/10, 16)
	}
	return max(b, 1)
}

// ParseBatchRule parses "paper" or "large" (case-insensitive). It takes any
// string type, so softshape.BatchRule (the batch_rule setting) parses as is.
func ParseBatchRule[S ~string](s S) (BatchRule, error) {
	switch strings.ToLower(strings.TrimSpace(string(s))) {
	case "paper":
		return BatchPaper, nil
	case "large":
		return BatchLarge, nil
	}
	return 0, fmt.Errorf("unknown batch rule %q: want \"paper\" (min(n_train/10, 16)) or \"large\" (min(512, n_train))", s)
}
