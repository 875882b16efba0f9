package jsonl

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type head struct {
	Journal string `json:"journal"`
}

type row struct {
	ID string `json:"id"`
}

// open opens path and returns the journal with the header and items it read.
func open(t *testing.T, path string) (*File, head, []row) {
	t.Helper()
	var h head
	var items []row
	f, err := Open(path, head{Journal: "test/1"},
		func(raw []byte) error { return json.Unmarshal(raw, &h) },
		func(n int, raw []byte) error {
			var r row
			if err := json.Unmarshal(raw, &r); err != nil {
				return err
			}
			items = append(items, r)
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	return f, h, items
}

func TestHeaderItemsAndTornLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "j.jsonl")
	f, h, items := open(t, path)
	if h.Journal != "" || len(items) != 0 {
		t.Fatalf("new journal read header %+v, items %v", h, items)
	}
	for _, id := range []string{"a", "b<c>"} {
		if err := f.Append(row{ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	b, _ := os.ReadFile(path)
	if want := "{\"journal\":\"test/1\"}\n{\"id\":\"a\"}\n{\"id\":\"b<c>\"}\n"; string(b) != want {
		t.Fatalf("journal = %q, want %q", b, want)
	}

	// A crash while the third item was written leaves a line without its newline.
	if err := os.WriteFile(path, append(b, `{"id":"c`...), 0o644); err != nil {
		t.Fatal(err)
	}
	f, h, items = open(t, path)
	if h.Journal != "test/1" || len(items) != 2 || items[1].ID != "b<c>" {
		t.Fatalf("reopened: header %+v, items %v", h, items)
	}
	if err := f.Append(row{ID: "c"}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	b, _ = os.ReadFile(path)
	if !strings.HasSuffix(string(b), "{\"id\":\"b<c>\"}\n{\"id\":\"c\"}\n") {
		t.Fatalf("torn line not cut before the append: %q", b)
	}
}

func TestItemErrorIsReturned(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	os.WriteFile(path, []byte("{\"journal\":\"test/1\"}\n{\"id\":\"a\"}\n"), 0o644)
	bad := errors.New("line 2 is bad")
	_, err := Open(path, head{}, func([]byte) error { return nil },
		func(n int, raw []byte) error {
			if n == 2 {
				return bad
			}
			return nil
		})
	if !errors.Is(err, bad) {
		t.Fatalf("err = %v, want the item's error", err)
	}
	// The failed Open released its lock.
	f, _, items := open(t, path)
	defer f.Close()
	if len(items) != 1 {
		t.Fatalf("items = %v", items)
	}
}
