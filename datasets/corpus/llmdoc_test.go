package corpus

import (
	"archive/zip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const goodEntry = `{"page_content": "**Defect**: a point defect.", "metadata": {"code_source_file": "pymatgen/analysis/defects/core.py", "type": "ClassDef", "name": "Defect", "code_start_line": 10, "code_end_line": 20, "have_return": true, "code_content": "class Defect:\n    pass\n", "name_column": 6, "item_status": "doc_up_to_date"}}`

func writeFile(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadLLMDocsBadEntries(t *testing.T) {
	cases := []struct{ name, from, to, want string }{
		{"unknown top", `"metadata":`, `"extra": 1, "metadata":`, "entry 1: extra: unknown field"},
		{"unknown meta", `"item_status"`, `"parent": null, "item_status"`, "entry 1: metadata.parent: unknown field"},
		{"missing name", `"name": "Defect", `, ``, "entry 1: metadata.name: missing"},
		{"empty page", `"**Defect**: a point defect."`, `"  "`, "entry 1: page_content: empty"},
		{"page not string", `"**Defect**: a point defect."`, `42`, "entry 1: page_content: want a string, got a number 42"},
		{"bad file", `"pymatgen/analysis/defects/core.py"`, `"src/core.py"`, "entry 1: metadata.code_source_file"},
		{"bad type", `"ClassDef"`, `"Module"`, "entry 1: metadata.type: \"Module\" is none of"},
		{"empty name", `"name": "Defect"`, `"name": ""`, "entry 1: metadata.name: empty"},
		{"lines", `"code_end_line": 20`, `"code_end_line": 9`, "entry 1: metadata.code_end_line: 9 is before code_start_line 10"},
		{"float line", `"code_start_line": 10`, `"code_start_line": 10.5`, "entry 1: metadata.code_start_line: want an integer"},
		{"string line", `"code_start_line": 10`, `"code_start_line": "10"`, "entry 1: metadata.code_start_line: want an integer, got a string"},
		{"return", `"have_return": true`, `"have_return": "yes"`, "entry 1: metadata.have_return: want a boolean, got a string"},
		{"status", `"doc_up_to_date"`, `"done"`, "entry 1: metadata.item_status: \"done\" is none of"},
		{"meta null", `"metadata": {`, `"metadata": null, "x": {`, "entry 1: x: unknown field"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bad := strings.Replace(goodEntry, c.from, c.to, 1)
			if bad == goodEntry {
				t.Fatalf("replacement %q not applied", c.from)
			}
			p := writeFile(t, "docs.json", "["+goodEntry+",\n"+bad+"]")
			_, err := LoadLLMDocs(p)
			if err == nil || !strings.Contains(err.Error(), "docs.json: "+c.want) {
				t.Fatalf("err = %v, want it to contain %q", err, c.want)
			}
		})
	}
	for name, body := range map[string]string{"not a list": `{"a": 1}`, "empty list": `[]`, "truncated": "[" + goodEntry[:40]} {
		if _, err := LoadLLMDocs(writeFile(t, "x.json", body)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	huge := strings.Replace(goodEntry, `"**Defect**: a point defect."`, `"`+strings.Repeat("a", MaxLLMDocBytes+1)+`"`, 1)
	if _, err := LoadLLMDocs(writeFile(t, "h.json", "["+huge+"]")); err == nil || !strings.Contains(err.Error(), "entry 0: page_content: 1048577 bytes, over the 1048576-byte cap") {
		t.Errorf("huge page_content: err = %v", err)
	}
}

func TestLLMDocsRoundTripZipAndSource4(t *testing.T) {
	docs, err := LoadLLMDocs(writeFile(t, "docs.json", "["+goodEntry+","+goodEntry+"]"))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 || docs[0].Metadata.Name != "Defect" || docs[0].Metadata.CodeEndLine != 20 || !docs[0].Metadata.HaveReturn || docs[0].Metadata.NameColumn != 6 {
		t.Fatalf("docs = %+v", docs)
	}
	docs[1].PageContent = "<b>second</b> & more"
	out := filepath.Join(t.TempDir(), "sub", "out.json")
	if err := WriteLLMDocs(out, docs); err != nil {
		t.Fatal(err)
	}
	back, err := LoadLLMDocs(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != 2 || back[1] != docs[1] || back[0] != docs[0] {
		t.Fatalf("round trip: %+v", back)
	}
	raw, _ := os.ReadFile(out)
	if !strings.Contains(string(raw), "<b>second</b> & more") {
		t.Errorf("HTML escaped: %s", raw)
	}
	// A zip holding one JSON file (the chunked upstream file's packaging).
	zp := filepath.Join(t.TempDir(), "docs.json.zip")
	f, _ := os.Create(zp)
	zw := zip.NewWriter(f)
	w, _ := zw.Create("documents_llm_doc_gemini_20_flash.json")
	w.Write(raw)
	zw.Close()
	f.Close()
	z, err := LoadLLMDocs(zp)
	if err != nil || len(z) != 2 || z[1] != docs[1] {
		t.Fatalf("zip: %v %+v", err, z)
	}
	// Writing an invalid entry fails and names it.
	bad := append([]LLMDoc(nil), docs...)
	bad[1].Metadata.Type = "Module"
	if err := WriteLLMDocs(out, bad); err == nil || !strings.Contains(err.Error(), "entry 1: metadata.type") {
		t.Errorf("WriteLLMDocs(bad) = %v", err)
	}
	c := BuildLLMDocFull(docs, "upstream gemini-2.0-flash")
	if c.Source != 4 || len(c.Chunks) != 2 || c.Files != 1 || c.Documents != 2 || c.Origin != "upstream gemini-2.0-flash" {
		t.Fatalf("corpus = %+v", c)
	}
	if c.Chunks[0].ID != "pymatgen/analysis/defects/core.py#Defect#0" || c.Chunks[1].ID != "pymatgen/analysis/defects/core.py#Defect#1" ||
		c.Chunks[1].Source != "pymatgen/analysis/defects/core.py" || c.Chunks[1].Text != "<b>second</b> & more" || c.ID != ComputeID(c.Chunks) {
		t.Errorf("chunks = %+v", c.Chunks)
	}
}
