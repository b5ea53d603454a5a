package data

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// DefaultBaseURL is the archive the downloader fetches <base>/<Name>.zip
// from; each zip holds <Name>_TRAIN and <Name>_TEST as .ts (or .tsv) files,
// at its top level or under a <Name>/ folder.
const DefaultBaseURL = "https://www.timeseriesclassification.com/aeon-toolkit"

// Download limits: the largest zip accepted and the largest file extracted.
const (
	maxZipBytes  = 2 << 30
	maxFileBytes = 4 << 30
)

// LoadOptions configures LoadOrDownload.
type LoadOptions struct {
	// BaseURL is the archive to download from; "" means DefaultBaseURL.
	BaseURL string
	// Offline forbids downloading: a dataset not under root is an error
	// that says where to put its files.
	Offline bool
	// Client is the HTTP client; nil means a client with a 10-minute
	// timeout.
	Client *http.Client
	// Seed is the generation seed when the name is CBFName.
	Seed int64
	// Log, when not nil, receives one line per download and one line,
	// "warning: ...", per warning about the loaded data (Dataset.Warnings).
	Log io.Writer
}

// LoadOrDownload is LoadOrDownloadContext with a background context.
func LoadOrDownload(root, name string, opts LoadOptions) (*Dataset, error) {
	return LoadOrDownloadContext(context.Background(), root, name, opts)
}

// LoadOrDownloadContext returns the named dataset: CBF(CBFDefaultPerClass,
// CBFDefaultLength, opts.Seed) for CBFName; else the copy under root (see
// Load), checked against the registry; else, for a bundled dataset (see
// BundledNames), the copy inside the module; else, for a registry name and
// unless opts.Offline, the archive's copy fetched with Download and then
// loaded. A root holding only one of the dataset's two files is an error
// naming it: neither the bundled copy nor a download replaces it.
// Without a copy and without a download it returns an error (wrapping the
// *MissingError) that says where to put the files and how to point -data or
// $SOFTSHAPE_DATA at them. The loaded dataset's Warnings go to opts.Log.
func LoadOrDownloadContext(ctx context.Context, root, name string, opts LoadOptions) (*Dataset, error) {
	d, err := loadOrDownload(ctx, root, name, opts)
	if err == nil && opts.Log != nil {
		for _, w := range d.Warnings {
			fmt.Fprintf(opts.Log, "warning: %s\n", w)
		}
	}
	return d, err
}

// loadOrDownload implements LoadOrDownloadContext, but for the warnings.
func loadOrDownload(ctx context.Context, root, name string, opts LoadOptions) (*Dataset, error) {
	if name == CBFName {
		return CBF(CBFDefaultPerClass, CBFDefaultLength, opts.Seed), nil
	}
	d, err := Load(root, name)
	if err == nil {
		if info, lerr := Lookup(name); lerr == nil {
			if verr := info.Verify(d); verr != nil {
				return nil, fmt.Errorf("%s does not match the registry: %w (delete %s to download it again)", d.Source, verr, filepath.Join(root, name))
			}
		}
		return d, nil
	}
	var missing *MissingError
	if !errors.As(err, &missing) || missing.Unknown {
		return nil, err
	}
	if len(missing.Missing) < 2 {
		// One split is there: a download would replace it. Say so instead.
		return nil, fmt.Errorf("%w (not downloading over %s: move it away to download the dataset)", err, missing.Found)
	}
	if IsBundled(name) {
		return LoadBundled(name)
	}
	if opts.Offline {
		return nil, fmt.Errorf("%w (offline: not downloading)", err)
	}
	client := opts.Client
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Minute}
	}
	base := opts.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	if derr := download(ctx, client, base, root, name, opts.Log); derr != nil {
		return nil, fmt.Errorf("%w; downloading it failed: %w", err, derr)
	}
	return Load(root, name)
}

// Download fetches <baseURL>/<name>.zip ("" means DefaultBaseURL) and
// installs the dataset's TRAIN and TEST files as root/<name>/<name>_TRAIN.ts
// (or .tsv) and _TEST. Nothing is installed unless everything checks out:
// the HTTP status is 200, the body is complete, the zip parses with valid
// checksums, it holds exactly one TRAIN and one TEST file (a .tsv preferred
// to a .ts), they load, and, for a registry name, their sizes, classes and
// length match the registry (see Info.Verify).
//
// The zip is written to a temporary file in root and the files are
// extracted into a temporary folder in root, both removed on return; the
// verified folder is then renamed to root/<name>. If root/<name> already
// exists, each file is renamed into it (an atomic replacement per file) and
// the other format's file of the same split is removed so that Load reads
// the new one.
func Download(ctx context.Context, baseURL, root, name string) error {
	if baseURL == "" {
		baseURL = DefaultBaseURL
	}
	return download(ctx, http.DefaultClient, baseURL, root, name, nil)
}

// download implements Download.
func download(ctx context.Context, client *http.Client, baseURL, root, name string, log io.Writer) error {
	if err := checkName(name); err != nil {
		return err
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return fmt.Errorf("download %s: %w", name, err)
	}
	u := strings.TrimRight(baseURL, "/") + "/" + url.PathEscape(name) + ".zip"
	if log != nil {
		fmt.Fprintf(log, "downloading %s into %s\n", u, filepath.Join(root, name))
	}
	zipPath, err := fetchZip(ctx, client, u, root, name)
	if zipPath != "" {
		defer os.Remove(zipPath)
	}
	if err != nil {
		return err
	}
	staging, err := os.MkdirTemp(root, "."+name+"-staging-*")
	if err != nil {
		return fmt.Errorf("download %s: %w", name, err)
	}
	defer os.RemoveAll(staging)
	if err := extractDataset(zipPath, u, filepath.Join(staging, name), name); err != nil {
		return err
	}
	d, err := Load(staging, name)
	if err != nil {
		return fmt.Errorf("%s: the downloaded files do not load: %w", u, err)
	}
	if info, lerr := Lookup(name); lerr == nil {
		if err := info.Verify(d); err != nil {
			return fmt.Errorf("%s: the downloaded dataset does not match the registry: %w", u, err)
		}
	}
	if err := install(filepath.Join(staging, name), filepath.Join(root, name)); err != nil {
		return fmt.Errorf("download %s: %w", name, err)
	}
	return nil
}

// fetchZip downloads u into a temporary file in root and returns its path
// (also on error, when the file was created, so the caller can remove it).
func fetchZip(ctx context.Context, client *http.Client, u, root, name string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", fmt.Errorf("download %s: %w", name, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", fmt.Errorf("download %s: %w", name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	f, err := os.CreateTemp(root, "."+name+"-*.zip.partial")
	if err != nil {
		return "", fmt.Errorf("download %s: %w", name, err)
	}
	n, err := io.Copy(f, io.LimitReader(resp.Body, maxZipBytes+1))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	switch {
	case err != nil:
		return f.Name(), fmt.Errorf("GET %s: after %d bytes: %w", u, n, err)
	case n > maxZipBytes:
		return f.Name(), fmt.Errorf("GET %s: larger than %d bytes", u, int64(maxZipBytes))
	case resp.ContentLength >= 0 && n != resp.ContentLength:
		return f.Name(), fmt.Errorf("GET %s: got %d bytes, expected %d (truncated)", u, n, resp.ContentLength)
	}
	return f.Name(), nil
}

// extractDataset copies the TRAIN and TEST files of the zip at zipPath
// into dir (created), named <name>_TRAIN<ext> and <name>_TEST<ext>.
func extractDataset(zipPath, u, dir, name string) error {
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		return fmt.Errorf("%s: not a valid zip archive: %w", u, err)
	}
	defer zr.Close()
	if err := os.Mkdir(dir, 0o755); err != nil {
		return fmt.Errorf("download %s: %w", name, err)
	}
	for _, split := range []string{splitTrain, splitTest} {
		f, ext, err := findZipEntry(zr.File, name, split)
		if err != nil {
			return fmt.Errorf("%s: %w", u, err)
		}
		if err := extractFile(f, filepath.Join(dir, name+"_"+split+ext)); err != nil {
			return fmt.Errorf("%s: %s: %w", u, f.Name, err)
		}
	}
	return nil
}

// findZipEntry picks the zip entry <name>_<split>.tsv, else .ts, at the
// shallowest folder depth (the top level or a <name>/ folder, typically).
func findZipEntry(files []*zip.File, name, split string) (*zip.File, string, error) {
	for _, ext := range fileExts {
		want := name + "_" + split + ext
		var best *zip.File
		bestDepth, ties := 0, 0
		for _, f := range files {
			if f.FileInfo().IsDir() || path.Base(f.Name) != want {
				continue
			}
			depth := strings.Count(strings.Trim(f.Name, "/"), "/")
			switch {
			case best == nil || depth < bestDepth:
				best, bestDepth, ties = f, depth, 0
			case depth == bestDepth:
				ties++
			}
		}
		if ties > 0 {
			return nil, "", fmt.Errorf("the zip holds %d files named %s at the same depth", ties+1, want)
		}
		if best != nil {
			return best, ext, nil
		}
	}
	return nil, "", fmt.Errorf("the zip holds no %s_%s.tsv or %s_%s.ts file", name, split, name, split)
}

// extractFile writes the content of f to dst, checking its CRC-32 and size.
func extractFile(f *zip.File, dst string) error {
	if f.UncompressedSize64 > maxFileBytes {
		return fmt.Errorf("file of %d bytes is larger than %d", f.UncompressedSize64, int64(maxFileBytes))
	}
	r, err := f.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	w, err := os.Create(dst)
	if err != nil {
		return err
	}
	// Reading to EOF makes archive/zip verify the CRC-32 and size.
	_, err = io.Copy(w, io.LimitReader(r, maxFileBytes+1))
	if err == nil {
		err = w.Sync()
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return err
}

// install moves the verified folder src to dst: one rename when dst does
// not exist, else a rename per file into dst, removing the other format's
// file of each split afterwards.
func install(src, dst string) error {
	if err := os.Rename(src, dst); err == nil {
		return nil
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.Rename(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
			return err
		}
		for _, ext := range fileExts {
			if other := strings.TrimSuffix(e.Name(), filepath.Ext(e.Name())) + ext; other != e.Name() {
				if err := os.Remove(filepath.Join(dst, other)); err != nil && !errors.Is(err, os.ErrNotExist) {
					return err
				}
			}
		}
	}
	return nil
}
