// Package sitecheck checks a built site folder (public/, build/preview) as a
// static host would serve it: its size (pages, files, bytes per edition, the
// largest page, the pages over a weight budget) and its links. Every
// <a href>, <link href>, <img src> and <script src> that points inside the
// site must name a file that exists (a folder means its index.html) and,
// when it has a #fragment, an element of the target page with that id (or an
// <a name>); a same-page "#x" is checked against the page itself.
// Root-relative links ("/x/") are resolved under the base path the site is
// served from (Options.BasePath, "/leaderboard/" for a GitHub Pages project
// site), so a link that only works at the host's root is reported.
// scripts/publish.sh runs it through cmd/check-site before a site is
// published (docs/site.md, "Publishing").
package sitecheck

import (
	"bytes"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"

	"golang.org/x/net/html"
)

// DefaultPageBudget is the default weight budget of one page (the bytes
// of its html, without the files it loads): 500 KB, the bound the site's
// pages are cut to (docs/site.md, "Every page's size is bounded").
const DefaultPageBudget = 500 << 10

// DefaultTotalBudget is the default budget of the whole site: 1 GB, the
// size GitHub Pages allows a published site.
const DefaultTotalBudget = 1 << 30

// SearchIndexDir is the folder, under the site root, of the Pagefind search
// index (pagefind.js, pagefind-ui.js, the index fragments).
const SearchIndexDir = "pagefind"

// RootGroup names, in Report.Groups, the files directly under the site
// root and in its folders that are neither an edition nor the search index.
const RootGroup = "(root)"

// editionRE matches the top-level folders that are editions of the site.
var editionRE = regexp.MustCompile(`^(v[0-9]+(\.[0-9]+)*|preview|latest)$`)

// Options configure a check.
type Options struct {
	// BasePath is the URL path the site is served under, with leading and
	// trailing slashes ("/leaderboard/"); "" means "/". A root-relative
	// link must start with it.
	BasePath string
	// PageBudget is the most bytes a page's html may weigh: 0 means
	// DefaultPageBudget, a negative value no budget.
	PageBudget int64
	// TotalBudget is the most bytes the whole site may weigh: 0 means
	// DefaultTotalBudget, a negative value no budget.
	TotalBudget int64
	// Search requires the search index: SearchIndexDir with pagefind.js,
	// pagefind-ui.js and pagefind-entry.json.
	Search bool
}

// Group is the size of one part of the site: an edition (a top-level
// folder v1.0, preview, latest, …), the search index, or RootGroup.
type Group struct {
	Name  string
	Pages int   // .html files
	Files int   // all files, pages included
	Bytes int64 // sum of the files' sizes
}

// Page is one html file: its path relative to the site root
// (slash-separated) and its size in bytes.
type Page struct {
	Path  string
	Bytes int64
}

// Broken is one link that does not resolve.
type Broken struct {
	Page   string // the page holding the link (relative to the site root)
	Href   string // the attribute's value, as written
	Target string // what it resolves to: a path relative to the site root, "#id" appended for a missing anchor
	Reason string // "missing file", "missing anchor", "outside the base path" or "leaves the site"
}

// Anchor reports whether the link's file exists and only its #fragment does not.
func (b Broken) Anchor() bool { return b.Reason == reasonAnchor }

const (
	reasonFile    = "missing file"
	reasonAnchor  = "missing anchor"
	reasonBase    = "outside the base path"
	reasonLeaves  = "leaves the site"
	maxIDsPerPage = 1 << 20
)

// Report is what Check found.
type Report struct {
	Pages  int   // .html files
	Files  int   // all files
	Bytes  int64 // all files' sizes
	Groups []Group
	// Largest is the heaviest page; Heavy the pages over the page budget,
	// heaviest first.
	Largest Page
	Heavy   []Page
	// PageBudget and TotalBudget are the budgets applied, in bytes (negative: none).
	PageBudget, TotalBudget int64
	// Links counts the links checked (those inside the site); Broken lists
	// those that do not resolve, by page then order in the page.
	Links  int
	Broken []Broken
	// SearchMissing names the search index files that are absent (with Options.Search).
	SearchMissing []string
}

// OverTotal reports whether the site exceeds its total budget.
func (r *Report) OverTotal() bool { return r.TotalBudget >= 0 && r.Bytes > r.TotalBudget }

// Group returns the group of that name, or a zero Group.
func (r *Report) Group(name string) Group {
	for _, g := range r.Groups {
		if g.Name == name {
			return g
		}
	}
	return Group{Name: name}
}

// BrokenCounts counts the broken links whose file is missing (or lies
// outside the site) and those whose file exists but not their anchor.
func (r *Report) BrokenCounts() (files, anchors int) {
	for _, b := range r.Broken {
		if b.Anchor() {
			anchors++
		} else {
			files++
		}
	}
	return files, anchors
}

// BrokenTargets returns the distinct targets of the broken links with the
// number of links to each, most linked first (then by target).
func (r *Report) BrokenTargets() []TargetCount {
	n := map[string]*TargetCount{}
	var out []TargetCount
	for _, b := range r.Broken {
		if tc, ok := n[b.Target]; ok {
			tc.Links++
			continue
		}
		n[b.Target] = &TargetCount{Target: b.Target, Reason: b.Reason, Links: 1}
	}
	for _, tc := range n {
		out = append(out, *tc)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Links != out[j].Links {
			return out[i].Links > out[j].Links
		}
		return out[i].Target < out[j].Target
	})
	return out
}

// TargetCount is one distinct broken target and the links to it.
type TargetCount struct {
	Target, Reason string
	Links          int
}

// page is what one html file holds for the link check.
type page struct {
	ids   map[string]bool
	links []string
}

// Check walks dir, the root of a built site, and checks it (see the package
// comment). It returns an error only when the folder cannot be read or a
// page cannot be parsed; what is wrong with the site is in the Report.
func Check(dir string, o Options) (*Report, error) {
	base, err := normalizeBase(o.BasePath)
	if err != nil {
		return nil, err
	}
	r := &Report{PageBudget: o.PageBudget, TotalBudget: o.TotalBudget}
	if r.PageBudget == 0 {
		r.PageBudget = DefaultPageBudget
	}
	if r.TotalBudget == 0 {
		r.TotalBudget = DefaultTotalBudget
	}
	groups := map[string]*Group{}
	files := map[string]bool{} // every file, slash-separated relative path
	dirs := map[string]bool{"": true}
	var pages []Page
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." {
				dirs[rel] = true
			}
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		files[rel] = true
		name := RootGroup
		if top, _, ok := strings.Cut(rel, "/"); ok && (editionRE.MatchString(top) || top == SearchIndexDir) {
			name = top
		}
		g := groups[name]
		if g == nil {
			g = &Group{Name: name}
			groups[name] = g
		}
		g.Files++
		g.Bytes += info.Size()
		r.Files++
		r.Bytes += info.Size()
		if strings.HasSuffix(rel, ".html") {
			g.Pages++
			r.Pages++
			pages = append(pages, Page{Path: rel, Bytes: info.Size()})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, g := range groups {
		r.Groups = append(r.Groups, *g)
	}
	sort.Slice(r.Groups, func(i, j int) bool { return groupLess(r.Groups[i].Name, r.Groups[j].Name) })
	for _, p := range pages {
		if p.Bytes > r.Largest.Bytes || (p.Bytes == r.Largest.Bytes && p.Path < r.Largest.Path) {
			r.Largest = p
		}
		if r.PageBudget >= 0 && p.Bytes > r.PageBudget {
			r.Heavy = append(r.Heavy, p)
		}
	}
	sort.Slice(r.Heavy, func(i, j int) bool {
		if r.Heavy[i].Bytes != r.Heavy[j].Bytes {
			return r.Heavy[i].Bytes > r.Heavy[j].Bytes
		}
		return r.Heavy[i].Path < r.Heavy[j].Path
	})
	if o.Search {
		for _, f := range []string{"pagefind.js", "pagefind-ui.js", "pagefind-entry.json"} {
			if !files[SearchIndexDir+"/"+f] {
				r.SearchMissing = append(r.SearchMissing, SearchIndexDir+"/"+f)
			}
		}
	}

	parsed, err := parsePages(dir, pages)
	if err != nil {
		return nil, err
	}
	for _, p := range pages {
		pg := parsed[p.Path]
		for _, href := range pg.links {
			target, frag, reason, inside := resolve(p.Path, href, base, files, dirs)
			if !inside {
				continue
			}
			r.Links++
			if reason != "" {
				r.Broken = append(r.Broken, Broken{Page: p.Path, Href: href, Target: target, Reason: reason})
				continue
			}
			if frag == "" || frag == "top" || !strings.HasSuffix(target, ".html") {
				continue // "#top" scrolls to the top in every browser (HTML's "scroll to the fragment")
			}
			tp, ok := parsed[target]
			if !ok || !tp.ids[frag] {
				r.Broken = append(r.Broken, Broken{Page: p.Path, Href: href, Target: target + "#" + frag, Reason: reasonAnchor})
			}
		}
	}
	return r, nil
}

// groupLess orders the groups: the root's own files, the editions (v1.0 <
// v1.10 by their numbers, then latest, then preview), the search index.
func groupLess(a, b string) bool {
	rank := func(s string) int {
		switch {
		case s == RootGroup:
			return 0
		case strings.HasPrefix(s, "v"):
			return 1
		case s == "latest":
			return 2
		case s == "preview":
			return 3
		}
		return 4
	}
	if ra, rb := rank(a), rank(b); ra != rb {
		return ra < rb
	}
	if strings.HasPrefix(a, "v") && strings.HasPrefix(b, "v") {
		pa, pb := strings.Split(a[1:], "."), strings.Split(b[1:], ".")
		for i := 0; i < len(pa) && i < len(pb); i++ {
			if len(pa[i]) != len(pb[i]) {
				return len(pa[i]) < len(pb[i])
			}
			if pa[i] != pb[i] {
				return pa[i] < pb[i]
			}
		}
		return len(pa) < len(pb)
	}
	return a < b
}

// normalizeBase returns the base path with one leading and one trailing
// slash; a full URL ("https://owner.github.io/repo/") gives its path.
func normalizeBase(b string) (string, error) {
	if strings.Contains(b, "://") {
		u, err := url.Parse(b)
		if err != nil {
			return "", fmt.Errorf("base URL %q: %w", b, err)
		}
		b = u.Path
	}
	b = strings.Trim(b, "/")
	if b == "" {
		return "/", nil
	}
	return "/" + b + "/", nil
}

// resolve resolves href, found on the page at pagePath, to a file of the
// site. inside is false for links that leave the site by design (another
// scheme or host, an empty href). On success reason is empty and target
// is the file (a folder's index.html), frag the decoded fragment.
func resolve(pagePath, href, base string, files, dirs map[string]bool) (target, frag, reason string, inside bool) {
	href = strings.TrimSpace(href)
	if href == "" {
		return "", "", "", false
	}
	u, err := url.Parse(href)
	if err != nil {
		return href, "", reasonFile, true
	}
	if u.Scheme != "" || u.Host != "" || u.Opaque != "" {
		return "", "", "", false
	}
	frag = u.Fragment
	var p string
	switch {
	case u.Path == "":
		p = pagePath
	case strings.HasPrefix(u.Path, "/"):
		if !strings.HasPrefix(u.Path+"/", base) && u.Path+"/" != base {
			return u.Path, frag, reasonBase, true
		}
		p = strings.TrimPrefix(u.Path, strings.TrimSuffix(base, "/"))
		if strings.HasSuffix(u.Path, "/") {
			p += "/"
		}
		p = strings.TrimPrefix(p, "/")
	default:
		dir := path.Dir(pagePath)
		if dir == "." {
			dir = ""
		}
		if leavesRoot(dir, u.Path) {
			return u.Path, frag, reasonLeaves, true
		}
		p = strings.TrimPrefix(path.Join("/", dir, u.Path), "/")
		if strings.HasSuffix(u.Path, "/") || u.Path == "." || u.Path == ".." {
			p += "/"
		}
	}
	clean := strings.TrimPrefix(path.Clean("/"+p), "/")
	if clean == "." {
		clean = ""
	}
	switch {
	case strings.HasSuffix(p, "/") || dirs[clean]:
		if clean == "" {
			target = "index.html"
		} else {
			target = clean + "/index.html"
		}
	default:
		target = clean
	}
	if !files[target] {
		return target, frag, reasonFile, true
	}
	return target, frag, "", true
}

// leavesRoot reports whether the relative path rel, followed from the
// folder dir (relative to the site root, "" for the root), climbs above the
// site root at some point.
func leavesRoot(dir, rel string) bool {
	depth := 0
	if dir != "" {
		depth = strings.Count(dir, "/") + 1
	}
	for _, seg := range strings.Split(rel, "/") {
		switch seg {
		case "..":
			if depth--; depth < 0 {
				return true
			}
		case ".", "":
		default:
			depth++
		}
	}
	return false
}

// parsePages tokenizes every page, in parallel, for its ids and links.
func parsePages(dir string, pages []Page) (map[string]*page, error) {
	out := make(map[string]*page, len(pages))
	var mu sync.Mutex
	var firstErr error
	work := make(chan string)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for rel := range work {
				data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
				var pg *page
				if err == nil {
					pg, err = parsePage(data)
				}
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = fmt.Errorf("%s: %w", rel, err)
				}
				out[rel] = pg
				mu.Unlock()
			}
		}()
	}
	for _, p := range pages {
		work <- p.Path
	}
	close(work)
	wg.Wait()
	return out, firstErr
}

// linkAttr names, per element, the attribute that is a link.
var linkAttr = map[string]string{"a": "href", "link": "href", "img": "src", "script": "src"}

// parsePage collects a page's element ids (and <a name>s) and its links.
func parsePage(data []byte) (*page, error) {
	pg := &page{ids: map[string]bool{}}
	z := html.NewTokenizer(bytes.NewReader(data))
	for {
		switch z.Next() {
		case html.ErrorToken:
			if err := z.Err(); err != nil && err.Error() != "EOF" {
				return nil, err
			}
			return pg, nil
		case html.StartTagToken, html.SelfClosingTagToken:
			name, more := z.TagName()
			want := linkAttr[string(name)]
			isA := string(name) == "a"
			for more {
				var k, v []byte
				k, v, more = z.TagAttr()
				switch key := string(k); {
				case key == "id" || (isA && key == "name"):
					if len(pg.ids) < maxIDsPerPage {
						pg.ids[string(v)] = true
					}
				case key == want:
					pg.links = append(pg.links, string(v))
				}
			}
		}
	}
}
