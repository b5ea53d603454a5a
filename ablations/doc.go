// Package ablations names the SoftShape variants compared by the ablation and
// hyperparameter tables of Liu et al., "Learning Soft Sparse Shapes for
// Efficient Time-Series Classification" (ICML 2025).
//
// A Variant is a named modification of a softshape.Config: it holds no model
// code, only the settings that the paper's column changes. Variants are looked
// up by name (Lookup) and listed in a fixed order (All):
//
//   - Table 2 (ablation): "SoftShape", "w/o Soft Sparse", "w/o Intra",
//     "w/o Inter", "w/o Intra & Inter", "with Linear Shape".
//   - Table 3 (sparse ratio): "0%", "10%", "30%", "50%", "70%", "90%"
//     (softshape.Config.SparseRatio = 0, 0.1, ..., 0.9).
//   - Table 4 (activated experts): "k=1" .. "k=4".
//   - Table 5 (sliding step): "q=1" .. "q=4", "q=m". "q=4" is the default
//     stride "auto" (4, capped at m; see softshape.StrideAuto),
//     the configuration behind the paper's q=4 column.
//   - Table 6 (depth): "L=1" .. "L=6".
//   - Table 7 (shape length): "Fixed-8" and the Val-Select candidates
//     "m=4", "m=16", "m=24", "m=32", "m=48", "m=64", "m=0.1T", "m=0.8T"
//     (Fixed-8 is the m=8 candidate), and "Multi-Seq" (m = 8, 16, 32 in
//     parallel, softshape.Config.MultiSeq).
//   - Appendix: total experts "hatC=C/2", "hatC=C", "hatC=2C"; loss weight
//     "lambda = 0.0001" .. "lambda = 100" (ASCII names, as the sweep store
//     keys them; tables and figures label their columns in the paper's
//     notation, "Ĉ=C/2" and "λ = 0.0001", paper.Notation); the MoE expert network ("MoE
//     expert: FCN", "MoE expert: TSLANet (ICB)", "Original MoE expert") and
//     the shared expert network ("Shared expert: Transformer", "Shared expert:
//     MLP", "Shared expert: Inception").
//
// Every variant of the paper is a real configuration of the one model. A
// variant the model could not express would return an error wrapping
// ErrNeedsModelSupport from Apply (never a stand-in configuration); the sweep
// and table packages list such variants as not run.
//
// ForTable maps each paper table (the names of package paper) to its
// columns: the variant whose runs give our value, a Val-Select column chosen
// among candidate variants by validation loss (ValSelect, RunValSelect), or a
// baseline method of the paper that this project does not run.
//
// ParameterCount builds a variant's model on a dataset shape and counts its
// trainable parameters, with the exported softshape API only.
package ablations
