package reproduce

import (
	"context"
	"strings"
	"testing"
)

// TestTableAllInvalidFails: a table whose every run the dataset rejects
// (no epoch to train) is an error saying so, not a table of nothing.
func TestTableAllInvalidFails(t *testing.T) {
	p := tinyParams(t)
	p.Settings = "epochs=0;warmup_epochs=2;embed_dim=16"
	p.Variants = []string{"50%"}
	r, err := Table(context.Background(), "sparse_ratio", p)
	if err == nil {
		t.Fatalf("every run invalid: no error, table %v", r.Table)
	}
	if !strings.Contains(err.Error(), "all 1 cells are recorded invalid") {
		t.Errorf("error %q does not say every cell is invalid", err)
	}
}
