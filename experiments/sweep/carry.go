package sweep

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/internal/checkpointdir"
	"github.com/softshape-go/softshape/softshape"
)

// carrySuffix ends the name of a carried state: the folder beside a
// fold_reset=carry run's record of fold f that holds what fold f+1 starts from
// (softshape.FoldChain.SaveCarried).
const carrySuffix = ".carry"

// CarryPath returns the folder of the state a fold_reset=carry run carries
// out of the fold of k (its weights, Adam state and random streams after that
// fold), present while the run's next fold is still to train.
func (s *Store) CarryPath(k Key) string {
	return filepath.Join(s.root, k.Dir(), k.base()+carrySuffix)
}

// saveCarried saves chain's carried state after the fold of k, atomically (a
// temporary folder renamed into place), and then removes the state carried
// out of the fold before, which nothing needs any more. Nothing is saved
// after a chain's last fold.
func (s *Store) saveCarried(chain *softshape.FoldChain, k Key) error {
	if k.Fold < chain.NumFolds() {
		path := s.CarryPath(k)
		dir := filepath.Dir(path)
		if err := s.mkdirAll(dir); err != nil {
			return err
		}
		tmp := s.tmpPath(path)
		defer checkpointdir.Remove(tmp) // nothing left to remove once renamed
		if err := chain.SaveCarried(tmp); err != nil {
			return err
		}
		if err := checkpointdir.Remove(path); err != nil {
			return err
		}
		if err := os.Rename(tmp, path); err != nil {
			return fmt.Errorf("saving the carried state %s: %w", path, err)
		}
		if err := syncDir(dir); err != nil {
			return err
		}
	}
	if k.Fold > 1 {
		prev := k
		prev.Fold--
		return checkpointdir.Remove(s.CarryPath(prev))
	}
	return nil
}

// resumeChain returns the fold chain of cell c continued from the state
// carried out of the fold before c's, or nil when there is none (c is a
// first fold, or no state was saved). A state that cannot be used is an
// error; the caller then trains the earlier folds again.
func (s *Store) resumeChain(c Cell, ds *data.Dataset, opts softshape.RunOptions) (*softshape.FoldChain, string, error) {
	if c.Fold <= 1 {
		return nil, "", nil
	}
	prev := c.Key
	prev.Fold--
	path := s.CarryPath(prev)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, "", nil
	}
	chain, err := softshape.ResumeFoldChain(ds, c.Config, opts, path, prev.Fold-1)
	return chain, path, err
}
