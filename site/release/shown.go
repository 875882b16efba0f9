package release

import (
	"bytes"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/net/html"
)

// CheckShownTables checks that the ranked tables the pages under dir (an
// edition) show hold the numbers of their CSV downloads (ns, from
// ReadEditionNumbers of the same dir): for every table.ranked whose id
// (data-table) has numbers, every computed cell of a metric column (its
// header's data-protocol and data-metric) shows, as its sort key
// (data-sort, 6 decimals), the mean of the row's configuration of that
// protocol (the row's data-configs) within 0.00005, and the row's rank
// (data-rank) is the CSV's; the benchmark audit's rows (data-system) are
// checked the same way against their "audit:<system>/…" lines. So a
// template that shows a number in the wrong column, row or table fails,
// though the numbers manifest is read from the CSVs. It returns the cells
// checked and one line per difference, naming the page, table, row and
// column.
func CheckShownTables(dir string, ns Numbers) (checked int, diffs []string, err error) {
	byTable := map[string][]NumberKey{}
	for k := range ns {
		byTable[k.Table] = append(byTable[k.Table], k)
	}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".html") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if !bytes.Contains(b, []byte(`class="sortable ranked`)) {
			return nil
		}
		doc, err := html.Parse(bytes.NewReader(b))
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		rel, _ := filepath.Rel(dir, p)
		n, ds := checkPageTables(filepath.ToSlash(rel), doc, ns, byTable)
		checked += n
		diffs = append(diffs, ds...)
		return nil
	})
	return checked, diffs, err
}

type shownColumn struct{ protocol, metric string }

func checkPageTables(page string, doc *html.Node, ns Numbers, byTable map[string][]NumberKey) (checked int, diffs []string) {
	for _, tab := range findNodes(doc, func(n *html.Node) bool {
		return n.Data == "table" && hasClassAttr(n, "ranked") && attrOf(n, "data-table") != ""
	}) {
		id := attrOf(tab, "data-table")
		if len(byTable[id]) == 0 {
			continue // a table without a CSV download (e.g. a model's own list)
		}
		rows := findNodes(tab, func(n *html.Node) bool { return n.Data == "tr" })
		if len(rows) == 0 {
			continue
		}
		var cols []shownColumn
		for _, c := range cellsOf(rows[0]) {
			cols = append(cols, shownColumn{attrOf(c, "data-protocol"), attrOf(c, "data-metric")})
		}
		for _, tr := range rows[1:] {
			configs, system := strings.Fields(attrOf(tr, "data-configs")), attrOf(tr, "data-system")
			audit := hasClassAttr(tr, "audit-row")
			if !audit && (len(configs) == 0 || hasClassAttr(tr, "paper-only-row")) {
				continue
			}
			cells := cellsOf(tr)
			for i, c := range cells {
				if i >= len(cols) || cols[i].metric == "" {
					continue
				}
				col := cols[i]
				k, ok := shownKey(id, col, configs, audit, system, byTable[id])
				if !ok {
					continue
				}
				want, have := ns[k]["mean"], attrOf(c, "data-sort")
				checked++
				if !sameNumber(want, have) {
					diffs = append(diffs, fmt.Sprintf("%s: %s: the page shows %q, the table's CSV %q", page, k, have, want))
				}
				if rank := ns[k]["rank"]; rank != "" && !audit {
					if r := rankOf(cells); r != "" && r != rank && !(rank == "0" && r == "") {
						diffs = append(diffs, fmt.Sprintf("%s: %s: the page shows rank %s, the table's CSV %s", page, k, r, rank))
					}
				}
			}
		}
	}
	return checked, diffs
}

// shownKey finds the numbers' key of a shown cell: the row's configuration
// of the column's protocol (its key string holds "/<protocol>/"), or for an
// audit row the line "audit:<system>/…" of that protocol and metric.
func shownKey(table string, col shownColumn, configs []string, audit bool, system string, keys []NumberKey) (NumberKey, bool) {
	for _, k := range keys {
		if k.Metric != col.metric || k.Protocol != col.protocol {
			continue
		}
		if audit {
			if strings.HasPrefix(k.Configuration, "audit:"+system+"/") {
				return k, true
			}
			continue
		}
		for _, c := range configs {
			if c == k.Configuration && strings.Contains(c, "/"+col.protocol+"/") {
				return k, true
			}
		}
	}
	return NumberKey{}, false
}

func sameNumber(want, have string) bool {
	if want == "" || have == "" {
		return want == have
	}
	a, err1 := strconv.ParseFloat(want, 64)
	b, err2 := strconv.ParseFloat(have, 64)
	return err1 == nil && err2 == nil && math.Abs(a-b) <= 0.00005+1e-9
}

func rankOf(cells []*html.Node) string {
	for _, c := range cells {
		if hasClassAttr(c, "rank") {
			return attrOf(c, "data-rank")
		}
	}
	return ""
}

func cellsOf(tr *html.Node) []*html.Node {
	var out []*html.Node
	for c := tr.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && (c.Data == "td" || c.Data == "th") {
			out = append(out, c)
		}
	}
	return out
}

func findNodes(n *html.Node, keep func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && keep(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

func attrOf(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasClassAttr(n *html.Node, class string) bool {
	for _, c := range strings.Fields(attrOf(n, "class")) {
		if c == class {
			return true
		}
	}
	return false
}
