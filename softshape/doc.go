// Package softshape is SoftShape (Liu et al., "Learning Soft Sparse Shapes for
// Efficient Time-Series Classification", ICML 2025) in GoMLX: the model function,
// its hyperparameters (names as exported constants, defaults in DefaultConfig), and
// the one training function, Train, shared by the CLI, the tests and the notebooks.
//
// # On data of one's own
//
// Fit trains the model on a training set and an optional validation set of a
// caller's own (data.NewDataset from series and labels), preparing them inside
// as the protocol prepares a fold, and returns a Classifier: Predict,
// PredictProba, Evaluate on raw series and class names, Save, and Load. The
// protocol's TrainFold is a fold's sets trained the same way, through the same
// driver as Train; FoldSets gives a fold's sets. See the examples.
//
// # Architecture
//
// The default follows the authors' PyTorch code (github.com/qianlima-lab/SoftShape
// at 79b3b47), because it produced the published numbers and the paper's text is
// ambiguous on the details:
//
//   - Shape embedding: windows of length m every q steps (J = (T−m)/q+1 shapes),
//     each mapped to d channels by a 1-D convolution (im2col: one Gather plus one
//     matrix product, which trains on every backend), plus learnable positional
//     embeddings initialised to zero, then dropout 0.15.
//   - One gated attention head A (Linear d→8, tanh, Linear 8→1, sigmoid) shared by
//     every layer and by the output pooling.
//   - L layers. Layer l: u = RMSNorm(h); s = A(u). A dense layer weights every
//     token by its score (u·s); a sparse layer keeps the K = ⌈r_l·n⌉ highest-scoring
//     tokens, multiplied by their scores and in their original order, and appends
//     one fused token, the score-weighted SUM of the others. Then v = RMSNorm(u),
//     h = GELU(u + Inception_l(v) [+ MoE(v)]). After the last layer, dropout and the
//     end score s_end = A(h) taken before the GELU.
//   - Per-layer keep fractions r_l = 1 − linspace(0, η, L) in float32
//     (sparsify_schedule=reference): layer 0 never merges, the last layer merges a
//     fraction η, so L=2 keeps J·(1−η)+1 tokens as the paper's Num; L=1 never
//     sparsifies. During the warm-up epochs every layer is dense.
//   - Intra-shape learning: one MoE shared by all layers, run only in layers that
//     merge (moe_layers=sparse): softmax router over Ĉ experts (weights initialised
//     to zero, no bias, no noise), top-k gates renormalised over the selected
//     experts (p_i/(Σ_selected p + 1e-6); for k=1 this is the authors' gate ≈ 1),
//     experts Linear→GELU→Dropout→Linear with hidden width d, a residual, RMSNorm,
//     GELU. The auxiliary loss is cv²(importance) + cv²(load) summed over MoE layers,
//     weighted by λ (moe_loss_weight). Unlike the authors' code, k and Ĉ are real
//     settings (num_experts = C by default; "C/2", "2C" or an integer also work).
//   - Inter-shape learning: one Inception module per layer over the token axis: a
//     1×1 bottleneck to d/4, "same" convolutions with kernels 39, 19, 9 (from
//     inception_kernel=40), a max-pool(3)+1×1 branch, concatenation back to d
//     channels, instance normalisation over the tokens (no affine parameters; the
//     authors' "BN" alias) and GELU. Widths derive from d, so d ≠ 128 works.
//   - Conjunctive pooling: per-token logits Linear(d→C), weighted by s_end and
//     averaged over the tokens (fused token included). Loss: cross-entropy + λ·aux.
//   - Initialisation as the authors': Linear weights fastai's truncated normal
//     (fmod 2, std 0.02) with zero bias; convolutions PyTorch's default U(±1/√fan_in).
//     The parameter count equals the reference formula
//     P = (dm+d) + dJ + 1041 + (dĈ + 33024Ĉ + d) + 77056L + 129C at d=128.
//
// The paper's literal readings are options: sparsify_schedule=every_layer (every
// layer merges a fraction η of its tokens) and moe_layers=all (the MoE in every
// layer, also during warm-up). The ablations of Table 2 are switches: fused_token
// (w/o Soft Sparse), intra (w/o Intra), inter (w/o Inter), shape_embed=linear
// (with Linear Shape: the same window map with nn.Linear's initialisation).
//
// The appendix and Table 7 studies are switches too (experts.go, multiseq.go):
//   - moe_expert: "mlp" (the paper's expert), "fcn" (an FCN block: convolutions of
//     kernels 8, 5, 3 and widths d, 2d, d over the token axis, instance norm, ReLU)
//     or "icb" (TSLANet's interactive convolution block, hidden width d). The
//     convolutional experts run over the tokens in their order (kept tokens, then
//     the fused one), every expert on every token, weighted by its gate.
//   - shared_expert: "inception" (the paper's), "transformer" (one post-norm
//     Transformer encoder layer, 8 heads, d_ff = 4d, ReLU) or "mlp" (token-wise
//     d→2d→d). At d=128, L=2 these sizes give exactly the appendix's parameter
//     differences (Transformer +243.0K, MLP −21.7K relative to the Inception).
//   - multi_seq="8,16,32" (Table 7's Multi-Seq): one SoftShape per shape length,
//     each with its own variables, whose attention-pooled embeddings are fused
//     from the first scale to the last by cross-scale residual fusion
//     f_s = z_s + GELU(W_s[z_s; f_{s−1}] + b_s), then classified by one head.
//
// # Protocol
//
// Train runs stratified 5-fold cross-validation with a 3:1 train/validation split
// of each fold's remaining data (60/20/20), imputation and z-normalisation from the
// data package, Adam (lr 1e-3, eps 1e-8), warm-up epochs on the dense path, model
// selection by the lowest validation cross-entropy (the selected weights are
// restored and scored on the test split), and the authors' early stopping after
// warm-up (80 epochs of |Δval| ≤ 1e-4 or of rising validation loss).
//
// Each protocol decision is a setting, a protocol switch (Protocol; Settings
// documents each), and the presets of ParamProtocol set them together:
// ProtocolDefault (SoftShape's own sparse model, fresh folds),
// ProtocolReferenceCompat (the authors' published code, fold leak included)
// and ProtocolReferenceFresh (the same with fresh folds). docs/protocol.md
// says what the fold leak is and which preset to report.
//
// # Backends
//
// A nil backend (RunOptions.Backend and the like) is started by the module's
// internal/backends package: the one $GOMLX_BACKEND names, else the pure-Go
// backend with parallelism=-1 (which avoids its 2-core deadlock). XLA/PJRT
// (xla:cpu, xla:cuda) is compiled in when cgo is available; see environment.md
// and, for a GPU, docs/gpu.md.
package softshape
