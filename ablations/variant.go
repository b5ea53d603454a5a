package ablations

import (
	"errors"
	"fmt"
	"strings"

	"github.com/softshape-go/softshape/softshape"
)

// ErrNeedsModelSupport is wrapped by the error of a variant that the model
// cannot express yet (softshape.Config has no setting for it).
var ErrNeedsModelSupport = errors.New("not implemented yet: needs model support")

// Variant is a named modification of a SoftShape configuration.
type Variant struct {
	// Name identifies the variant; for the sweep tables it is the paper's
	// column label ("w/o Intra", "30%", "k=2", "q=m", "L=3", "Fixed-8").
	Name string
	// Description says what the variant changes, in the paper's terms.
	Description string
	// Apply returns base modified by the variant. It fails, wrapping
	// ErrNeedsModelSupport, for a variant the model cannot express.
	Apply func(base softshape.Config) (softshape.Config, error)
}

// Config returns base modified by the variant; the error names the variant.
func (v Variant) Config(base softshape.Config) (softshape.Config, error) {
	cfg, err := v.Apply(base)
	if err != nil {
		return cfg, fmt.Errorf("variant %q: %w", v.Name, err)
	}
	return cfg, nil
}

// Implemented reports whether the model can express the variant.
func (v Variant) Implemented() bool {
	_, err := v.Apply(softshape.DefaultConfig())
	return !errors.Is(err, ErrNeedsModelSupport)
}

// set builds an Apply that changes the configuration with f and cannot fail.
func set(f func(*softshape.Config)) func(softshape.Config) (softshape.Config, error) {
	return func(c softshape.Config) (softshape.Config, error) {
		f(&c)
		return c, nil
	}
}

// All returns every variant, in order: Table 2, the 18-dataset sweeps
// (Tables 3–7), then the appendix studies. Names are unique.
func All() []Variant {
	groups := [][]Variant{
		Table2(), SparseRatio(), ExpertsK(), StrideQ(), DepthL(), ShapeLength(),
		NumExperts(), Lambda(), MoEExpertNetwork(), SharedExpertNetwork(),
	}
	var out []Variant
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

// Names returns the names of All, in order.
func Names() []string {
	all := All()
	names := make([]string, len(all))
	for i, v := range all {
		names[i] = v.Name
	}
	return names
}

// Lookup returns the variant with the given name (exact match).
func Lookup(name string) (Variant, error) {
	for _, v := range All() {
		if v.Name == name {
			return v, nil
		}
	}
	return Variant{}, fmt.Errorf("unknown variant %q (have %s)", name, strings.Join(Names(), ", "))
}
