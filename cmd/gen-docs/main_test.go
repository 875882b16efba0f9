package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets/corpus"
	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
	"github.com/mattools-leaderboard/leaderboard/runner/docgen"
)

func needPython(t *testing.T) string {
	t.Helper()
	root := mattoolstest.DataRoot(t, "to walk pymatgen")
	if _, err := os.Stat(docgen.DefaultPython); err != nil {
		t.Skipf("no %s", docgen.DefaultPython)
	}
	return root
}

func TestDryRunWholePymatgen(t *testing.T) {
	root := needPython(t)
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"-data", root, "-dry-run", "-price-in", "0.1", "-price-out", "0.4"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	t.Logf("\n%s", out.String())
	for _, want := range []string{"objects: 7192\n", "calls: 7192\n", "estimated prompt tokens: ", "estimated cost: $"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

func TestGenerateDefectsAgainstFake(t *testing.T) {
	root := needPython(t)
	const secret = "sk-test-never-printed"
	srv := llmtest.New(t, llmtest.Options{Responder: func(r llmtest.Request) llmtest.Reply {
		if r.Header.Get("Authorization") != "Bearer "+secret {
			return llmtest.Reply{Content: ""}
		}
		return llmtest.Reply{Content: "**Doc**: " + r.Prompt()[:200]}
	}})
	t.Setenv("GEN_DOCS_TEST_KEY", secret)
	dir := t.TempDir()
	outPath := filepath.Join(dir, "fake.json")
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"-data", root, "-under", "pymatgen/analysis/defects", "-model", "fake", "-base-url", srv.URL,
		"-api-key-env", "GEN_DOCS_TEST_KEY", "-concurrency", "4", "-out", outPath}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	t.Logf("\n%s", out.String())
	if strings.Contains(out.String()+errb.String(), secret) {
		t.Fatal("API key printed")
	}
	for _, want := range []string{"objects: 284 (0 from the journal)\n", "calls made: 284 (284 answered, 0 failed)\n", "flagged: 0 empty", "wall time: "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
	docs, err := corpus.LoadLLMDocs(outPath)
	if err != nil || len(docs) != 284 {
		t.Fatalf("%v, %d docs", err, len(docs))
	}
	if _, err := os.Stat(filepath.Join(dir, "fake.journal.jsonl")); err != nil {
		t.Fatal(err)
	}
}
