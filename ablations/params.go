package ablations

import (
	"fmt"

	"github.com/gomlx/compute"

	"github.com/softshape-go/softshape/softshape"
)

// ParameterCount is softshape.ConfigParameterCount: the number of trainable
// parameters of cfg's model for a dataset with series length T, C classes and
// the authors' shape length refShapeLen (0 if unknown), its variables created
// by running the sparse-phase graph once. The MoE exists only when some layer
// is sparse (or moe_layers=all), as in training. A nil backend means
// backends.New("").
func ParameterCount(cfg softshape.Config, seriesLen, numClasses, refShapeLen int, backend compute.Backend) (int, error) {
	return softshape.ConfigParameterCount(cfg, seriesLen, numClasses, refShapeLen, backend)
}

// VariantParameterCount is ParameterCount of v applied to base.
func VariantParameterCount(v Variant, base softshape.Config, seriesLen, numClasses, refShapeLen int, backend compute.Backend) (int, error) {
	cfg, err := v.Config(base)
	if err != nil {
		return 0, err
	}
	n, err := ParameterCount(cfg, seriesLen, numClasses, refShapeLen, backend)
	if err != nil {
		return 0, fmt.Errorf("variant %q: %w", v.Name, err)
	}
	return n, nil
}
