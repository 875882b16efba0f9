// Package hugo runs Hugo, the static site generator, as the project's Go
// tool (go tool -modfile=tools/go.mod hugo, Hugo v0.165.0): the only code
// that does. It writes the Hugo configuration for a build — the hand-written
// content/ and layouts/ of the repository mounted beside the generated
// content and static directories — and runs one build.
package hugo

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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
}

// config is Hugo's configuration (hugo.json).
type config struct {
	BaseURL              string         `json:"baseURL"`
	Title                string         `json:"title"`
	DisableKinds         []string       `json:"disableKinds"`
	DisableHugoGenerator bool           `json:"disableHugoGeneratorInject"`
	EnableRobotsTXT      bool           `json:"enableRobotsTXT"`
	Markup               map[string]any `json:"markup"`
	Module               map[string]any `json:"module"`
	IgnoreLogs           []string       `json:"ignoreLogs"`
	Build                map[string]any `json:"build"`
	Caches               map[string]any `json:"caches"`
}

// Build writes the configuration and runs Hugo. Hugo's output is returned in
// the error when it fails.
func Build(ctx context.Context, o Options) error {
	if o.Go == "" {
		o.Go = "go"
	}
	abs := func(p string) (string, error) { return filepath.Abs(p) }
	var err error
	for _, p := range []*string{&o.RepoRoot, &o.WorkDir, &o.Content, &o.Static, &o.Destination} {
		if *p, err = abs(*p); err != nil {
			return err
		}
	}
	mount := func(src, target string) map[string]any { return map[string]any{"source": src, "target": target} }
	cfg := config{
		BaseURL: "/", Title: "MatTools leaderboard",
		DisableKinds:         []string{"taxonomy", "term", "rss", "sitemap", "robotstxt", "404"},
		DisableHugoGenerator: true,
		Markup: map[string]any{
			"goldmark":  map[string]any{"renderer": map[string]any{"unsafe": false}},
			"highlight": map[string]any{"codeFences": false},
		},
		Module: map[string]any{"mounts": []any{
			mount(filepath.Join(o.RepoRoot, "content"), "content"),
			mount(o.Content, "content"),
			mount(filepath.Join(o.RepoRoot, "layouts"), "layouts"),
			mount(o.Static, "static"),
		}},
		// Question statements contain raw HTML-like text, which goldmark omits on purpose.
		IgnoreLogs: []string{"warning-goldmark-raw-html"},
		Caches:     map[string]any{"getresource": map[string]any{"dir": filepath.Join(o.WorkDir, "cache")}},
	}
	data, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.WorkDir, 0o755); err != nil {
		return err
	}
	cfgFile := filepath.Join(o.WorkDir, "hugo.json")
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
