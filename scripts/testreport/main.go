// Command testreport runs `go test -json` with its arguments and prints
// what `go test` prints (one line per package, the output of failed tests,
// build errors, the closing FAIL lines), then one line counting the tests
// that were skipped for lack of data:
//
//	skipped for lack of data: 12 tests (set MATTOOLS_DATA to a MatTools checkout to run them)
//
// A test counts when it was skipped with a message containing -pattern
// (default "MATTOOLS_DATA is not set", the message of
// internal/mattoolstest.DataRoot). The exit status is that of go test (2
// when it could not be started). Used by `make test`:
//
//	go run ./scripts/testreport ./...
//	go run ./scripts/testreport -go go1.26 -- -short ./site/...
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	ImportPath string // build-output events
}

func main() {
	goCmd := flag.String("go", "go", "the go command")
	pattern := flag.String("pattern", "MATTOOLS_DATA is not set|LIGHTRAG_DATA is not set", "a skip message containing one of these |-separated texts counts as skipped for lack of data")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: testreport [-go CMD] [-pattern TEXT] [--] [go test flags] packages")
		flag.PrintDefaults()
	}
	flag.Parse()
	cmd := exec.Command(*goCmd, append([]string{"test", "-json"}, flag.Args()...)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
		os.Exit(2)
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
		os.Exit(2)
	}
	w := bufio.NewWriter(os.Stdout)
	skipped := report(out, w, *pattern)
	err = cmd.Wait()
	fmt.Fprintf(w, "skipped for lack of data: %d tests (set MATTOOLS_DATA to a MatTools checkout and LIGHTRAG_DATA to LightRAG's prompt texts to run them)\n", skipped)
	w.Flush()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		os.Exit(ee.ExitCode())
	case err != nil:
		fmt.Fprintln(os.Stderr, "testreport:", err)
		os.Exit(2)
	}
}

// report reads `go test -json` events from r and writes to w what plain
// `go test` would print: package-level output (except the bare PASS of
// verbose mode), build output, and the output of every failed test. It
// returns the number of tests skipped with a message containing pattern.
// Lines that are not JSON events are copied as they are.
func report(r io.Reader, w *bufio.Writer, pattern string) int {
	buf := map[string]*strings.Builder{} // package + test → its output so far
	failedSubs := map[string]string{}    // package + test → the output of its failed subtests
	skipped := 0
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			w.Write(line)
			w.WriteByte('\n')
			continue
		}
		key := e.Package + "\x00" + e.Test
		switch {
		case e.Action == "build-output":
			w.WriteString(e.Output)
		case e.Test == "":
			if e.Action == "output" && e.Output != "PASS\n" && !strings.HasPrefix(e.Output, "=== ") {
				w.WriteString(e.Output)
			}
		case e.Action == "output":
			if buf[key] == nil {
				buf[key] = &strings.Builder{}
			}
			if !strings.HasPrefix(e.Output, "=== ") {
				buf[key].WriteString(e.Output)
			}
		case e.Action == "fail":
			// go test prints a failed test's "--- FAIL" line first, then
			// its log, then its failed subtests.
			text := failFirst(buf[key]) + failedSubs[key]
			delete(buf, key)
			delete(failedSubs, key)
			if i := strings.LastIndex(e.Test, "/"); i >= 0 {
				failedSubs[e.Package+"\x00"+e.Test[:i]] += text
			} else {
				w.WriteString(text)
			}
		case e.Action == "skip":
			if b := buf[key]; b != nil && slices.ContainsFunc(strings.Split(pattern, "|"), func(p string) bool { return strings.Contains(b.String(), p) }) {
				skipped++
			}
			delete(buf, key)
		case e.Action == "pass":
			delete(buf, key)
		}
		if e.Test == "" && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip") {
			w.Flush() // a package finished: show its line now
		}
	}
	return skipped
}

// failFirst returns the output b with its "--- FAIL" line moved first.
func failFirst(b *strings.Builder) string {
	if b == nil {
		return ""
	}
	lines := strings.SplitAfter(b.String(), "\n")
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimLeft(l, " "), "--- FAIL") {
			return l + strings.Join(lines[:i], "") + strings.Join(lines[i+1:], "")
		}
	}
	return b.String()
}
