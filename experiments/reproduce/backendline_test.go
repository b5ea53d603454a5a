package reproduce

import (
	"strings"
	"testing"

	"github.com/softshape-go/softshape/internal/backends"
)

// TestBackendLine: the line names the backend "fastest" takes and, when it
// falls back, the hint that says how to get a faster one; a backend set
// explicitly or by $GOMLX_BACKEND is named as such.
func TestBackendLine(t *testing.T) {
	ort := []string{"onnx:cpu,/home/u/.cache/softshape/onnxruntime/1.30.0/libonnxruntime.so", backends.Default}
	for _, c := range []struct {
		asked, env string
		candidates []string
		hint       string
		want, not  []string
	}{
		{"fastest", "", ort, "", []string{"ONNX Runtime on CPU (`onnx:cpu`)", "fastest"}, []string{"/home/u", "Faster"}},
		{"fastest", "", []string{backends.Default}, "rebuild with `-tags onnx`",
			[]string{"pure Go (`go:parallelism=-1`)", "*Faster:* rebuild with `-tags onnx`."}, nil},
		{"xla:cuda", "", ort, "", []string{"XLA on CUDA (`xla:cuda`, as set)"}, []string{"ONNX"}},
		{"", "onnx:cpu", ort, "", []string{"ONNX Runtime on CPU (`onnx:cpu`, from $GOMLX_BACKEND)"}, nil},
		{"", "", ort, "", []string{"pure Go (`go:parallelism=-1`, the default)"}, nil},
	} {
		got := backendLine(c.asked, c.env, c.candidates, c.hint)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%q (env %q): %q lacks %q", c.asked, c.env, got, w)
			}
		}
		for _, n := range c.not {
			if strings.Contains(got, n) {
				t.Errorf("%q (env %q): %q has %q", c.asked, c.env, got, n)
			}
		}
		if strings.Contains(got, "\n") {
			t.Errorf("%q: more than one line: %q", c.asked, got)
		}
	}
	for _, c := range []struct {
		onnxIn     bool
		lib, first string
		want       string
	}{
		{true, "/lib/libonnxruntime.so", "onnx:cpu,/lib/libonnxruntime.so", ""},
		{false, "", "xla:cpu", ""},
		{false, "", backends.Default, "notebooks/setup.sh"},
		{false, "/lib/libonnxruntime.so", backends.Default, "built without it"},
		{true, "", backends.Default, "library is missing"},
	} {
		got := notebookHint(c.onnxIn, c.lib, c.first)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("notebookHint(%v, %q, %q) = %q, want %q", c.onnxIn, c.lib, c.first, got, c.want)
		}
	}
}
