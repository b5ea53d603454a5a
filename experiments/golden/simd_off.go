//go:build !goexperiment.simd

package golden

// simdBuild is true in a binary built with GOEXPERIMENT=simd.
const simdBuild = false
