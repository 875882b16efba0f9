package sitecheck

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// writeSite writes files (slash paths → content) under a new folder.
func writeSite(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for rel, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// site is a small site with one edition, a preview and a search index, and
// one link of each kind, good and broken.
var site = map[string]string{
	"index.html": `<a href="v1.0/">v1.0</a><a href="v1.0/models/m/#scores">ok</a><a href="v1.0/models/m/#gone">anchor</a>` +
		`<a href="https://example.org/x">external</a><a href="mailto:a@b">mail</a><a href="">self</a>`,
	"releases/index.html": `<a href="../preview/">p</a><a href="../../outside.html">leaves</a><a href="/leaderboard/v1.0/models/m/">base ok</a>` +
		`<a href="/v1.0/">no base</a><a href="#top">top</a>`,
	"v1.0/index.html": `<link rel="stylesheet" href="assets/site.css"><script src="assets/missing.js"></script>` +
		`<img src="plot.svg"><a href="models/m">dir without slash</a><a href="#here">same page</a><h2 id="here">x</h2><a href="#nothere">same page broken</a>`,
	"v1.0/assets/site.css":     "body{}",
	"v1.0/plot.svg":            "<svg/>",
	"v1.0/models/m/index.html": `<section id="scores"></section><a name="legacy"></a><a href="../../#here">up</a><a href="../../index.html#legacy">wrong page</a><a href="./#legacy">legacy name</a>`,
	"preview/index.html":       strings.Repeat("x", 2048),
	"pagefind/pagefind.js":     "js",
}

func TestCheckCountsSizesAndFindsEveryBrokenLink(t *testing.T) {
	dir := writeSite(t, site)
	r, err := Check(dir, Options{BasePath: "https://owner.github.io/leaderboard/", PageBudget: 1024, Search: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Pages != 5 || r.Files != 8 {
		t.Errorf("pages %d, files %d; want 5, 8", r.Pages, r.Files)
	}
	var total int64
	for _, body := range site {
		total += int64(len(body))
	}
	if r.Bytes != total {
		t.Errorf("bytes %d, want %d", r.Bytes, total)
	}
	v10 := int64(len(site["v1.0/index.html"]) + len(site["v1.0/assets/site.css"]) + len(site["v1.0/plot.svg"]) + len(site["v1.0/models/m/index.html"]))
	wantGroups := []Group{
		{Name: RootGroup, Pages: 2, Files: 2, Bytes: int64(len(site["index.html"]) + len(site["releases/index.html"]))},
		{Name: "v1.0", Pages: 2, Files: 4, Bytes: v10},
		{Name: "preview", Pages: 1, Files: 1, Bytes: 2048},
		{Name: "pagefind", Files: 1, Bytes: 2},
	}
	if !reflect.DeepEqual(r.Groups, wantGroups) {
		t.Errorf("groups\n%+v\nwant\n%+v", r.Groups, wantGroups)
	}
	if r.Largest != (Page{"preview/index.html", 2048}) || !reflect.DeepEqual(r.Heavy, []Page{{"preview/index.html", 2048}}) {
		t.Errorf("largest %+v, heavy %+v; want preview/index.html (2048) over the 1024-byte budget", r.Largest, r.Heavy)
	}
	if want := []string{"pagefind/pagefind-ui.js", "pagefind/pagefind-entry.json"}; !reflect.DeepEqual(r.SearchMissing, want) {
		t.Errorf("search missing %v, want %v", r.SearchMissing, want)
	}
	var got []string
	for _, b := range r.Broken {
		got = append(got, b.Page+" "+b.Href+" → "+b.Target+" ("+b.Reason+")")
	}
	want := []string{
		"index.html v1.0/models/m/#gone → v1.0/models/m/index.html#gone (missing anchor)",
		"releases/index.html ../../outside.html → ../../outside.html (leaves the site)",
		"releases/index.html /v1.0/ → /v1.0/ (outside the base path)",
		"v1.0/index.html assets/missing.js → v1.0/assets/missing.js (missing file)",
		"v1.0/index.html #nothere → v1.0/index.html#nothere (missing anchor)",
		"v1.0/models/m/index.html ../../index.html#legacy → v1.0/index.html#legacy (missing anchor)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("broken links\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Links inside the site: 3 + 5 + 6 + 3 on the pages above (the external, mailto and empty ones are not).
	if r.Links != 17 {
		t.Errorf("links checked %d, want 17", r.Links)
	}
	if f, a := r.BrokenCounts(); f != 3 || a != 3 {
		t.Errorf("broken counts %d files, %d anchors; want 3, 3", f, a)
	}
	if n := len(r.BrokenTargets()); n != 6 {
		t.Errorf("%d distinct broken targets, want 6", n)
	}
}

func TestCheckAtTheHostRootAcceptsRootRelativeLinks(t *testing.T) {
	dir := writeSite(t, map[string]string{
		"index.html":      `<a href="/v1.0/#x">a</a><a href="/">root</a><a href="/v1.0/gone.css">b</a><a href="/v1.0/#y">c</a>`,
		"v1.0/index.html": `<p id="x">`,
	})
	r, err := Check(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	targets := r.BrokenTargets()
	want := []TargetCount{{Target: "v1.0/gone.css", Reason: reasonFile, Links: 1}, {Target: "v1.0/index.html#y", Reason: reasonAnchor, Links: 1}}
	if r.Links != 4 || !reflect.DeepEqual(targets, want) {
		t.Errorf("links %d, broken targets %+v; want 4 links, %+v", r.Links, targets, want)
	}
	if r.PageBudget != DefaultPageBudget || r.TotalBudget != DefaultTotalBudget || r.OverTotal() {
		t.Errorf("budgets %d, %d (over: %v); want the defaults, not over", r.PageBudget, r.TotalBudget, r.OverTotal())
	}
}

func TestGroupOrder(t *testing.T) {
	names := []string{"pagefind", "preview", "v1.10", "latest", "v1.2", RootGroup, "v2.0"}
	for i := 0; i < len(names); i++ {
		for j := i + 1; j < len(names); j++ {
			if groupLess(names[i], names[j]) {
				names[i], names[j] = names[j], names[i]
			}
		}
	}
	if want := []string{"pagefind", "preview", "latest", "v2.0", "v1.10", "v1.2", RootGroup}; !reflect.DeepEqual(names, want) {
		t.Errorf("descending order %v, want %v", names, want)
	}
}
