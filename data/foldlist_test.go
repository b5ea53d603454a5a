package data

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseFolds(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int
	}{
		{"1-5", []int{1, 2, 3, 4, 5}},
		{"1,3", []int{1, 3}},
		{"2", []int{2}},
		{" 1 - 2 , 4 ", []int{1, 2, 4}},
		{"4,1-2,2", []int{4, 1, 2}},
		{"5-5,", []int{5}},
	} {
		got, err := ParseFolds(tc.in, 5)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseFolds(%q, 5) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"0", "want 1..5"},
		{"6", "want 1..5"},
		{"0-9", "want 1..5"},
		{"3-1", "want 1..5"},
		{"a-b", `"a" is not a number`},
		{"1-b", `"b" is not a number`},
		{"", "none given"},
		{" , ", "none given"},
	} {
		got, err := ParseFolds(tc.in, 5)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseFolds(%q, 5) = %v, %v; want an error containing %q", tc.in, got, err, tc.want)
		}
	}
	if got, err := ParseFolds("6", 10); err != nil || !reflect.DeepEqual(got, []int{6}) {
		t.Errorf("ParseFolds(6, 10) = %v, %v", got, err)
	}
}
