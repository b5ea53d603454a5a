package sweep

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// FormFile is the file of a results folder that fixes the form every run
// in it trains: the model's plain graphs or its speed forms
// (Runner.Fast). A run's key does not say its form, so one folder
// holds one form.
const FormFile = "form.json"

// formFile is the content of FormFile.
type formFile struct {
	SpeedForms *bool `json:"speed_forms"`
}

// FormName names a run's form, as messages and the reproduction's manifest
// say it: "plain graphs" or "speed forms (-fast)".
func FormName(speedForms bool) string {
	if speedForms {
		return "speed forms (-fast)"
	}
	return "plain graphs"
}

// ClaimForm fixes the form of the store's runs to speedForms, or checks it
// against the one fixed before. The first run into a store that holds no
// record creates FormFile atomically (exclusively: of two sweeps of
// different forms started together on one empty store, one creates it and
// the other is refused here). A store that holds records but no FormFile
// (written before FormFile existed) is left as it is: its records say their
// form. An unreadable FormFile is an error naming it.
func (s *Store) ClaimForm(speedForms bool) error {
	path := filepath.Join(s.root, FormFile)
	for range 2 {
		got, err := readForm(path)
		if err == nil {
			if got != speedForms {
				return fmt.Errorf("results folder %s holds runs of the %s (%s), and this trains the %s: give each form a results folder of its own",
					s.root, FormName(got), path, FormName(speedForms))
			}
			return nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if has, err := s.hasRecords(); err != nil || has {
			return err
		}
		b, _ := json.Marshal(formFile{SpeedForms: &speedForms})
		made, err := s.createLock(path, append(b, '\n'))
		if err != nil {
			return fmt.Errorf("results folder %s: fixing the form of its runs: %w", s.root, err)
		}
		if made {
			return nil
		}
		// Another process created it first: read it again.
	}
	return fmt.Errorf("results folder %s: %s appeared and vanished: is another process removing it?", s.root, path)
}

// readForm reads a FormFile; a missing one is an error matching
// fs.ErrNotExist.
func readForm(path string) (bool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return false, err
	}
	var f formFile
	if err := json.Unmarshal(b, &f); err != nil || f.SpeedForms == nil {
		if err == nil {
			err = errors.New("no speed_forms field")
		}
		return false, fmt.Errorf("%s: %w: it says which form the folder's runs train (%s); move it aside only if the folder holds no run", path, err, `{"speed_forms":false}`)
	}
	return *f.SpeedForms, nil
}

// hasRecords reports whether any record file is in the store.
func (s *Store) hasRecords() (bool, error) {
	found := errors.New("found")
	err := s.Walk("", func(string, *Record, error) error { return found })
	if errors.Is(err, found) {
		return true, nil
	}
	return false, err
}
