package softshape

import (
	"errors"
	"fmt"
)

// SaveError reports a checkpoint that could not be saved (SaveCheckpoint)
// after its fold trained. Train returns such errors together with its
// result, which is complete: a failed save does not discard the training.
type SaveError struct {
	// Dir is the checkpoint folder; Err the cause.
	Dir string
	Err error
}

// Error names the folder and the cause.
func (e *SaveError) Error() string {
	return fmt.Sprintf("checkpoint not saved to %s: %v", e.Dir, e.Err)
}

// Unwrap returns the cause.
func (e *SaveError) Unwrap() error { return e.Err }

// onlySaveErrors reports whether err is not nil and every error it joins
// (errors.Join) is a *SaveError.
func onlySaveErrors(err error) bool {
	if err == nil {
		return false
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			if !onlySaveErrors(e) {
				return false
			}
		}
		return true
	}
	var se *SaveError
	return errors.As(err, &se)
}
