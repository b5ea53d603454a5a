package data

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
)

// bundledFS holds the UCR datasets shipped inside the module, one folder per
// dataset with its NAME_TRAIN.tsv and NAME_TEST.tsv, copied unchanged from
// the UCR Time Series Classification Archive (2018; Dau et al.).
//
//go:embed bundled
var bundledFS embed.FS

// bundledNames are the datasets in bundledFS, in sorted order: three small
// ones (≈ 1.2 MB together) so that training, the notebooks and the tests
// work offline on a fresh clone.
var bundledNames = [...]string{"ArrowHead", "GunPoint", "ItalyPowerDemand"}

// BundledSource prefixes the Source of a dataset loaded from the module.
const BundledSource = "bundled:"

// BundledNames returns the names of the UCR datasets bundled in the module
// (GunPoint, ItalyPowerDemand and ArrowHead), sorted.
func BundledNames() []string { return slices.Clone(bundledNames[:]) }

// IsBundled reports whether the named dataset is bundled in the module.
func IsBundled(name string) bool { return slices.Contains(bundledNames[:], name) }

// LoadBundled loads a dataset bundled in the module, exactly as Load would
// load the same files from a folder. Its Source starts with BundledSource.
// LoadOrDownload falls back on it when the data folder lacks the dataset.
func LoadBundled(name string) (*Dataset, error) {
	if !IsBundled(name) {
		return nil, fmt.Errorf("dataset %s is not bundled (bundled: %v)", name, bundledNames)
	}
	read := func(split string) (*fileRows, error) {
		p := path.Join("bundled", name, name+"_"+split+".tsv")
		b, err := fs.ReadFile(bundledFS, p)
		if err != nil {
			return nil, fmt.Errorf("bundled dataset %s: %w", name, err)
		}
		return parseTSV(BundledSource+path.Join(name, name+"_"+split+".tsv"), string(b))
	}
	return readMerged(name, splitTrain, splitTest, read)
}
