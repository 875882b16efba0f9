package submission

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// FuzzFindCredential: the credential patterns are RE2 (linear time), so a
// 1 MB string must not take seconds; a credential found stays found when
// the text is surrounded by other text (line breaks), and the kind reported
// is one of the patterns'.
func FuzzFindCredential(f *testing.F) {
	f.Add(`api_key = "sk-proj-AAAAAAAAAAAAAAAAAAAAAAAAAAAA"`)
	f.Add("Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345")
	f.Add("https://user:pass@example.org/v1")
	f.Add("-----BEGIN RSA PRIVATE KEY-----")
	f.Add(strings.Repeat("sk-", 1000) + strings.Repeat("a", 19))
	f.Add("no secret here: temperature = 0.7")
	kinds := map[string]bool{}
	for _, p := range credentialPatterns {
		kinds[p.kind] = true
	}
	f.Fuzz(func(t *testing.T, s string) {
		start := time.Now()
		k := FindCredential(s)
		if d := time.Since(start); d > 10*time.Second { // a blow-up, not a slow machine
			t.Fatalf("FindCredential took %v for %d bytes", d, len(s))
		}
		if k == "" {
			return
		}
		if !kinds[k] {
			t.Fatalf("unknown kind %q", k)
		}
		if FindCredential("x\n"+s+"\n.") == "" {
			t.Fatalf("credential (%s) lost when surrounded by lines", k)
		}
	})
}

// FuzzReadMetadata: submission.toml. No panic, bounded time; metadata
// accepted without problems has every required field and no credential.
func FuzzReadMetadata(f *testing.F) {
	f.Add([]byte(validMetadata))
	f.Add([]byte("organization = \"x\"\n[bad"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := &Submission{Folder: "2025-06-01_example-org_example-model_single-llm"}
		start := time.Now()
		ps := s.readMetadata("submission.toml", data)
		if d := time.Since(start); d > 10*time.Second {
			t.Fatalf("readMetadata took %v for %d bytes", d, len(data))
		}
		if len(ps) > 0 {
			return
		}
		m := s.Metadata
		if strings.TrimSpace(m.Organization) == "" || strings.TrimSpace(m.Model) == "" || m.RetrievalSource == nil ||
			m.OpenModel == nil || m.OpenSystem == nil || len(m.Authors) == 0 || FolderName(m) != s.Folder {
			t.Fatalf("accepted incomplete metadata %+v", m)
		}
		if k := FindCredential(string(data)); k != "" {
			t.Fatalf("accepted metadata holding a credential (%s)", k)
		}
	})
}

// FuzzCheckFooter: the footer checks run on a submitted file's bytes before
// it is decoded. No panic, bounded time.
func FuzzCheckFooter(f *testing.F) {
	for _, name := range []string{"tool-usage.parquet", "qa.parquet"} {
		if data, err := os.ReadFile(filepath.Join("..", "testdata", "v1", name)); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("PAR1PAR1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "f.parquet")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		checkFooter(p, DefaultLimits)
		if d := time.Since(start); d > 10*time.Second {
			t.Fatalf("checkFooter took %v for %d bytes", d, len(data))
		}
	})
}

// validMetadata is a complete submission.toml for the folder of
// FuzzReadMetadata (shaped like SUBMITTING.md's example, made up).
const validMetadata = `organization = "Example Org"
model = "example-model"
model_display_name = "Example Model"
provider = "Example Org"
benchmark = "tool-usage"
system = "single-llm"
retrieval_source = 0
authors = ["A. Author"]
contact = "a.author@example.org"
link = "https://example.org/example-model"
date = "2025-06-01"
model_release_date = "unknown"
open_model = true
open_system = true
outputs_license = "CC-BY-4.0"
`
