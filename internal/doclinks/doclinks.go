// Package doclinks checks the relative links of Markdown documents: every
// link to a file names a file or folder that exists, and every link to a
// heading (#anchor, or file.md#anchor) names a heading of that document,
// spelt as GitHub spells its anchors. Its test runs it over the project's
// documents (README.md, environment.md, docs/), so moving a section cannot
// leave a link behind.
package doclinks

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
)

var (
	fence    = regexp.MustCompile("^\\s*(```|~~~)")
	heading  = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	codeSpan = regexp.MustCompile("`[^`]*`")
	// link matches [text](target) and ![alt](target); the text may hold one
	// level of brackets, the target no spaces or parentheses.
	link        = regexp.MustCompile(`!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(([^()\s]+)(?:\s+"[^"]*")?\)`)
	inlineLinks = regexp.MustCompile(`\[([^\[\]]*)\]\([^()]*\)`)
)

// Slug is the anchor GitHub gives a heading's text: inline links reduced to
// their text, lower case, every character that is not a letter, digit,
// space, hyphen or underscore dropped (emphasis marks and backticks
// included), and each space made a hyphen.
func Slug(text string) string {
	text = inlineLinks.ReplaceAllString(text, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Doc is what a Markdown document offers and asks for: the anchors of its
// headings and the link targets of its text, outside code.
type Doc struct {
	// Anchors holds the anchor of every heading, repeated ones numbered as
	// GitHub numbers them (name, name-1, name-2, …).
	Anchors map[string]bool
	// Links lists the link targets with the line each stands on.
	Links []Link
}

// Link is one link target of a document.
type Link struct {
	Line   int
	Target string
}

// Parse reads the headings and links of a Markdown text, skipping fenced
// code blocks and code spans.
func Parse(md string) Doc {
	d := Doc{Anchors: map[string]bool{}}
	seen := map[string]int{}
	inFence := false
	for i, line := range strings.Split(md, "\n") {
		if fence.MatchString(line) {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		if m := heading.FindStringSubmatch(line); m != nil {
			s := Slug(m[1])
			if n := seen[s]; n > 0 {
				d.Anchors[fmt.Sprintf("%s-%d", s, n)] = true
			} else {
				d.Anchors[s] = true
			}
			seen[s]++
		}
		for _, m := range link.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, ""), -1) {
			d.Links = append(d.Links, Link{Line: i + 1, Target: m[1]})
		}
	}
	return d
}

// Check reads the Markdown file path and returns one error for each of its
// relative links that names a missing file or folder, or a heading its
// document lacks. Links with a scheme (https:, mailto:) are not checked.
func Check(path string) ([]error, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("doclinks: %w", err)
	}
	docs := map[string]Doc{path: Parse(string(b))}
	var errs []error
	for _, l := range docs[path].Links {
		if strings.Contains(l.Target, "://") || strings.HasPrefix(l.Target, "mailto:") {
			continue
		}
		file, anchor, _ := strings.Cut(l.Target, "#")
		target := path
		if file != "" {
			target = filepath.Join(filepath.Dir(path), filepath.FromSlash(file))
			if _, err := os.Stat(target); err != nil {
				errs = append(errs, fmt.Errorf("%s:%d: link %q: no file %s", path, l.Line, l.Target, target))
				continue
			}
		}
		if anchor == "" {
			continue
		}
		if !strings.HasSuffix(target, ".md") {
			errs = append(errs, fmt.Errorf("%s:%d: link %q: an anchor in a file that is not Markdown", path, l.Line, l.Target))
			continue
		}
		d, ok := docs[target]
		if !ok {
			tb, err := os.ReadFile(target)
			if err != nil {
				return nil, fmt.Errorf("doclinks: %s:%d: %w", path, l.Line, err)
			}
			d = Parse(string(tb))
			docs[target] = d
		}
		if !d.Anchors[anchor] {
			errs = append(errs, fmt.Errorf("%s:%d: link %q: %s has no heading with anchor #%s", path, l.Line, l.Target, target, anchor))
		}
	}
	return errs, nil
}
