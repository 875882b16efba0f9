package runner

import (
	"encoding"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner/journal"
)

// A liveSource feeds writeOut while the run is still being answered:
// the results files are written alongside the answers, in
// question order, each row as soon as its question's journal line is on
// disk, so that writing them adds no serial tail to the run, and is
// committed (renamed into place) only once every question is in. A row's
// line is taken from memory when it is known to be what the journal holds
// (copyExact), otherwise read back from the journal. Memory stays bounded:
// at most maxLiveLines lines are held, the rest are read back.
//
// The file written is the same as an assembly after the run from the
// journal alone (the row order, every value and the run record do not
// depend on which lines came from memory); a run that is interrupted or
// fails leaves no results file, its temporary file is removed.
type liveSource struct {
	j    *journal.Journal
	max  int
	mu   sync.Mutex
	cond *sync.Cond
	// durable marks the items whose lines are on disk, by item index (at
	// most the run's questions); mem holds the offered lines not yet read.
	durable  map[int]bool
	mem      map[int]journal.Line
	memBytes int64 // lineBytes of mem's lines
	stopped  bool
}

// maxLiveLines and maxLiveBytes bound the lines a liveSource holds (the
// answers that came in while an earlier question is still out, the
// out-of-order window of the workers, plus those not yet written) and the
// bytes of their texts (lineBytes; an answer may be up to 1 MiB): 4,096
// QA lines of short answers are ~2 MB.
var (
	maxLiveLines       = 4096 // variables for tests
	maxLiveBytes int64 = 16 << 20
)

// lineBytes is the size of l's texts, what a held line costs beyond its
// fixed fields.
func lineBytes(l *journal.Line) int64 {
	n := int64(len(l.ID))
	if l.QA != nil {
		qaTexts(l.QA, func(s string) bool { n += int64(len(s)); return true })
	}
	return n
}

// qaTexts calls f with each text of q (its qaTextFields that are set)
// until f returns false, and reports whether none did.
func qaTexts(q *results.QAItem, f func(string) bool) bool {
	v := reflect.ValueOf(q).Elem()
	for _, i := range qaTextFields {
		fv := v.Field(i)
		if fv.Kind() == reflect.Pointer {
			if fv.IsNil() {
				continue
			}
			fv = fv.Elem()
		}
		if !f(fv.String()) {
			return false
		}
	}
	return true
}

// errLiveStopped is what a liveSource's read returns for a question that
// will not come: the run stopped (interrupted or failed) before it.
var errLiveStopped = errors.New("the run stopped before this question was answered")

// newLiveSource returns the live source of a run's items over journal j,
// opened and not yet appended to: the items j holds already (an earlier
// session's) are on disk.
func newLiveSource(j *journal.Journal, items []item) *liveSource {
	s := &liveSource{j: j, max: maxLiveLines, durable: map[int]bool{}, mem: map[int]journal.Line{}}
	s.cond = sync.NewCond(&s.mu)
	for _, it := range items {
		if j.Done(it.index) {
			s.durable[it.index] = true
		}
	}
	return s
}

// offer gives s the line of an item just appended to the journal; s keeps
// it if copyExact says the journal's copy decodes to the same line and
// there is room.
func (s *liveSource) offer(l journal.Line) {
	if !copyExact(&l) {
		return
	}
	n := lineBytes(&l)
	s.mu.Lock()
	if len(s.mem) < s.max && s.memBytes+n <= maxLiveBytes {
		s.mem[l.Index] = l
		s.memBytes += n
	}
	s.mu.Unlock()
}

// markDurable records that item index's line is on disk (journal.Options.OnDurable).
func (s *liveSource) markDurable(index int) {
	s.mu.Lock()
	s.durable[index] = true
	s.mu.Unlock()
	s.cond.Broadcast()
}

// stop ends the run's answering: a read waiting for a question that is not
// on disk returns errLiveStopped.
func (s *liveSource) stop() {
	s.mu.Lock()
	s.stopped = true
	s.mu.Unlock()
	s.cond.Broadcast()
}

// read returns item it's line once it is on disk (at once for a line of an
// earlier session): from memory if offered, else from the journal. After
// stop, a line not on disk is errLiveStopped.
func (s *liveSource) read(it item) (journal.Line, bool, error) {
	s.mu.Lock()
	for !s.durable[it.index] && !s.stopped {
		s.cond.Wait()
	}
	l, inMem := s.mem[it.index]
	// Only what was synced: the journal counts a line done from when it
	// is queued, also when its batch then fails to be written.
	onDisk := s.durable[it.index]
	if inMem {
		delete(s.mem, it.index)
		s.memBytes -= lineBytes(&l)
	}
	s.mu.Unlock()
	switch {
	case !onDisk:
		return journal.Line{}, false, errLiveStopped
	case inMem:
		return l, true, nil
	}
	return s.j.Read(it.index)
}

// copyExact reports whether l, decoded from its journal line, would equal
// l itself, so that the line in memory can stand for the journal's copy.
// It holds for QA lines whose texts are valid UTF-8: JSON encoding
// replaces invalid bytes by U+FFFD, and every other field of a QA row is a
// number or a pointer to one (qaTextFields; a field of any other kind
// makes every line be read back). Tool-usage lines (at most a benchmark's
// 49 questions per run, with code, outputs and scoring outcomes) are
// always read back.
func copyExact(l *journal.Line) bool {
	if l.QA == nil || l.Question != nil || l.Scored != nil || qaTextFields == nil || !utf8.ValidString(l.ID) {
		return false
	}
	return qaTexts(l.QA, utf8.ValidString)
}

// qaTextFields are the indices of results.QAItem's string and *string
// fields, or nil if it has a field that a JSON round trip might not keep
// as it is (anything but a string, a bool, an integer, or a pointer to one,
// of a plain type, exported and not left out of the JSON).
var qaTextFields = textFields(reflect.TypeFor[results.QAItem]())

// textFields returns the indices of struct type t's string and *string
// fields, or nil unless every field is one that a JSON round trip keeps
// (see qaTextFields).
func textFields(t reflect.Type) []int {
	var idx []int
	marshaler, textMarshaler := reflect.TypeFor[json.Marshaler](), reflect.TypeFor[encoding.TextMarshaler]()
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() || sf.Tag.Get("json") == "-" {
			return nil // not in the journal's line at all
		}
		ft := sf.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Implements(marshaler) || reflect.PointerTo(ft).Implements(marshaler) ||
			ft.Implements(textMarshaler) || reflect.PointerTo(ft).Implements(textMarshaler) {
			return nil // encoded its own way
		}
		switch ft.Kind() {
		case reflect.String:
			idx = append(idx, i)
		case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		default:
			return nil
		}
	}
	return idx
}

// removeStaleTemps removes the temporary files that a killed writer of
// results file path left (results' "." + name + ".tmp-*"); the journal's
// lock makes this process the only writer of the run.
func removeStaleTemps(path string) {
	dir, prefix := filepath.Dir(path), "."+filepath.Base(path)+".tmp-"
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), prefix) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
