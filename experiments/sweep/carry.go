package sweep

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/softshape-go/softshape/internal/checkpointdir"
)

// carrySuffix ends the name of a carried state: the folder beside a
// fold_reset=carry run's record of fold f that holds what fold f+1 starts from
// (softshape.RunOptions.CarryOut).
const carrySuffix = ".carry"

// resumeSuffix ends the name of a cell's saved progress: the file beside
// its record that a fold in training saves itself to
// (softshape.RunOptions.ResumePath), present while the fold trains.
const resumeSuffix = ".resume"

// ResumePath returns the file in which the fold of k keeps its progress
// while it trains, so that a sweep killed in the middle of the fold
// continues it from there (Runner.ResumeEvery).
func (s *Store) ResumePath(k Key) string {
	return filepath.Join(s.root, k.Dir(), k.base()+resumeSuffix)
}

// CarryPath returns the folder of the state a fold_reset=carry run carries
// out of the fold of k (its weights, Adam state and random streams after that
// fold), present while the run's next fold is still to train.
func (s *Store) CarryPath(k Key) string {
	return filepath.Join(s.root, k.Dir(), k.base()+carrySuffix)
}

// carriedIn returns the folder of the state carried out of the fold before
// cell k's, or "" when there is none (k is a first fold, or no state was
// saved). A folder it cannot look at is returned: training then reports it
// (softshape.CarriedStateError) and trains the earlier folds again.
func (s *Store) carriedIn(k Key) string {
	if k.Fold <= 1 {
		return ""
	}
	prev := k
	prev.Fold--
	path := s.CarryPath(prev)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	return path
}

// carryOut returns a temporary folder to save the state carried out of the
// fold of k in (keepCarried moves it into place), or "" after a chain's
// last fold (of n), whose state nothing needs.
func (s *Store) carryOut(k Key, n int) (string, error) {
	if k.Fold >= n {
		return "", nil
	}
	path := s.CarryPath(k)
	if err := s.mkdirAll(filepath.Dir(path)); err != nil {
		return "", err
	}
	return s.tmpPath(path), nil
}

// keepCarried renames tmp, the state saved after the fold of k (if any),
// into place (CarryPath), atomically, and then removes the state carried
// out of the fold before, which nothing needs any more.
func (s *Store) keepCarried(tmp string, k Key) error {
	if tmp != "" {
		path := s.CarryPath(k)
		if err := checkpointdir.Remove(path); err != nil {
			return err
		}
		if err := os.Rename(tmp, path); err != nil {
			return fmt.Errorf("saving the carried state %s: %w", path, err)
		}
		if err := syncDir(filepath.Dir(path)); err != nil {
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
