// Package hugo runs Hugo, the static site generator, as the project's Go
// tool (go tool -modfile=tools/go.mod hugo, Hugo v0.165.0): the only code
// that does. It writes the Hugo configuration for a build — the hand-written
// content/ and layouts/ of the repository mounted beside the generated
// content and static directories — and runs the build, in passes when the
// generated content is large (Options.PassBytes).
//
// Hugo holds every page's front matter for the whole of a build, so its
// memory grows with the total of the pages' data. The generated pages are
// self-contained (they link each other by the hrefs site/content computes;
// only the hand-written prose is looked up, by layouts/methodology.html), so
// disjoint sets of them can be rendered by separate Hugo runs into one
// destination with the same bytes as one run: each pass mounts the
// repository's content/ (the prose), its share of the generated pages and
// every section's _index.md (in full in the first pass, else as a stub that
// is never rendered, so that Hugo makes no section page of its own); the
// first pass alone mounts the static files. Nothing else is site-wide: the
// configuration disables sitemaps, RSS, robots.txt, 404 pages and taxonomies.
package hugo

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Options describe one Hugo build.
type Options struct {
	// RepoRoot is the repository root: it holds tools/go.mod, content/ and layouts/.
	RepoRoot string
	// WorkDir receives the generated configuration (hugo.json).
	WorkDir string
	// Content and Static are the generated content and static directories.
	Content, Static string
	// Destination is the output directory; it must not exist or be empty.
	Destination string
	// Go is the go command (default "go").
	Go string
	// PassBytes bounds the generated page files one Hugo pass reads, in
	// bytes (the section _index.md files, which every pass has, aside): 0
	// means DefaultPassBytes, a negative value one pass whatever the size.
	PassBytes int64
}

// DefaultPassBytes is the default of Options.PassBytes: 48 MiB of
// generated page files per Hugo pass. Measured by make site-scale (issue
// 17): one Hugo run over the ≈ 750 MB of pages of 5,000 runs peaked at
// 4.7 GiB (≈ 6 times the bytes it read); in passes of 48 MiB its peak was
// 0.5 GiB at 1,000 and at 5,000 runs. The published MatTools runs make
// 39 MB of pages (one pass).
const DefaultPassBytes = 48 << 20

// Stats describe a finished build.
type Stats struct {
	Passes int // Hugo runs
}

// RepositoryURL is this project's repository (Go module
// github.com/mattools-leaderboard/leaderboard), and RepositoryFiles the
// prefix of its files' pages on the default branch. The templates read them
// as the site parameters repository and repository_files (the footer links
// the repository, the submissions page SUBMITTING.md): this is the one
// place to change them.
const (
	RepositoryURL   = "https://github.com/mattools-leaderboard/leaderboard"
	RepositoryFiles = RepositoryURL + "/blob/main/"
)

// config is Hugo's configuration (hugo.json).
type config struct {
	BaseURL              string         `json:"baseURL"`
	Title                string         `json:"title"`
	Params               map[string]any `json:"params"`
	DisableKinds         []string       `json:"disableKinds"`
	DisableHugoGenerator bool           `json:"disableHugoGeneratorInject"`
	EnableRobotsTXT      bool           `json:"enableRobotsTXT"`
	Markup               map[string]any `json:"markup"`
	Module               map[string]any `json:"module"`
	IgnoreLogs           []string       `json:"ignoreLogs"`
	Build                map[string]any `json:"build"`
	Caches               map[string]any `json:"caches"`
}

// Build writes the configuration and runs Hugo over the generated content,
// in as many passes as Options.PassBytes needs (see the package comment),
// into Destination. Hugo's output is returned in the error when it fails.
func Build(ctx context.Context, o Options) (Stats, error) {
	if o.Go == "" {
		o.Go = "go"
	}
	var err error
	for _, p := range []*string{&o.RepoRoot, &o.WorkDir, &o.Content, &o.Static, &o.Destination} {
		if *p, err = filepath.Abs(*p); err != nil {
			return Stats{}, err
		}
	}
	if err := os.MkdirAll(o.WorkDir, 0o755); err != nil {
		return Stats{}, err
	}
	budget := o.PassBytes
	if budget == 0 {
		budget = DefaultPassBytes
	}
	passes, sections, err := partition(o.Content, budget)
	if err != nil {
		return Stats{}, err
	}
	stale, _ := filepath.Glob(filepath.Join(o.WorkDir, "hugo-pass-*.json")) // a previous build's passes
	for _, f := range stale {
		if err := os.Remove(f); err != nil {
			return Stats{}, err
		}
	}
	passRoot := filepath.Join(o.WorkDir, "passes")
	if err := os.RemoveAll(passRoot); err != nil {
		return Stats{}, err
	}
	if len(passes) <= 1 {
		return Stats{Passes: 1}, run(ctx, o, o.Content, o.Static, "hugo.json")
	}
	empty := filepath.Join(passRoot, "empty")
	if err := os.MkdirAll(empty, 0o755); err != nil {
		return Stats{}, err
	}
	for i, files := range passes {
		dir := filepath.Join(passRoot, fmt.Sprintf("%03d", i))
		for _, rel := range files {
			if err := linkOrCopy(filepath.Join(o.Content, rel), filepath.Join(dir, rel)); err != nil {
				return Stats{}, err
			}
		}
		for _, rel := range sections {
			if i == 0 {
				err = linkOrCopy(filepath.Join(o.Content, rel), filepath.Join(dir, rel))
			} else {
				err = writeStub(filepath.Join(o.Content, rel), filepath.Join(dir, rel))
			}
			if err != nil {
				return Stats{}, err
			}
		}
		static := empty
		if i == 0 {
			static = o.Static
		}
		if err := run(ctx, o, dir, static, fmt.Sprintf("hugo-pass-%03d.json", i)); err != nil {
			return Stats{}, fmt.Errorf("pass %d of %d: %w", i+1, len(passes), err)
		}
		if err := os.RemoveAll(dir); err != nil {
			return Stats{}, err
		}
	}
	return Stats{Passes: len(passes)}, os.RemoveAll(passRoot)
}

// partition splits the page files under dir (slash-separated paths
// relative to it, in lexical order) into passes of at most budget bytes
// each (a larger file makes a pass of its own; a negative budget puts all
// in one), and returns the section files (_index.md) apart.
func partition(dir string, budget int64) (passes [][]string, sections []string, err error) {
	var cur []string
	var size int64
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		if d.Name() == "_index.md" {
			sections = append(sections, rel)
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if budget >= 0 && len(cur) > 0 && size+info.Size() > budget {
			passes = append(passes, cur)
			cur, size = nil, 0
		}
		cur = append(cur, rel)
		size += info.Size()
		return nil
	})
	if len(cur) > 0 {
		passes = append(passes, cur)
	}
	return passes, sections, err
}

// linkOrCopy makes dst the file src: a hard link, or a copy where links
// are not possible.
func linkOrCopy(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if os.Link(src, dst) == nil {
		return nil
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o644)
}

// writeStub writes at dst a section page of src's title and URL that Hugo
// neither renders nor lists: it keeps Hugo from making a section page of
// its own in a pass that does not render the section's.
func writeStub(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	var fm struct {
		Title string `json:"title"`
		URL   string `json:"url"`
	}
	if err := json.Unmarshal(data, &fm); err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	stub, err := json.Marshal(map[string]any{"title": fm.Title, "url": fm.URL, "build": map[string]string{"render": "never", "list": "never"}})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, append(stub, '\n'), 0o644)
}

// run writes the configuration cfgName (in WorkDir) mounting content and
// static and runs one Hugo build into o.Destination.
func run(ctx context.Context, o Options, content, static, cfgName string) error {
	mount := func(src, target string) map[string]any { return map[string]any{"source": src, "target": target} }
	cfg := config{
		BaseURL: "/", Title: "MatTools leaderboard",
		Params:               map[string]any{"repository": RepositoryURL, "repository_files": RepositoryFiles},
		DisableKinds:         []string{"taxonomy", "term", "rss", "sitemap", "robotstxt", "404"},
		DisableHugoGenerator: true,
		Markup: map[string]any{
			"goldmark":  map[string]any{"renderer": map[string]any{"unsafe": false}},
			"highlight": map[string]any{"codeFences": false},
		},
		Module: map[string]any{"mounts": []any{
			mount(filepath.Join(o.RepoRoot, "content"), "content"),
			mount(content, "content"),
			mount(filepath.Join(o.RepoRoot, "layouts"), "layouts"),
			mount(static, "static"),
		}},
		// Question statements contain raw HTML-like text, which goldmark omits on purpose.
		IgnoreLogs: []string{"warning-goldmark-raw-html"},
		Caches:     map[string]any{"getresource": map[string]any{"dir": filepath.Join(o.WorkDir, "cache")}},
	}
	data, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return err
	}
	cfgFile := filepath.Join(o.WorkDir, cfgName)
	if err := os.WriteFile(cfgFile, data, 0o644); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, o.Go, "tool", "-modfile=tools/go.mod", "hugo", "build",
		"--source", o.WorkDir, "--config", cfgFile, "--destination", o.Destination,
		"--cacheDir", filepath.Join(o.WorkDir, "cache"), "--noBuildLock", "--quiet", "--panicOnWarning=false")
	cmd.Dir = o.RepoRoot // go tool -modfile needs to run inside the main module
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("hugo: %w\n%s", err, strings.TrimSpace(out.String()))
	}
	return nil
}
