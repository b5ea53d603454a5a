// Package plots draws every figure the softshape-go toolkit needs, from plain
// Go values (slices and small structs), with gonum/plot.
//
// The package deliberately does not import the model or statistics packages
// of the toolkit: callers convert their results into slices first, which
// keeps the drawing code independent and easy to test.
//
// Figures mirror the SoftShape paper (ICML 2025):
//
//   - [SweepChart]: accuracy against a swept hyper-parameter (sparse ratio,
//     sliding step q, depth L, activated experts k), one line per dataset
//     with ± SE error bars, the caller's average thick with a band, paper
//     values overlaid dashed.
//   - [RankBars]: average rank per method, ours next to the paper's.
//   - [CDDiagram]: critical-difference diagram in the Demšar/aeon layout.
//   - [AttentionMap]: MIL interpretability (paper Figs 4 and 9), a series
//     coloured by the attention score of the shapes covering it, above the
//     per-shape scores.
//   - [ScatterPanels]: t-SNE scatter of embeddings at up to four stages
//     (paper Figs 5 and 10–12); package plots/tsne computes the embedding.
//   - [RunningTime]: running time against sequence length (paper Fig 3).
//   - [TrainingCurves]: loss and accuracy per epoch with the warm-up boundary.
//
// Every constructor takes a [Meta]: a short title says what the figure shows,
// a caption line under the plot where the numbers come from, and a note
// whether they come from a quick (smoke-test) run rather than a reproduction.
// A [Figure] can be saved as PNG (at [FileDPI]), SVG or PDF ([Figure.Save],
// [Figure.SaveFormats]), rendered to bytes, or handed as a PNG to a display
// function ([Figure.Display]); the package itself knows nothing of notebooks
// (experiments/reproduce shows figures in GoNB). Tick labels never repeat and
// carry the decimals their range needs.
//
// Colours follow the colour-blind-friendly Okabe–Ito palette ([Palette]); a
// UCR dataset has one colour and marker in every figure ([DatasetStyle]);
// attention scores use Moreland's diverging blue–white–red map.
package plots
