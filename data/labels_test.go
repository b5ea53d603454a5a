package data

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestLargeIntegerLabelsDistinct: integer labels beyond 2^53, which float64
// cannot tell apart, stay distinct classes, in numeric order, each named
// as written; "1" and "1.0" are still one class.
func TestLargeIntegerLabelsDistinct(t *testing.T) {
	const a, b, c = "9007199254740993", "9007199254740992", "9007199254740995"
	rows := [][]float64{{1, 2}, {2, 1}, {1, 3}, {3, 1}, {2, 4}, {0, 1}}
	d, err := NewDataset("big", "test", rows, []string{a, b, a, b, c, c})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.ClassNames, []string{b, a, c}) || !reflect.DeepEqual(d.Labels, []int{1, 0, 1, 0, 2, 2}) {
		t.Errorf("classes %q labels %v; want [%s %s %s] [1 0 1 0 2 2]", d.ClassNames, d.Labels, b, a, c)
	}
	wantNoWarnings(t, d)

	// Two of them only: two classes, not "all rows have one label".
	d, err = NewDataset("big2", "test", rows[:4], []string{a, b, a, b})
	if err != nil {
		t.Fatal(err)
	}
	if d.NumClasses() != 2 {
		t.Errorf("%d classes, want 2", d.NumClasses())
	}

	// Exact comparison still merges spellings of one number.
	d, err = NewDataset("spelt", "test", rows[:4], []string{"1", "1.0", "2", "2e0"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.ClassNames, []string{"1", "2"}) {
		t.Errorf("classes %q, want [1 2]", d.ClassNames)
	}
}

// TestTestOnlyLabelNamed: a label of the TEST file that no TRAIN row has is
// accepted with a warning naming it and its first TEST line; every TEST
// label in TRAIN gives none.
func TestTestOnlyLabelNamed(t *testing.T) {
	root, _, testPath := writeDataset(t, "Extra", "1\t1\t2\n2\t3\t5\n1\t0\t2\n", "2\t1\t3\n7\t4\t2\n7\t1\t0\n")
	d, err := Load(root, "Extra")
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`dataset Extra: label "7" (%s:2) of TEST absent from TRAIN`, testPath)
	if len(d.Warnings) != 1 || !strings.HasPrefix(d.Warnings[0], want) {
		t.Errorf("warnings %q, want one starting %q", d.Warnings, want)
	}
	root, _, _ = writeDataset(t, "Same", "1\t1\t2\n2\t3\t5\n", "2\t1\t3\n1\t4\t2\n")
	d, err = Load(root, "Same")
	if err != nil {
		t.Fatal(err)
	}
	wantNoWarnings(t, d)
}
