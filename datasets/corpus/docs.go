package corpus

import (
	"io/fs"
	"path"
	"strings"

	"golang.org/x/net/html"
)

// DocsHTMLDir and DefectsDocDir are the folders of retrieval source 2,
// relative to the data root's src/ folder.
const (
	DocsHTMLDir   = "tool_source_code/pymatgen/docs"
	DefectsDocDir = "defects_doc"
)

// DocsHTMLFiles and DefectsDocFiles are the input counts of source 2 in the
// published data.
const (
	DocsHTMLFiles   = 48
	DefectsDocFiles = 9
)

// BuildDocs builds retrieval source 2 from the MatTools data root root, as
// construct_doc.ipynb's "method2" cell does:
//
//   - the Sphinx pages: every regular file below
//     root/src/tool_source_code/pymatgen/docs/ (recursively, skipping
//     folders named "_modules") named "pymatgen*.html" or "modules.html"
//     (48 files, 15,823,111 bytes), sorted by path, each one document
//     loaded as BSHTMLLoader does (see HTMLText; UTF-8 with universal
//     newlines, the notebook's locale encoding), Source = the <title>;
//   - then root/src/defects_doc/*.txt (not recursive; 9 files, 8,285
//     bytes), sorted, each one document with its text unchanged (TextLoader,
//     UTF-8, universal newlines) and Source = "api overview — 2024.7.19
//     documentation" for api_overview.txt, else the file name without
//     ".txt", "_" replaced by ".", + " package — 2024.7.19 documentation".
//
// Each document is split by RecursiveCharacterTextSplitter(chunk_size=1000,
// chunk_overlap=50) with DefaultSeparators (see BuildCode for the rules).
// Errors name the path: a missing folder, an unreadable or non-UTF-8 file.
// Options.Python is not used.
func BuildDocs(root string, o Options) (*Corpus, error) {
	pages, err := readTree(root, DocsHTMLDir, func(name string) bool { return name == "_modules" },
		func(rel string, d fs.DirEntry) bool {
			n := d.Name()
			return (strings.HasPrefix(n, "pymatgen") && strings.HasSuffix(n, ".html")) || n == "modules.html"
		})
	if err != nil {
		return nil, err
	}
	txts, err := readTree(root, DefectsDocDir, func(string) bool { return true },
		func(rel string, d fs.DirEntry) bool { return strings.HasSuffix(d.Name(), ".txt") })
	if err != nil {
		return nil, err
	}
	all := append(append([]inputFile(nil), pages...), txts...)
	return cached(o, 2, all, func() (*Corpus, error) {
		var docs []document
		for _, f := range pages {
			t, err := decodeText(f)
			if err != nil {
				return nil, err
			}
			text, title := HTMLText(t)
			docs = append(docs, document{text: text, path: f.rel, source: title})
		}
		for _, f := range txts {
			t, err := decodeText(f)
			if err != nil {
				return nil, err
			}
			docs = append(docs, document{text: t, path: f.rel, source: defectsTitle(f.rel)})
		}
		return finish(2, len(all), docs, splitter{DefaultSeparators, ChunkSize, ChunkOverlap}), nil
	})
}

// defectsTitle is the notebook's title of a defects_doc/*.txt file.
func defectsTitle(rel string) string {
	stem := strings.TrimSuffix(path.Base(rel), ".txt")
	if stem == "api_overview" {
		return "api overview — 2024.7.19 documentation"
	}
	return strings.ReplaceAll(stem, "_", ".") + " package — 2024.7.19 documentation"
}

// HTMLText returns the text and title of an HTML page as LangChain's
// BSHTMLLoader gives them: BeautifulSoup(page, features="lxml").get_text()
// (separator "") and str(soup.title.string), with beautifulsoup4 4.15 on
// lxml 6.1 (libxml2 2.14; lxml 5.3 with libxml2 2.12 gives the same text
// for the 48 pages).
//
// The page is tokenized (golang.org/x/net/html, entities decoded) and the
// element stack is kept as libxml2's HTML parser keeps it: a start tag first
// closes the open elements it auto-closes (libxmlAutoClose, e.g. <dl>,
// <div>, <pre>, <ul> close an open <p>), and an end tag whose element is not
// open, or that would have to close an element of higher end priority
// (libxmlEndPriority), is dropped without a trace. bs4 collects the text
// between two parser events (start or end of an element, comment, doctype,
// processing instruction) as one string; a string made only of ASCII
// whitespace (space, \t, \n, \f, \r) becomes "\n" if it holds a newline,
// else " ", except inside <pre> or <textarea> (bs4's endData). Whitespace
// before the first element is dropped (libxml2's areBlanks). The text is
// the concatenation of these strings in document order, leaving out
// comments (including <![CDATA[…]]> and <?…?>, bogus comments for both
// parsers), the doctype and the contents of <script>, <style> and
// <template> (bs4's Script, Stylesheet and TemplateString, which get_text
// skips). The title is the text of the first <title> if it is its only
// string, "None" if it has no or several strings, "" without a <title>.
//
// Not modelled, because the Sphinx pages do not need it: elements libxml2
// inserts (implied <html>, <body>, <p>), foster parenting of misplaced
// table content, and the tags outside the published pages' set in the
// auto-close table.
func HTMLText(page string) (text, title string) {
	z := html.NewTokenizer(strings.NewReader(page))
	var out, run strings.Builder
	inRun := false
	var stack []string
	preserve, container := 0, 0
	titleState := 0 // 0 none seen, 1 inside the first title, 2 done
	titleParts := 0
	var titleText string
	endData := func() {
		if !inRun {
			return
		}
		s := run.String()
		run.Reset()
		inRun = false
		if preserve == 0 && strings.Trim(s, " \t\n\f\r") == "" {
			if strings.Contains(s, "\n") {
				s = "\n"
			} else {
				s = " "
			}
		}
		if titleState == 1 {
			titleParts++
			titleText = s
		}
		if container == 0 {
			out.WriteString(s)
		}
	}
	started := false
	pop := func() {
		switch stack[len(stack)-1] {
		case "pre", "textarea":
			preserve--
		case "script", "style", "template":
			container--
		case "title":
			if titleState == 1 {
				titleState = 2
			}
		}
		stack = stack[:len(stack)-1]
	}
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			endData()
			if titleState == 0 {
				return out.String(), ""
			}
			if titleParts != 1 {
				titleText = "None"
			}
			return out.String(), titleText
		case html.TextToken:
			t := z.Text()
			if !started && strings.Trim(string(t), " \t\n\f\r") == "" {
				continue
			}
			run.Write(t)
			inRun = true
		case html.StartTagToken, html.SelfClosingTagToken:
			started = true
			endData()
			name, _ := z.TagName()
			n := string(name)
			for len(stack) > 0 && libxmlAutoClose[stack[len(stack)-1]][n] {
				pop()
			}
			if voidElements[n] {
				continue
			}
			stack = append(stack, n)
			switch n {
			case "pre", "textarea":
				preserve++
			case "script", "style", "template":
				container++
			case "title":
				if titleState == 0 {
					titleState = 1
				}
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			n := string(name)
			i := len(stack) - 1
			for ; i >= 0 && stack[i] != n; i-- {
				if endPriority(stack[i]) > endPriority(n) {
					i = -1
					break
				}
			}
			if i < 0 {
				continue // libxml2 drops it: no event, the text run goes on
			}
			endData()
			for len(stack) > i {
				pop()
			}
		default: // comment, doctype
			endData()
		}
	}
}

var voidElements = map[string]bool{
	"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true, "img": true,
	"input": true, "link": true, "meta": true, "param": true, "source": true, "track": true, "wbr": true,
}

// libxmlAutoClose[open][start] reports that a start tag closes the open
// current element, for the tags of the published pages: measured with lxml
// 6.1.3 (libxml2 2.14.6) and equal to libxml2's htmlStartClose table.
var libxmlAutoClose = func() map[string]map[string]bool {
	m := map[string]map[string]bool{}
	for open, starts := range map[string]string{
		"a":     "a table td th",
		"dd":    "dt",
		"dl":    "form li",
		"dt":    "dd dl",
		"form":  "form",
		"h1":    "form li p table",
		"h2":    "form li p table",
		"h3":    "form li p table",
		"h4":    "form li p table",
		"h5":    "form li p table",
		"h6":    "form li p table",
		"i":     "p td th",
		"li":    "li",
		"ol":    "form",
		"p":     "blockquote dd div dl dt form h1 h2 h3 h4 h5 h6 li ol p pre table tbody td th tr ul hr",
		"pre":   "dd dl dt form li table ul",
		"span":  "td th",
		"tbody": "tbody",
		"td":    "tbody td th tr",
		"th":    "tbody td th tr",
		"thead": "tbody",
		"tr":    "tbody tr",
		"ul":    "form pre",
	} {
		m[open] = map[string]bool{}
		for _, s := range strings.Fields(starts) {
			m[open][s] = true
		}
	}
	return m
}()

// endPriority is libxml2's htmlGetEndPriority: an end tag closes the
// elements open above its own only if none has a higher priority.
func endPriority(name string) int {
	switch name {
	case "div":
		return 150
	case "td", "th":
		return 160
	case "tr":
		return 170
	case "thead", "tbody", "tfoot":
		return 180
	case "table":
		return 190
	case "head", "body":
		return 200
	case "html":
		return 220
	}
	return 100
}
