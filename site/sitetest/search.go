package sitetest

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// SearchResult is what one search on the site's /search/ page gave.
type SearchResult struct {
	// URLs are the result links, in the order shown (paths under the base path).
	URLs []string
	// IndexBytes and IndexRequests are the bytes and requests of the
	// search index (pagefind/) the browser fetched for this search, the
	// page's load of Pagefind's code and wasm included (no cache); QueryBytes are those of the index chunks and
	// result fragments alone (what each further query fetches at most).
	IndexBytes, QueryBytes int64
	IndexRequests          int
}

// Searcher serves a built site under a base path and searches it in
// Debian's chromium (headless, through chromedp).
type Searcher struct {
	base string // the server's URL with the base path, ending in "/"
	srv  *httptest.Server
	ctx  context.Context
	stop func()

	mu       sync.Mutex
	bytes    int64
	query    int64
	requests int
}

// NewSearcher serves dir at basePath ("/leaderboard/") on 127.0.0.1 and
// starts chromium; without chromium the test is skipped (ChromiumPath).
// The Searcher is stopped at the end of the test.
func NewSearcher(t testing.TB, dir, basePath string) *Searcher {
	t.Helper()
	exe := ChromiumPath(t)
	s := &Searcher{}
	files := http.StripPrefix(strings.TrimSuffix(basePath, "/"), http.FileServer(http.Dir(dir)))
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// As GitHub Pages does: a path with no file gets the site's 404.html, status 404.
		if rel, ok := strings.CutPrefix(r.URL.Path, basePath); ok {
			p := filepath.Join(dir, filepath.FromSlash(rel))
			if st, err := os.Stat(p); err != nil || (st.IsDir() && !fileExists(filepath.Join(p, "index.html"))) {
				if page, err := os.ReadFile(filepath.Join(dir, "404.html")); err == nil {
					w.Header().Set("Content-Type", "text/html; charset=utf-8")
					w.WriteHeader(http.StatusNotFound)
					w.Write(page)
					return
				}
			}
		}
		if !strings.Contains(r.URL.Path, "/pagefind/") {
			files.ServeHTTP(w, r)
			return
		}
		cw := &countingWriter{ResponseWriter: w}
		files.ServeHTTP(cw, r)
		s.mu.Lock()
		s.bytes += cw.n
		s.requests++
		if strings.Contains(r.URL.Path, "/pagefind/index/") || strings.Contains(r.URL.Path, "/pagefind/fragment/") {
			s.query += cw.n
		}
		s.mu.Unlock()
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.srv = &httptest.Server{Listener: ln, Config: &http.Server{Handler: handler}}
	s.srv.Start()
	s.base = s.srv.URL + basePath
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.UserDataDir(t.TempDir()))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	s.ctx = actx
	s.stop = func() { cancelA(); s.srv.Close() }
	t.Cleanup(s.stop)
	return s
}

// Search opens the search page with ?q=query (and ?edition=edition when
// not empty) in a new tab with the browser's cache disabled and returns the
// results shown.
func (s *Searcher) Search(query, edition string) (SearchResult, error) {
	ctx, cancel := chromedp.NewContext(s.ctx)
	defer cancel()
	if err := chromedp.Do(ctx); err != nil { // starts the browser: no timeout on that context
		return SearchResult{}, err
	}
	tctx, cancelT := context.WithTimeout(ctx, 2*time.Minute)
	defer cancelT()
	s.mu.Lock()
	s.bytes, s.query, s.requests = 0, 0, 0
	s.mu.Unlock()
	q := url.Values{"q": {query}}
	if edition != "" {
		q.Set("edition", edition)
	}
	if _, err := chromedp.Call(tctx, network.Enable, network.EnableParams{}); err != nil {
		return SearchResult{}, err
	}
	if _, err := chromedp.Call(tctx, network.SetCacheDisabled, network.SetCacheDisabledParams{CacheDisabled: true}); err != nil {
		return SearchResult{}, err
	}
	err := chromedp.Do(tctx, chromedp.Navigate(s.base+"search/?"+q.Encode()),
		chromedp.WaitVisible(chromedp.CSS(".pagefind-ui__result-link")))
	if err != nil {
		return SearchResult{}, err
	}
	// The results render as Pagefind loads their fragments: wait until every result has its link.
	var urls []string
	for urls == nil {
		urls, err = chromedp.Run(tctx, chromedp.Evaluate[[]string](`(() => {
			const links = [...document.querySelectorAll(".pagefind-ui__result")].map(li => li.querySelector(".pagefind-ui__result-link"));
			return links.every(a => a) ? links.map(a => new URL(a.href).pathname) : null;
		})()`))
		if err == chromedp.ErrJSNull {
			urls, err = nil, nil
		}
		if err != nil {
			return SearchResult{}, err
		}
		if urls == nil {
			select {
			case <-tctx.Done():
				return SearchResult{}, tctx.Err()
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return SearchResult{URLs: urls, IndexBytes: s.bytes, QueryBytes: s.query, IndexRequests: s.requests}, nil
}

// countingWriter counts the body bytes written.
type countingWriter struct {
	http.ResponseWriter
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.ResponseWriter.Write(p)
	c.n += int64(n)
	return n, err
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// Visit opens path (under the base path, e.g. "latest/models/") in a new
// tab, waits until the page that stays shown has loaded (redirects
// followed), and returns its path and the result of the JavaScript
// expression js evaluated there (a string).
func (s *Searcher) Visit(path, js string) (finalPath, value string, err error) {
	ctx, cancel := chromedp.NewContext(s.ctx)
	defer cancel()
	if err := chromedp.Do(ctx); err != nil {
		return "", "", err
	}
	tctx, cancelT := context.WithTimeout(ctx, time.Minute)
	defer cancelT()
	if err := chromedp.Do(tctx, chromedp.Navigate(s.base+path)); err != nil {
		return "", "", err
	}
	// A redirect (meta refresh or location.replace) loads another page: wait until the path stays put.
	last := ""
	for stable := 0; stable < 3; {
		p, err := chromedp.Run(tctx, chromedp.Evaluate[string](`document.readyState === "complete" ? location.pathname : ""`))
		if err != nil && err != chromedp.ErrJSNull {
			return "", "", err
		}
		if p != "" && p == last {
			stable++
		} else {
			stable, last = 0, p
		}
		select {
		case <-tctx.Done():
			return "", "", tctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	v, err := chromedp.Run(tctx, chromedp.Evaluate[string](js))
	return last, v, err
}
