package data

import (
	"fmt"
	"math/rand/v2"
)

// Generated Cylinder-Bell-Funnel dataset defaults: the name LoadOrDownload
// and the CLI accept without files, and the size they generate (3 classes
// of length 128, Saito's CBF as in the UCR archive's CBF).
const (
	CBFName            = "CBF-generated"
	CBFDefaultPerClass = 100
	CBFDefaultLength   = 128
)

// CBF generates the Cylinder-Bell-Funnel dataset of Saito (1994), seeded:
// nPerClass series of each class, interleaved cylinder, bell, funnel. With
// L = length, η and ε(t) standard normal, a uniform on the integers
// [L/8, L/4] and b − a uniform on [L/4, 3L/4] (16..32 and 32..96 for
// L = 128), and χ the indicator of a ≤ t ≤ b for t = 0..L−1:
//
//	cylinder c(t) = (6+η)·χ(t)                 + ε(t)
//	bell     b(t) = (6+η)·χ(t)·(t−a)/(b−a)     + ε(t)
//	funnel   f(t) = (6+η)·χ(t)·(b−t)/(b−a)     + ε(t)
//
// The dataset is named CBFName, has class names cylinder, bell, funnel (ids
// 0, 1, 2) and NumTrain 0. The same arguments give the same data. It panics
// if nPerClass < 1 or length < 8.
func CBF(nPerClass, length int, seed int64) *Dataset {
	if nPerClass < 1 || length < 8 {
		panic(fmt.Sprintf("data.CBF: need nPerClass >= 1 and length >= 8, got %d and %d", nPerClass, length))
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0x434246)) // "CBF"
	n := 3 * nPerClass
	d := &Dataset{
		Name:       CBFName,
		Series:     make([][]float64, 0, n),
		Labels:     make([]int, 0, n),
		ClassNames: []string{"cylinder", "bell", "funnel"}, // UCR CBF labels 1, 2, 3
		Length:     length,
		Source:     fmt.Sprintf("generated: CBF (Saito 1994), %d per class, length %d, seed %d", nPerClass, length, seed),
	}
	lo, hi := length/8, length/4
	for range nPerClass {
		for c := range 3 {
			a := lo + rng.IntN(hi-lo+1)
			b := a + length/4 + rng.IntN(length/2+1)
			amp := 6 + rng.NormFloat64()
			row := make([]float64, length)
			for t := range row {
				v := 0.0
				if t >= a && t <= b {
					switch c {
					case 0:
						v = amp
					case 1:
						v = amp * float64(t-a) / float64(b-a)
					case 2:
						v = amp * float64(b-t) / float64(b-a)
					}
				}
				row[t] = v + rng.NormFloat64()
			}
			d.Series = append(d.Series, row)
			d.Labels = append(d.Labels, c)
		}
	}
	return d
}
