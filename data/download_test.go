package data

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/softshape-go/softshape/internal/testfs"
)

// zipOf builds a zip archive of the given entries (name → content), stored
// uncompressed so that tests can corrupt the data.
func zipOf(t *testing.T, entries map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, content := range entries {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// fixture returns the content of a testdata file.
func fixture(t *testing.T, parts ...string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(append([]string{"testdata"}, parts...)...))
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// archive serves zips by path ("/Tiny.zip" → bytes) and counts requests.
type archive struct {
	zips     map[string][]byte
	requests atomic.Int32
}

func (a *archive) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.requests.Add(1)
	body, ok := a.zips[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Length", fmt.Sprint(len(body)))
	w.Write(body)
}

// serve starts an httptest server for zips.
func serve(t *testing.T, zips map[string][]byte) (*httptest.Server, *archive) {
	t.Helper()
	a := &archive{zips: zips}
	srv := httptest.NewServer(a)
	t.Cleanup(srv.Close)
	return srv, a
}

func TestDownloadTSV(t *testing.T) {
	srv, _ := serve(t, map[string][]byte{"/Tiny.zip": zipOf(t, map[string]string{
		"Tiny_TRAIN.tsv": fixture(t, "Tiny", "Tiny_TRAIN.tsv"),
		"Tiny_TEST.tsv":  fixture(t, "Tiny", "Tiny_TEST.tsv"),
		"Tiny.txt":       "not a data file",
	})})
	root := filepath.Join(t.TempDir(), "cache", "ucr") // created by Download
	if err := Download(context.Background(), srv.URL+"/", root, "Tiny"); err != nil {
		t.Fatal(err)
	}
	if got := testfs.List(t, root); !reflect.DeepEqual(got, []string{"Tiny"}) {
		t.Errorf("root holds %q, want only Tiny (no temporary files)", got)
	}
	if got := testfs.List(t, filepath.Join(root, "Tiny")); !reflect.DeepEqual(got, []string{"Tiny_TEST.tsv", "Tiny_TRAIN.tsv"}) {
		t.Errorf("Tiny/ holds %q", got)
	}
	got, err := Load(root, "Tiny")
	if err != nil {
		t.Fatal(err)
	}
	want, err := Load("testdata", "Tiny")
	if err != nil {
		t.Fatal(err)
	}
	if !sameSeries(got.Series, want.Series) || !reflect.DeepEqual(got.Labels, want.Labels) {
		t.Error("downloaded dataset differs from the fixture")
	}
}

// TestDownloadTSInFolder serves the archive's layout: .ts files under a
// <Name>/ folder, beside other formats.
func TestDownloadTSInFolder(t *testing.T) {
	fix, err := Load("testdata", "Tiny")
	if err != nil {
		t.Fatal(err)
	}
	labels := make([]string, len(fix.Labels))
	for i, y := range fix.Labels {
		labels[i] = fix.ClassNames[y]
	}
	srv, _ := serve(t, map[string][]byte{"/Tiny.zip": zipOf(t, map[string]string{
		"Tiny/":                "",
		"Tiny/Tiny_TRAIN.ts":   tsText("Tiny", fix.Series[:4], labels[:4]),
		"Tiny/Tiny_TEST.ts":    tsText("Tiny", fix.Series[4:], labels[4:]),
		"Tiny/Tiny_TRAIN.arff": "@relation Tiny",
	})})
	root := t.TempDir()
	// An existing folder with a stale file of the other format and a file
	// of the user's: the new files replace the stale one, the rest stays.
	testfs.Write(t, filepath.Join(root, "Tiny"), "Tiny_TRAIN.tsv", "garbage")
	testfs.Write(t, filepath.Join(root, "Tiny"), "notes.txt", "mine")
	if err := Download(context.Background(), srv.URL, root, "Tiny"); err != nil {
		t.Fatal(err)
	}
	if got := testfs.List(t, filepath.Join(root, "Tiny")); !reflect.DeepEqual(got, []string{"Tiny_TEST.ts", "Tiny_TRAIN.ts", "notes.txt"}) {
		t.Errorf("Tiny/ holds %q", got)
	}
	if got := testfs.List(t, root); !reflect.DeepEqual(got, []string{"Tiny"}) {
		t.Errorf("root holds %q, want only Tiny", got)
	}
	got, err := Load(root, "Tiny")
	if err != nil {
		t.Fatal(err)
	}
	if !sameSeries(got.Series, fix.Series) || !reflect.DeepEqual(got.Labels, fix.Labels) {
		t.Error("downloaded .ts dataset differs from the fixture")
	}
}

// TestDownloadFailuresLeaveNothing: every bad download is an error and
// leaves root as it was.
func TestDownloadFailuresLeaveNothing(t *testing.T) {
	train, test := fixture(t, "Tiny", "Tiny_TRAIN.tsv"), fixture(t, "Tiny", "Tiny_TEST.tsv")
	good := zipOf(t, map[string]string{"Tiny_TRAIN.tsv": train, "Tiny_TEST.tsv": test})
	corrupt := bytes.Clone(good)
	i := bytes.Index(corrupt, []byte("0.5\t1.5"))
	corrupt[i] = '9' // still parses as a number, but the CRC-32 fails
	for _, tc := range []struct {
		name    string
		dataset string
		handler http.HandlerFunc
		want    []string
	}{
		{"404", "Tiny", nil, []string{"404 Not Found", "Tiny.zip"}},
		{"not a zip", "Tiny", bodyHandler([]byte("<html>maintenance</html>"), 0), []string{"not a valid zip"}},
		{"truncated", "Tiny", bodyHandler(good[:len(good)/2], len(good)), []string{"GET", "Tiny.zip"}},
		{"bad checksum", "Tiny", bodyHandler(corrupt, 0), []string{"checksum"}},
		{"no TEST file", "Tiny", bodyHandler(zipOf(t, map[string]string{"Tiny_TRAIN.tsv": train}), 0),
			[]string{"no Tiny_TEST.tsv or Tiny_TEST.ts"}},
		{"ambiguous", "Tiny", bodyHandler(zipOf(t, map[string]string{"a/Tiny_TRAIN.tsv": train, "b/Tiny_TRAIN.tsv": train, "Tiny_TEST.tsv": test}), 0),
			[]string{"2 files named Tiny_TRAIN.tsv"}},
		{"bad data", "Tiny", bodyHandler(zipOf(t, map[string]string{"Tiny_TRAIN.tsv": train, "Tiny_TEST.tsv": "1\tx\t2\t3\t4\n"}), 0),
			[]string{"do not load", "Tiny_TEST.tsv:1", `"x"`}},
		{"registry mismatch", "GunPoint", bodyHandler(zipOf(t, map[string]string{"GunPoint_TRAIN.tsv": train, "GunPoint_TEST.tsv": test}), 0),
			[]string{"does not match the registry", "4 TRAIN / 2 TEST", "50/150"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			handler := tc.handler
			if handler == nil {
				handler = http.NotFound
			}
			srv := httptest.NewServer(handler)
			defer srv.Close()
			root := t.TempDir()
			err := Download(context.Background(), srv.URL, root, tc.dataset)
			wantError(t, err, tc.want...)
			if got := testfs.List(t, root); len(got) != 0 {
				t.Errorf("root holds %q after a failed download", got)
			}
		})
	}
	t.Run("cancelled", func(t *testing.T) {
		srv := httptest.NewServer(bodyHandler(good, 0))
		defer srv.Close()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		root := t.TempDir()
		err := Download(ctx, srv.URL, root, "Tiny")
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error %v, want context.Canceled", err)
		}
		if got := testfs.List(t, root); len(got) != 0 {
			t.Errorf("root holds %q", got)
		}
	})
	t.Run("bad name", func(t *testing.T) {
		wantError(t, Download(context.Background(), "http://127.0.0.1:1", t.TempDir(), "../x"), "invalid dataset name")
	})
}

// bodyHandler serves body for any path, declaring length bytes (0 = the
// body's length).
func bodyHandler(body []byte, length int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if length == 0 {
			length = len(body)
		}
		w.Header().Set("Content-Length", fmt.Sprint(length))
		w.Write(body)
	}
}

// fakeCoffee builds a dataset with the registry's Coffee sizes (28 + 28
// rows, 2 classes, length 286) as .tsv text.
func fakeCoffee() (train, test string) {
	rng := rand.New(rand.NewPCG(1, 2))
	rows := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "%d", i%2)
			for range 286 {
				fmt.Fprintf(&b, "\t%.4f", rng.NormFloat64())
			}
			b.WriteByte('\n')
		}
		return b.String()
	}
	return rows(28), rows(28)
}

func TestLoadOrDownload(t *testing.T) {
	train, test := fakeCoffee()
	srv, arch := serve(t, map[string][]byte{"/Coffee.zip": zipOf(t, map[string]string{
		"Coffee/Coffee_TRAIN.tsv": train, "Coffee/Coffee_TEST.tsv": test,
	})})
	root := t.TempDir()
	var log bytes.Buffer
	opts := LoadOptions{BaseURL: srv.URL, Client: srv.Client(), Log: &log}
	d, err := LoadOrDownload(root, "Coffee", opts)
	if err != nil {
		t.Fatal(err)
	}
	if d.NumTrain != 28 || d.NumTest() != 28 || d.Length != 286 || d.NumClasses() != 2 {
		t.Errorf("downloaded Coffee: %d/%d rows, length %d, %d classes", d.NumTrain, d.NumTest(), d.Length, d.NumClasses())
	}
	if !strings.Contains(log.String(), "downloading "+srv.URL+"/Coffee.zip") {
		t.Errorf("log %q", log.String())
	}
	// The second call uses the local copy.
	if _, err := LoadOrDownload(root, "Coffee", opts); err != nil {
		t.Fatal(err)
	}
	if n := arch.requests.Load(); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
	// A local copy that does not match the registry is reported.
	testfs.Write(t, filepath.Join(root, "Coffee"), "Coffee_TEST.tsv", test[:strings.Index(test, "\n")+1])
	_, err = LoadOrDownload(root, "Coffee", opts)
	wantError(t, err, "does not match the registry", "28 TRAIN / 1 TEST", "delete")
	// The generated dataset needs no files.
	cbf, err := LoadOrDownload(root, CBFName, LoadOptions{Offline: true, Seed: 3})
	if err != nil || !reflect.DeepEqual(cbf, CBF(CBFDefaultPerClass, CBFDefaultLength, 3)) {
		t.Errorf("LoadOrDownload(%s): %v", CBFName, err)
	}
}

func TestLoadOrDownloadErrors(t *testing.T) {
	root := t.TempDir()
	t.Run("offline", func(t *testing.T) {
		_, err := LoadOrDownload(root, "Coffee", LoadOptions{Offline: true})
		wantError(t, err, "dataset Coffee not found", filepath.Join(root, "Coffee", "Coffee_TRAIN.tsv"),
			filepath.Join(root, "Coffee", "Coffee_TEST.tsv"), "-data", "$SOFTSHAPE_DATA", "offline")
		if !errors.Is(err, fs.ErrNotExist) {
			t.Error("not fs.ErrNotExist")
		}
	})
	t.Run("unreachable archive", func(t *testing.T) {
		srv, _ := serve(t, nil)
		_, err := LoadOrDownload(root, "Coffee", LoadOptions{BaseURL: srv.URL})
		wantError(t, err, "dataset Coffee not found", "$SOFTSHAPE_DATA", "downloading it failed", "404")
		var me *MissingError
		if !errors.As(err, &me) {
			t.Error("not a *MissingError")
		}
	})
	t.Run("unknown name is not downloaded", func(t *testing.T) {
		srv, arch := serve(t, nil)
		_, err := LoadOrDownload(root, "Cofee", LoadOptions{BaseURL: srv.URL})
		wantError(t, err, `unknown dataset "Cofee"`, "did you mean Coffee")
		if arch.requests.Load() != 0 {
			t.Error("an unknown name was requested from the archive")
		}
	})
	t.Run("half a dataset is not downloaded over", func(t *testing.T) {
		srv, arch := serve(t, nil)
		r := t.TempDir()
		train, _ := fakeCoffee()
		own := testfs.Write(t, filepath.Join(r, "Coffee"), "Coffee_TRAIN.tsv", train)
		_, err := LoadOrDownload(r, "Coffee", LoadOptions{BaseURL: srv.URL})
		wantError(t, err, "missing TEST file", "not downloading over "+own)
		if arch.requests.Load() != 0 {
			t.Error("the archive was asked for a dataset whose TRAIN file is there")
		}
		if b, err := os.ReadFile(own); err != nil || string(b) != train {
			t.Errorf("the TRAIN file changed: %v", err)
		}
	})
	t.Run("bad file is not replaced", func(t *testing.T) {
		r := t.TempDir()
		testfs.Write(t, filepath.Join(r, "Coffee"), "Coffee_TRAIN.tsv", "1\t2\n")
		testfs.Write(t, filepath.Join(r, "Coffee"), "Coffee_TEST.tsv", "1\tz\n")
		_, err := LoadOrDownload(r, "Coffee", LoadOptions{Offline: true})
		wantError(t, err, "Coffee_TEST.tsv:1", `"z"`)
	})
}
