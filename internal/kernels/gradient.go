// Package kernels holds the graph building blocks of the SoftShape model
// whose form is chosen for speed rather than for reading: hand-written
// gradients (WithGradient), rank-2 products laid out for the backends
// (MatMul2D), the Inception module's convolutions (NestedSameConvs), the
// activations and normalisations with fused gradients, and the routed
// dispatch of the MoE's MLP experts (MLPExperts). Each gives the values of a
// plain form (GoMLX's ops differentiated op by op, Convolve, dense experts);
// the tests of this package check each against it. The model itself, in
// package softshape, reads like Section 4 of the paper and calls these.
package kernels

import (
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // graph code reads best dot-imported, as in GoMLX's examples.
	"github.com/gomlx/gomlx/support/exceptions"
)

// WithGradient returns f(xs) with a hand-written gradient: grad(xs, y, v)
// returns the gradient with respect to each of xs given v, the gradient with
// respect to the result y. Automatic differentiation would differentiate f op by
// op; where that is wasteful on a backend (transposes, scatter-adds, slices of
// large intermediates), grad can say the same more cheaply. f and grad receive
// identities of xs (the same values; their gradients are the ones replaced).
//
// It relies on reverse-mode differentiation visiting a node after every node
// that consumes it (GoMLX walks the nodes in reverse creation order): the
// result's adjoint is captured first, and each input's custom gradient then
// reads it, ignoring the adjoint GoMLX built through f, which is left unused
// and never executed (both backends drop nodes no output needs). grad is
// called at most once per Gradient.
func WithGradient(xs []*Node, f func(xs []*Node) *Node, grad func(xs []*Node, y, v *Node) []*Node) *Node {
	var y, v *Node
	var dxs []*Node
	ins := make([]*Node, len(xs))
	for i, x := range xs {
		ins[i] = IdentityWithCustomGradient(x, func(_, _ *Node) *Node {
			if v == nil {
				exceptions.Panicf("WithGradient: the gradient of an input was asked before the result's")
			}
			if dxs == nil {
				dxs = grad(ins, y, v)
			}
			return dxs[i]
		})
	}
	y = f(ins)
	return IdentityWithCustomGradient(y, func(_, adjoint *Node) *Node {
		v, dxs = adjoint, nil
		return adjoint
	})
}
