package timing

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/internal/backends"
	"github.com/softshape-go/softshape/softshape"
)

// ParamsDatasets are the datasets of the paper's appendix table of parameter
// counts and inference times.
func ParamsDatasets() []string { return []string{"ChlorineConcentration", "HouseTwenty"} }

// InferenceChunk is the largest batch of one inference call, as softshape's
// evaluation uses.
const InferenceChunk = 256

// ParamsRow is one dataset of the parameter count and inference time table.
type ParamsRow struct {
	Dataset string
	// SeriesLen, NumClasses and TestSeries: T, C and the number of series
	// evaluated (one fold's test split: 20% of the dataset).
	SeriesLen, NumClasses, TestSeries int
	// ShapeLen, Stride and NumShapes: the resolved m, q and J.
	ShapeLen, Stride, NumShapes int
	// Params counts the trainable parameters (MoE included).
	Params int
	// Compile is the time to build, compile and run the inference graph once;
	// Inference the median time to evaluate the TestSeries afterwards.
	Compile, Inference time.Duration
	// Phase is the path timed.
	Phase softshape.Phase
	// Synthetic is true when the dataset was not found and random series of
	// its shape (from the registry) were timed instead.
	Synthetic bool
}

// ParamsInference measures, for each dataset, the parameter count and the time
// to run inference on one fold's test split (20% of the dataset) with cfg in
// the sparse phase, after one compile call; repeats timings, median kept.
// Datasets missing from root are timed on random series of their registry
// shape (Synthetic). A nil backend means backends.New("").
func ParamsInference(names []string, root string, cfg softshape.Config, backend compute.Backend, repeats int, seed int64) ([]ParamsRow, error) {
	if backend == nil {
		var err error
		if backend, err = backends.New(""); err != nil {
			return nil, err
		}
	}
	repeats = max(1, repeats)
	var rows []ParamsRow
	for _, name := range names {
		info, err := data.Lookup(name)
		if err != nil {
			return nil, err
		}
		row := ParamsRow{Dataset: name, SeriesLen: info.Length, NumClasses: info.Classes, Phase: softshape.Sparse}
		nTest := (info.Total() + 4) / 5
		var xs [][]float64
		if root != "" && data.Present(root, name) {
			ds, err := data.Load(root, name)
			if err != nil {
				return nil, err
			}
			row.SeriesLen, row.NumClasses = ds.Length, ds.NumClasses()
			for i := 0; i < nTest; i++ {
				xs = append(xs, zNorm(ds.Series[i%len(ds.Series)]))
			}
		} else {
			row.Synthetic = true
			for i := 0; i < nTest; i++ {
				s := make([]float64, info.Length)
				for t := range s {
					s[t] = math.Sin(float64(t)*0.05*float64(1+i%3)) + 0.1*math.Cos(float64(t*i+int(seed)))
				}
				xs = append(xs, zNorm(s))
			}
		}
		row.TestSeries = len(xs)
		if err := inferRow(&row, xs, cfg, backend, repeats, seed); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		rows = append(rows, row)
	}
	return rows, nil
}

func inferRow(row *ParamsRow, xs [][]float64, cfg softshape.Config, backend compute.Backend, repeats int, seed int64) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("inference: %v", r)
		}
	}()
	m, err := softshape.New(cfg, row.SeriesLen, row.NumClasses, softshape.RefShapeLength(row.Dataset, row.SeriesLen))
	if err != nil {
		return err
	}
	row.ShapeLen, row.Stride, row.NumShapes = m.Shape.ShapeLen, m.Shape.Stride, m.Shape.NumShapes
	store, exec, err := softshape.NewLogitsExec(backend, m, row.Phase, seed)
	if err != nil {
		return err
	}
	defer store.Finalize()
	defer exec.Finalize()
	var chunks []*tensors.Tensor
	for lo := 0; lo < len(xs); lo += InferenceChunk {
		hi := min(lo+InferenceChunk, len(xs))
		flat := make([]float32, 0, (hi-lo)*row.SeriesLen)
		for _, s := range xs[lo:hi] {
			for _, v := range s {
				flat = append(flat, float32(v))
			}
		}
		chunks = append(chunks, tensors.FromFlatDataAndDimensions(flat, hi-lo, row.SeriesLen))
	}
	defer func() {
		for _, c := range chunks {
			c.FinalizeAll()
		}
	}()
	pass := func() error {
		for _, c := range chunks {
			out, err := exec.Call(c)
			if err != nil {
				return err
			}
			if _, err := tensors.CopyFlatData[float32](out[0]); err != nil {
				return err
			}
			out[0].FinalizeAll()
		}
		return nil
	}
	start := time.Now()
	if err := pass(); err != nil { // compiles every chunk shape
		return err
	}
	row.Compile = time.Since(start)
	row.Params = softshape.ParameterCount(store)
	var ts []time.Duration
	for range repeats {
		start := time.Now()
		if err := pass(); err != nil {
			return err
		}
		ts = append(ts, time.Since(start))
	}
	row.Inference = median(ts)
	return nil
}

// ParamsMarkdown writes the parameter count and inference time table with the
// paper's SoftShape figures beside ours (472.5 K; 1.39 s and 1.26 s, on the
// authors' GPU machine).
func ParamsMarkdown(w io.Writer, rows []ParamsRow, backend string) error {
	paper := map[string]string{"ChlorineConcentration": "1.39", "HouseTwenty": "1.26"}
	var b strings.Builder
	fmt.Fprintf(&b, "### Parameters and inference time (%s)\n\n", backend)
	b.WriteString("| dataset | T | C | m | q | J | params | paper params | test series | compile (s) | inference (s) | paper inference (s) | input |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for _, r := range rows {
		input := "real"
		if r.Synthetic {
			input = "synthetic (dataset not found)"
		}
		p := paper[r.Dataset]
		if p == "" {
			p = "–"
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %.1f K | 472.5 K | %d | %.2f | %.3f | %s | %s |\n", r.Dataset, r.SeriesLen, r.NumClasses,
			r.ShapeLen, r.Stride, r.NumShapes, float64(r.Params)/1000, r.TestSeries, r.Compile.Seconds(), r.Inference.Seconds(), p, input)
	}
	b.WriteString("\nInference: one fold's test split (20% of the dataset), sparse phase, batches of ≤256, median of repeats after a compile pass. " +
		"The paper's times are from the authors' GPU machine and include their data loading; compare the trend, not the seconds.\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// ParamsCSV writes the rows as CSV.
func ParamsCSV(w io.Writer, rows []ParamsRow, backend string) error {
	var b strings.Builder
	b.WriteString("dataset,length,classes,shape_len,stride,num_shapes,params,test_series,compile_s,inference_s,synthetic,backend\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "%s,%d,%d,%d,%d,%d,%d,%d,%.4f,%.4f,%t,%q\n", r.Dataset, r.SeriesLen, r.NumClasses, r.ShapeLen, r.Stride, r.NumShapes,
			r.Params, r.TestSeries, r.Compile.Seconds(), r.Inference.Seconds(), r.Synthetic, backend)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
