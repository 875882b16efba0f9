package jsonl

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type testHeader struct {
	Journal string `json:"journal"`
	Model   string `json:"model"`
}

type testLine struct {
	ID     string `json:"id"`
	Step   string `json:"step"`
	Answer string `json:"answer"`
}

var testSpec = Spec[testHeader, testLine]{
	Program: "prog", Kind: "test", Version: "test-journal/1",
	Key: func(l testLine) string {
		if l.ID == "" || l.Step == "" {
			return ""
		}
		return l.ID + "\x00" + l.Step
	},
	Mismatch: func(h, want testHeader) string {
		return fmt.Sprintf("was written for model %q; this run uses model %q", h.Model, want.Model)
	},
	InUse: "one test per journal",
}

// openTest opens the test journal at path, for model "m".
func openTest(t *testing.T, path string) *Journal[testLine] {
	t.Helper()
	j, err := OpenJournal(path, testHeader{"test-journal/1", "m"}, testSpec)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// canceled returns a context that has ended.
func canceled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// TestJournalResumesItsLines: lines added are on disk as exact JSON lines
// and read back by key on reopening, the last of a key winning; a torn
// last line is dropped.
func TestJournalResumesItsLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	j := openTest(t, path)
	for _, l := range []testLine{{"a", "1", "x<y>"}, {"a", "2", "z"}, {"a", "1", "again"}} {
		if err := j.Add(l); err != nil {
			t.Fatal(err)
		}
	}
	if l, ok := j.Get("a\x001"); !ok || l.Answer != "again" || j.Len() != 2 {
		t.Fatalf("Get(a 1) = %+v, %v; Len %d", l, ok, j.Len())
	}
	j.Close()
	b, _ := os.ReadFile(path)
	want := `{"journal":"test-journal/1","model":"m"}
{"id":"a","step":"1","answer":"x<y>"}
{"id":"a","step":"2","answer":"z"}
{"id":"a","step":"1","answer":"again"}
`
	if string(b) != want {
		t.Fatalf("journal = %q, want %q", b, want)
	}
	os.WriteFile(path, append(b, `{"id":"b","st`...), 0o644)
	j = openTest(t, path)
	defer j.Close()
	l1, ok1 := j.Get("a\x001")
	l2, ok2 := j.Get("a\x002")
	if !ok1 || l1.Answer != "again" || !ok2 || l2.Answer != "z" || j.Len() != 2 {
		t.Fatalf("reopened: %+v %v, %+v %v, Len %d", l1, ok1, l2, ok2, j.Len())
	}
	j.Forget("a\x002")
	if _, ok := j.Get("a\x002"); ok || j.Len() != 1 {
		t.Fatalf("after Forget: Len %d", j.Len())
	}
}

// TestJournalRefusals: each refusal names the program, the file and what
// is wrong.
func TestJournalRefusals(t *testing.T) {
	dir := t.TempDir()
	h := testHeader{"test-journal/1", "m"}
	for _, c := range []struct{ name, content, want string }{
		{"notheader", "{\"model\":\"m\"}\n", "the first line is not a test journal header"},
		{"version", "{\"journal\":\"test-journal/0\",\"model\":\"m\"}\n", `version "test-journal/0", want "test-journal/1"`},
		{"model", "{\"journal\":\"test-journal/1\",\"model\":\"other\"}\n", `was written for model "other"; this run uses model "m"`},
		{"unknownfield", "{\"journal\":\"test-journal/1\",\"model\":\"m\"}\n{\"id\":\"a\",\"step\":\"1\"}\n{\"id\":\"a\",\"extra\":1}\n", "line 3 is not a journal line"},
		{"nokey", "{\"journal\":\"test-journal/1\",\"model\":\"m\"}\n{\"id\":\"a\"}\n", "line 2 is not a journal line"},
	} {
		path := filepath.Join(dir, c.name)
		os.WriteFile(path, []byte(c.content), 0o644)
		_, err := OpenJournal(path, h, testSpec)
		if want := "prog: journal " + path + ": " + c.want; err == nil || err.Error() != want {
			t.Errorf("%s: err = %v, want %q", c.name, err, want)
		}
	}
	path := filepath.Join(dir, "locked")
	j := openTest(t, path)
	defer j.Close()
	_, err := OpenJournal(path, h, testSpec)
	if err == nil || !strings.HasPrefix(err.Error(), "prog: journal "+path+" is in use by another process (") || !strings.HasSuffix(err.Error(), ": one test per journal") {
		t.Errorf("second open: %v", err)
	}
}

// TestJournalKeepsItsFirstError: after a failed write, Add writes nothing
// more and returns the first error, as Err does.
func TestJournalKeepsItsFirstError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	j := openTest(t, path)
	j.f.f.Close() // as a disk that fails
	first := j.Add(testLine{"a", "1", "x"})
	if first == nil || j.Err() != first || j.Add(testLine{"b", "1", "y"}) != first || j.Len() != 0 {
		t.Fatalf("Add after a failed write: %v, Err %v, Len %d", first, j.Err(), j.Len())
	}
	if err := j.Stopped(canceled(), 0, 2, "items"); err == nil || err.Error() != "prog: journal "+path+": "+first.Error() {
		t.Errorf("Stopped after a failed write: %v", err)
	}
}

// TestJournalStopped: a run whose context ended says how far it got and
// where to resume from; one that ran to its end is not stopped.
func TestJournalStopped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	j := openTest(t, path)
	defer j.Close()
	if err := j.Stopped(context.Background(), 2, 2, "tests"); err != nil {
		t.Errorf("finished run: %v", err)
	}
	want := "prog: stopped with 1 of 3 tests finished (journal " + path + "; run again to resume): context canceled"
	if err := j.Stopped(canceled(), 1, 3, "tests"); err == nil || err.Error() != want || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run: %v, want %q", err, want)
	}
}
