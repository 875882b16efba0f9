package leaderboard_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// toolContext: a generous bound for commands that may first build a Go tool (actionlint builds once,
// about a minute cold), never beyond the test binary's own deadline.
func toolContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	t.Cleanup(cancel)
	if deadline, ok := t.Deadline(); ok {
		ctx, cancel = context.WithDeadline(ctx, deadline.Add(-5*time.Second))
		t.Cleanup(cancel)
	}
	return ctx
}

// goCommand: the go command on PATH. go test puts the GOROOT/bin of the toolchain running the test first
// on PATH, so this is that toolchain; GOTOOLCHAIN=local keeps go tool from switching to another.
func goCommand(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is not on PATH: %v", err)
	}
	return goBin
}

// TestWorkflowsPassActionlint: every workflow under .github/workflows passes actionlint (a Go tool of its
// own module, tools/actionlint/go.mod, so that Hugo's tools/go.mod is left alone).
func TestWorkflowsPassActionlint(t *testing.T) {
	var files []string
	for _, pattern := range []string{".github/workflows/*.yml", ".github/workflows/*.yaml"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Fatal("no workflow under .github/workflows")
	}
	args := append([]string{"tool", "-modfile=tools/actionlint/go.mod", "actionlint", "-color=false"}, files...)
	cmd := exec.CommandContext(toolContext(t), goCommand(t), args...)
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// TestCheckSubmissionScriptRefusesVerifiedRecords: scripts/check-submission.sh --base, run on a throwaway
// repository (SUBMISSIONS_REPO), refuses a change that carries verified records or stray files under
// submissions/, naming them, and has nothing to do when no submission changes. None of these cases builds or
// runs the validator.
func TestCheckSubmissionScriptRefusesVerifiedRecords(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	script, err := filepath.Abs("scripts/check-submission.sh")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name      string
		baseFiles map[string]string // in the base commit: path → content
		files     []string          // added by the change, relative to the repository root
		wantExit  int
		want      []string // in the output
	}{
		{
			name: "released submission changed",
			baseFiles: map[string]string{"site/releases.json": `{"releases": [{"version": "v1.3", "runs": ["submitted__2026-12-01_a_b_single-llm__tool-usage__single-llm__s0__b__mattools-v1__r1"]}]}`,
				"submissions/2026-12-01_a_b_single-llm/submission.toml": "x\n"},
			files:    []string{"submissions/2026-12-01_a_b_single-llm/README.md"},
			wantExit: 1,
			want:     []string{"submissions/2026-12-01_a_b_single-llm", "a release lists this submission's runs", "1 released submission folder(s) changed"},
		},
		{
			name:     "verified records",
			files:    []string{"verified/x/y.parquet", "submissions/2026-12-01_a_b_single-llm/submission.toml"},
			wantExit: 1,
			want:     []string{"verified/x/y.parquet"},
		},
		{
			name:     "code changed beside a submission",
			files:    []string{"submissions/2026-12-01_a_b_single-llm/submission.toml", ".github/workflows/submission.yml", "cmd/validate-submission/main.go"},
			wantExit: 1,
			want:     []string{".github/workflows/submission.yml", "cmd/validate-submission/main.go", "outside submissions/"},
		},
		{
			name:     "stray file under submissions",
			files:    []string{"submissions/stray.parquet"},
			wantExit: 1,
			want:     []string{"submissions/stray.parquet"},
		},
		{
			name:     "no submission change",
			files:    []string{"docs/notes.md", "submissions/README.md"},
			wantExit: 0,
			want:     []string{"no submission"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			repo := t.TempDir()
			git := func(args ...string) string {
				t.Helper()
				cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
				cmd.Env = gitEnv()
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
				}
				return strings.TrimSpace(string(out))
			}
			git("init", "-q")
			for f, content := range c.baseFiles {
				p := filepath.Join(repo, filepath.FromSlash(f))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			git("add", "-A")
			git("commit", "-q", "--allow-empty", "-m", "base")
			base := git("rev-parse", "HEAD")
			for _, f := range c.files {
				p := filepath.Join(repo, filepath.FromSlash(f))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			git("add", "-A")
			git("commit", "-q", "-m", "change")

			cmd := exec.CommandContext(toolContext(t), script, "--base", base, "--no-reexecute")
			cmd.Dir = repo
			cmd.Env = append(gitEnv(), "SUBMISSIONS_REPO="+repo, "GITHUB_ACTIONS=")
			out, err := cmd.CombinedOutput()
			exit := 0
			if err != nil {
				ee, ok := err.(*exec.ExitError)
				if !ok {
					t.Fatalf("%s: %v\n%s", script, err, out)
				}
				exit = ee.ExitCode()
			}
			if exit != c.wantExit {
				t.Errorf("exit status %d, want %d; output:\n%s", exit, c.wantExit, out)
			}
			for _, w := range c.want {
				if !strings.Contains(string(out), w) {
					t.Errorf("output does not name %q:\n%s", w, out)
				}
			}
		})
	}
}

// gitEnv: the environment for git in a throwaway repository, whatever the user's git configuration.
func gitEnv() []string {
	return append(os.Environ(),
		"GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=test", "GIT_AUTHOR_EMAIL=test@example.invalid",
		"GIT_COMMITTER_NAME=test", "GIT_COMMITTER_EMAIL=test@example.invalid",
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=init.defaultBranch", "GIT_CONFIG_VALUE_0=main",
	)
}

// TestPagesWorkflowRunsThePublishScript: .github/workflows/pages.yml builds the site with scripts/publish.sh
// (the script make test runs on the fixture site, so the two cannot drift) from the configure-pages base URL,
// uploads the folder the script wrote, and keeps to least permissions: contents: read for the workflow, pages:
// write and id-token: write on the deploy job alone, which only deploys; one publication at a time.
func TestPagesWorkflowRunsThePublishScript(t *testing.T) {
	data, err := os.ReadFile(".github/workflows/pages.yml")
	if err != nil {
		t.Fatal(err)
	}
	type step struct {
		ID   string            `yaml:"id"`
		Uses string            `yaml:"uses"`
		Run  string            `yaml:"run"`
		With map[string]any    `yaml:"with"`
		Env  map[string]string `yaml:"env"`
	}
	var wf struct {
		On          map[string]any    `yaml:"on"`
		Permissions map[string]string `yaml:"permissions"`
		Concurrency map[string]any    `yaml:"concurrency"`
		Jobs        map[string]struct {
			Permissions map[string]string `yaml:"permissions"`
			Steps       []step            `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"contents": "read"}; !reflect.DeepEqual(wf.Permissions, want) {
		t.Errorf("workflow permissions %v, want %v", wf.Permissions, want)
	}
	if g, c := wf.Concurrency["group"], wf.Concurrency["cancel-in-progress"]; g != "pages" || c != false {
		t.Errorf("concurrency %v, want group pages, cancel-in-progress false", wf.Concurrency)
	}
	for _, ev := range []string{"push", "workflow_dispatch"} {
		if _, ok := wf.On[ev]; !ok {
			t.Errorf("not run on %s", ev)
		}
	}
	if push, _ := wf.On["push"].(map[string]any); fmt.Sprint(push["branches"], push["tags"]) != "[main] [v*]" {
		t.Errorf("on push %v, want branches [main] and tags [v*]", push)
	}
	build, deploy := wf.Jobs["build"], wf.Jobs["deploy"]
	if len(wf.Jobs) != 2 || build.Permissions != nil {
		t.Errorf("jobs: want build (the workflow's permissions) and deploy; build has %v", build.Permissions)
	}
	if want := map[string]string{"pages": "write", "id-token": "write"}; !reflect.DeepEqual(deploy.Permissions, want) {
		t.Errorf("deploy permissions %v, want %v", deploy.Permissions, want)
	}
	if len(deploy.Steps) != 1 || !strings.HasPrefix(deploy.Steps[0].Uses, "actions/deploy-pages@") {
		t.Errorf("deploy steps %+v: want actions/deploy-pages alone", deploy.Steps)
	}
	uses := map[string]step{}
	var publish []step
	for _, s := range build.Steps {
		if name, _, ok := strings.Cut(s.Uses, "@"); ok {
			uses[name] = s
		}
		if strings.Contains(s.Run, "scripts/publish.sh") {
			publish = append(publish, s)
		}
	}
	if d := uses["actions/checkout"].With["fetch-depth"]; d != 0 {
		t.Errorf("checkout fetch-depth %v, want 0 (releases are rebuilt from their commits)", d)
	}
	if uses["actions/configure-pages"].ID != "pages" {
		t.Error("no actions/configure-pages step with id pages")
	}
	if len(publish) != 1 {
		t.Fatalf("%d steps run scripts/publish.sh, want 1", len(publish))
	}
	p := publish[0]
	if p.Run != `scripts/publish.sh "$RUNNER_TEMP/site" "$BASE_URL/"` || p.Env["BASE_URL"] != "${{ steps.pages.outputs.base_url }}" || p.Env["MATTOOLS_DATA"] == "" {
		t.Errorf("publish step %+v: want scripts/publish.sh \"$RUNNER_TEMP/site\" \"$BASE_URL/\" with BASE_URL from configure-pages and MATTOOLS_DATA", p)
	}
	if path := uses["actions/upload-pages-artifact"].With["path"]; path != "${{ runner.temp }}/site" {
		t.Errorf("upload-pages-artifact path %v, want the folder scripts/publish.sh wrote (${{ runner.temp }}/site)", path)
	}
	if !strings.Contains(string(data), "44385630f2acf461512996468fc0b24f44ddcaaf") {
		t.Error("pages.yml does not check out the pinned MatTools commit")
	}
}
