package fit

import (
	"fmt"
	"math"
)

// EvalChunk is the most samples of one set that an evaluation pass takes
// (memory, and few distinct input shapes to compile).
const EvalChunk = 256

// Scores are a model's results on one labelled set: the cross-entropy of
// each sample, in order, and the accuracy (NaN on an empty set).
type Scores struct {
	CE  []float64
	Acc float64
}

// Logits computes pass c of Evaluate: rows[i] is the number of set i's
// samples in it, samples c·EvalChunk to c·EvalChunk+rows[i]−1 (0 when set i
// has none left). It returns for each set with rows its logits, rows[i]
// rows of the classes' scores one after the other, and nil for the others.
type Logits func(c int, rows []int) ([][]float32, error)

// Evaluate scores a model on sets of samples, labels[i] being set i's labels,
// EvalChunk samples of each set per pass: every training path validates and
// tests through it, one set per run, so a run's scores do not depend on how
// its logits were computed (one run or a run axis).
func Evaluate(labels [][]int, logits Logits) ([]Scores, error) {
	scores := make([]Scores, len(labels))
	correct := make([]int, len(labels))
	for c := 0; ; c++ {
		rows := make([]int, len(labels))
		more := false
		for i, y := range labels {
			rows[i] = max(0, min(EvalChunk, len(y)-c*EvalChunk))
			more = more || rows[i] > 0
		}
		if !more {
			break
		}
		out, err := logits(c, rows)
		if err != nil {
			return nil, err
		}
		if len(out) != len(labels) {
			return nil, fmt.Errorf("evaluation pass %d: logits of %d sets, want %d", c, len(out), len(labels))
		}
		for i, y := range labels {
			n := rows[i]
			if n == 0 {
				continue
			}
			if len(out[i]) == 0 || len(out[i])%n != 0 {
				return nil, fmt.Errorf("evaluation pass %d: set %d has %d logits for %d samples", c, i, len(out[i]), n)
			}
			classes := len(out[i]) / n
			lo := c * EvalChunk
			for r := range n {
				l, pred := crossEntropy(out[i][r*classes:(r+1)*classes], y[lo+r])
				scores[i].CE = append(scores[i].CE, l)
				if pred == y[lo+r] {
					correct[i]++
				}
			}
		}
	}
	for i, y := range labels {
		scores[i].Acc = float64(correct[i]) / float64(len(y))
	}
	return scores, nil
}

// crossEntropy returns −log softmax(row)[label] and the arg-max of row (the
// first on ties).
func crossEntropy(row []float32, label int) (float64, int) {
	maxV, arg, sum := expSums(row)
	return math.Log(sum) + maxV - float64(row[label]), arg
}

// Softmax returns the class probabilities of one sample's logits row,
// softmax(row) in float64, and the arg-max of row (the first on ties), the
// class Evaluate counts as predicted.
func Softmax(row []float32) ([]float64, int) {
	maxV, arg, sum := expSums(row)
	p := make([]float64, len(row))
	for j, v := range row {
		p[j] = math.Exp(float64(v)-maxV) / sum
	}
	return p, arg
}

// Argmax returns the index of the largest value of row, the first on ties
// (NaN values never win): the class every prediction of softshape names.
func Argmax(row []float32) int {
	_, arg := maxArg(row)
	return arg
}

// maxArg returns the maximum of row in float64 (−Inf for an empty row) and
// its index, the first on ties.
func maxArg(row []float32) (maxV float64, arg int) {
	maxV = math.Inf(-1)
	for j, v := range row {
		if float64(v) > maxV {
			maxV, arg = float64(v), j
		}
	}
	return maxV, arg
}

// expSums returns the maximum of row, its arg-max (Argmax) and
// Σ exp(row − max), in float64.
func expSums(row []float32) (maxV float64, arg int, sum float64) {
	maxV, arg = maxArg(row)
	for _, v := range row {
		sum += math.Exp(float64(v) - maxV)
	}
	return maxV, arg, sum
}
