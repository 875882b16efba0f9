package sitetest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// CheckTableShapes parses every .html file under dir and returns one
// message per table row (of thead, tbody, tfoot or the table itself) whose
// width in columns differs from its header row's, in the form
// "file: table id: row N has X cells, header has Y" (file relative to dir,
// id the table's id, else its data-table, else "#k" for the k-th table of
// the page counting from 1; N counts the table's rows from 1, the header
// row included). A row's width counts each td and th by its colspan (1 when
// absent or invalid) and the columns that rowspans from rows above still
// occupy (rowspan="0" spans the rest of its row group). The header row is
// the first row of the table's thead, else its first row. Nested tables
// are checked on their own. A column whose header cell has the class
// "extra" (hidden until the reader asks for it, static/assets/site.css) must
// have it on every cell of colspan 1 in that column, and only such a column:
// "file: table id: row N column C: cell extra false, header extra true"
// otherwise. Files that cannot be read or parsed are
// reported as "file: error"; nil when every row has its header's width.
func CheckTableShapes(dir string) []string {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".html") {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		f, err := os.Open(p)
		if err != nil {
			out = append(out, fmt.Sprintf("%s: %v", rel, err))
			return nil
		}
		doc, err := html.Parse(f)
		f.Close()
		if err != nil {
			out = append(out, fmt.Sprintf("%s: %v", rel, err))
			return nil
		}
		out = append(out, TableShapes(rel, doc)...)
		return nil
	})
	if err != nil {
		out = append(out, fmt.Sprintf("%s: %v", dir, err))
	}
	return out
}

// TableShapes is CheckTableShapes for one parsed page, named name in the
// messages.
func TableShapes(name string, doc *html.Node) []string {
	var out []string
	k := 0
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.DataAtom == atom.Table {
			k++
			out = append(out, tableShape(name, tableID(n, k), n)...)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return out
}

func tableID(t *html.Node, k int) string {
	for _, key := range []string{"id", "data-table"} {
		if v := attrOf(t, key); v != "" {
			return v
		}
	}
	return "#" + strconv.Itoa(k)
}

// hasClass reports whether n's class attribute lists c.
func hasClass(n *html.Node, c string) bool {
	return slices.Contains(strings.Fields(attrOf(n, "class")), c)
}

func attrOf(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// span reads a colspan or rowspan attribute: def when absent or not a
// number, the number otherwise (clamped at 0).
func span(n *html.Node, key string, def int) int {
	v, err := strconv.Atoi(strings.TrimSpace(attrOf(n, key)))
	if err != nil {
		return def
	}
	return max(v, 0)
}

// tableShape checks one table's rows, group by group in document order.
func tableShape(name, id string, t *html.Node) []string {
	type group struct {
		head bool
		rows []*html.Node
	}
	var groups []group
	var loose []*html.Node // rows directly under the table (the parser wraps them in tbody; kept for robustness)
	for c := t.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		switch c.DataAtom {
		case atom.Thead, atom.Tbody, atom.Tfoot:
			g := group{head: c.DataAtom == atom.Thead}
			for r := c.FirstChild; r != nil; r = r.NextSibling {
				if r.Type == html.ElementNode && r.DataAtom == atom.Tr {
					g.rows = append(g.rows, r)
				}
			}
			groups = append(groups, g)
		case atom.Tr:
			loose = append(loose, c)
		}
	}
	if len(loose) > 0 {
		groups = append(groups, group{rows: loose})
	}
	// Widths of every row, group by group (rowspans end with their group).
	type row struct {
		width int
		head  bool
		cells map[int]*html.Node // the cell that starts at a column, with colspan 1
	}
	var rows []row
	for _, g := range groups {
		var pending []int // pending[c]: rows still spanned in column c below the current row
		for i, r := range g.rows {
			left := len(g.rows) - i
			col, width := 0, 0
			cells := map[int]*html.Node{}
			next := func() { // skip columns still taken by rowspans from above
				for col < len(pending) && pending[col] > 0 {
					col++
				}
			}
			for c := r.FirstChild; c != nil; c = c.NextSibling {
				if c.Type != html.ElementNode || (c.DataAtom != atom.Td && c.DataAtom != atom.Th) {
					continue
				}
				next()
				cs, rs := max(span(c, "colspan", 1), 1), span(c, "rowspan", 1)
				if rs == 0 {
					rs = left
				}
				if cs == 1 {
					cells[col] = c
				}
				for j := 0; j < cs; j++ {
					for col+j >= len(pending) {
						pending = append(pending, 0)
					}
					pending[col+j] = rs
				}
				col += cs
			}
			for c, p := range pending {
				if p > 0 {
					width = max(width, c+1)
					pending[c] = p - 1
				}
			}
			rows = append(rows, row{width: width, head: g.head, cells: cells})
		}
	}
	if len(rows) == 0 {
		return nil
	}
	header := 0
	for i, r := range rows {
		if r.head {
			header = i
			break
		}
	}
	want := rows[header].width
	var out []string
	for i, r := range rows {
		if r.width != want {
			out = append(out, fmt.Sprintf("%s: table %s: row %d has %d cells, header has %d", name, id, i+1, r.width, want))
		}
		for c := 0; c < want && i != header; c++ {
			h, x := rows[header].cells[c], r.cells[c]
			if h != nil && x != nil && hasClass(h, "extra") != hasClass(x, "extra") {
				out = append(out, fmt.Sprintf("%s: table %s: row %d column %d: cell extra %v, header extra %v", name, id, i+1, c+1, hasClass(x, "extra"), hasClass(h, "extra")))
			}
		}
	}
	return out
}
