// Command check-site checks a built site folder before it is published
// (package site/sitecheck):
//
//	check-site [-base-url /leaderboard/] [-page-budget 500KB] [-total-budget 1GB] [-search] [-allow-heavy] [-list 20] DIR
//
// It prints the pages, files and bytes of the site and of each edition
// (v1.0, …, latest, preview), of the search index and of the root's own
// files, the largest page, the pages over the page budget, the links checked
// and every broken link and #anchor (the first -list of each kind, then the
// distinct broken targets). It exits 1 when a link or anchor is broken, the
// search index is missing (-search), or a budget is exceeded (unless
// -allow-heavy), 2 on a usage error.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/site/sitecheck"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("check-site", flag.ContinueOnError)
	fl.SetOutput(stderr)
	base := fl.String("base-url", "/", "the URL (https://owner.github.io/repo/) or path (/repo/) the site is served under: root-relative links must start with its path")
	pageBudget := byteFlag(fl, "page-budget", sitecheck.DefaultPageBudget, "the most a page's html may weigh (bytes, or with KB, MB, GB: powers of 1024); -1: no budget")
	totalBudget := byteFlag(fl, "total-budget", sitecheck.DefaultTotalBudget, "the most the whole site may weigh (as -page-budget); -1: no budget")
	search := fl.Bool("search", false, "require the search index ("+sitecheck.SearchIndexDir+"/pagefind.js, pagefind-ui.js, pagefind-entry.json)")
	allowHeavy := fl.Bool("allow-heavy", false, "report pages over the page budget without failing (the total budget still fails)")
	list := fl.Int("list", 20, "broken links listed per kind (missing file, missing anchor); -1: all")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: check-site [flags] DIR")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if fl.NArg() != 1 {
		fl.Usage()
		return 2
	}
	dir := fl.Arg(0)
	if _, err := os.Stat(dir); err != nil {
		fmt.Fprintln(stderr, "check-site:", err)
		return 1
	}
	r, err := sitecheck.Check(dir, sitecheck.Options{BasePath: *base, PageBudget: *pageBudget, TotalBudget: *totalBudget, Search: *search})
	if err != nil {
		fmt.Fprintln(stderr, "check-site:", err)
		return 1
	}
	failed := print(stdout, dir, *base, r, *list, *allowHeavy)
	if failed {
		return 1
	}
	return 0
}

// print writes the report and says whether it fails the check.
// Broken links on pages of the editions in tolerated are reported without failing.
func print(w io.Writer, dir, base string, r *sitecheck.Report, list int, allowHeavy bool) (failed bool) {
	fmt.Fprintf(w, "site %s (base %s): %d pages, %d files, %s\n", dir, base, r.Pages, r.Files, size(r.Bytes))
	for _, g := range r.Groups {
		name := g.Name
		if name == sitecheck.SearchIndexDir {
			name += " (search index)"
		}
		fmt.Fprintf(w, "  %-24s %6d pages %7d files %s\n", name, g.Pages, g.Files, size(g.Bytes))
	}
	fmt.Fprintf(w, "largest page: %s, %s\n", r.Largest.Path, size(r.Largest.Bytes))
	if r.PageBudget >= 0 {
		fmt.Fprintf(w, "pages over the page budget of %s: %d\n", size(r.PageBudget), len(r.Heavy))
		for _, p := range r.Heavy {
			fmt.Fprintf(w, "  %s %s\n", p.Path, size(p.Bytes))
		}
	}
	if r.OverTotal() {
		fmt.Fprintf(w, "the site (%s) is over its budget of %s\n", size(r.Bytes), size(r.TotalBudget))
	}
	if r.OverTotal() {
		failed = true
	}
	if len(r.Heavy) > 0 {
		if allowHeavy {
			fmt.Fprintln(w, "pages over the page budget reported only (-allow-heavy)")
		} else {
			failed = true
		}
	}
	if ix := r.Group(sitecheck.SearchIndexDir); ix.Files > 0 {
		fmt.Fprintf(w, "search index: %d files, %s\n", ix.Files, size(ix.Bytes))
	}
	for _, m := range r.SearchMissing {
		fmt.Fprintf(w, "search index: %s is missing\n", m)
		failed = true
	}
	files, anchors := r.BrokenCounts()
	targets := r.BrokenTargets()
	fmt.Fprintf(w, "links checked: %d; broken: %d (%d to a missing file or outside the site, %d to a missing anchor), %d distinct targets\n",
		r.Links, len(r.Broken), files, anchors, len(targets))
	for _, anchor := range []bool{false, true} {
		shown := 0
		for _, b := range r.Broken {
			if b.Anchor() != anchor {
				continue
			}
			if list >= 0 && shown >= list {
				fmt.Fprintf(w, "  … (-list -1 lists all)\n")
				break
			}
			fmt.Fprintf(w, "  %s: %q → %s (%s)\n", b.Page, b.Href, b.Target, b.Reason)
			shown++
		}
	}
	if len(targets) > 0 {
		fmt.Fprintln(w, "most linked broken targets:")
		for i, t := range targets {
			if list >= 0 && i >= list {
				fmt.Fprintf(w, "  … %d more\n", len(targets)-i)
				break
			}
			fmt.Fprintf(w, "  %6d  %s (%s)\n", t.Links, t.Target, t.Reason)
		}
	}
	if len(r.Broken) > 0 {
		failed = true // every edition is rendered by the running code: a broken link anywhere is fixable
	}
	if failed {
		fmt.Fprintln(w, "check-site: FAILED")
	} else {
		fmt.Fprintln(w, "check-site: ok")
	}
	return failed
}

// size writes n bytes exactly and in MiB or KiB.
func size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%d bytes (%.1f MiB)", n, float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d bytes (%.1f KiB)", n, float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// byteFlag defines a flag of a size in bytes, written as a number with an
// optional KB, MB or GB suffix (powers of 1024), or -1.
func byteFlag(fl *flag.FlagSet, name string, def int64, usage string) *int64 {
	v := def
	fl.Func(name, fmt.Sprintf("%s (default %d)", usage, def), func(s string) error {
		n, err := parseBytes(s)
		if err != nil {
			return err
		}
		v = n
		return nil
	})
	return &v
}

func parseBytes(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < -1 || (n == -1 && mult != 1) {
		return 0, fmt.Errorf("%q: want a number of bytes, optionally with KB, MB or GB, or -1", s)
	}
	if n == -1 {
		return -1, nil
	}
	return n * mult, nil
}
