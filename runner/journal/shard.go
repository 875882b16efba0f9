package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/internal/version"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
)

// Shard is one of Count parts of a work's items, for running it on several
// machines (the runner's Options.Shard, the re-execution commands' -shard).
// The items are numbered k = 0, 1, … in the work's order (a plan's: its
// (configuration, round, question) triples, the order of Plan.Runs, then
// each run's questions in benchmark order); item k belongs to shard
// k mod Count. The partition depends only on the work and the data, so
// every machine computes the same one, and each shard gets every Count-th
// question of every run (their sizes differ by at most one item per run).
// Index is 0-based, as a Kubernetes Indexed Job's completion index: shards
// 0/4, 1/4, 2/4 and 3/4 make a whole plan.
type Shard struct{ Index, Count int }

// ParseShard parses "i/n" (0 ≤ i < n).
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	sh := Shard{i, n}
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("shard %q: want i/n, e.g. 0/4 (shard indices are 0-based)", s)
	}
	if err := sh.Check(); err != nil {
		return Shard{}, err
	}
	return sh, nil
}

// Check returns an error unless s is the zero Shard (no sharding) or
// 0 ≤ Index < Count.
func (s Shard) Check() error {
	if s == (Shard{}) {
		return nil
	}
	if s.Count < 1 || s.Index < 0 || s.Index >= s.Count {
		return fmt.Errorf("shard %d/%d: want 0 ≤ i < n (shard indices are 0-based)", s.Index, s.Count)
	}
	return nil
}

// String returns "i/n".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Owns reports whether item k (0-based, in partition order) is the shard's:
// k mod Count = Index. The zero Shard, or one of a single part, owns every item.
func (s Shard) Owns(k int) bool { return s.Count <= 1 || k%s.Count == s.Index }

// Suffix is the shard's part of its journals' file names
// (".shard-<i>-of-<n>", before ".jsonl").
func (s Shard) Suffix() string { return fmt.Sprintf(".shard-%d-of-%d", s.Index, s.Count) }

var shardJournalRE = regexp.MustCompile(`\.shard-(\d+)-of-(\d+)\.jsonl$`)

// ShardJournal is one shard's journal of one journal id, opened read-only.
type ShardJournal struct {
	Shard Shard
	Dir   string // the shard's output directory
	J     *Journal
}

// SessionScoring returns the sandbox environment of the shard's first session.
func (s *ShardJournal) SessionScoring() *scoring.Environment {
	if len(s.J.sessions) == 0 {
		return nil
	}
	return s.J.sessions[0].Scoring
}

// Item is one item of a sharded work as its shard set reads it: Index is
// its index in its journal, K its position in the partition.
type Item struct {
	Index, K int
	ID       string
}

// ShardSet is the checked shard journals of one journal id (OpenShardSet).
type ShardSet struct {
	Shards []*ShardJournal // in shard order, one per shard 0…n−1
	// Env is the sandbox environment every shard scored in (nil when the
	// work is not scored).
	Env *scoring.Environment
	// Sessions are every shard's session lines, shard by shard; Resumed is
	// the number of sessions that continued an interrupted one.
	Sessions  []Line
	Resumed   int
	Generator string // the program that wrote the shards
}

// Read returns item it's line from its shard's journal, and whether there is one.
func (s *ShardSet) Read(it Item) (Line, bool, error) {
	return s.Shards[it.K%len(s.Shards)].J.Read(it.Index)
}

// Close closes the shards' journals.
func (s *ShardSet) Close() {
	for _, sh := range s.Shards {
		sh.J.Close()
	}
}

// OpenShardSet opens and checks the shard journals of journal id in dirs
// (each an output directory of one or more shards, holding Dir): one
// journal per shard 0…n−1, of one n; every session recording fingerprint,
// planSHA (when set), this program's GeneratorVersion and one generator,
// and, when scored, one sandbox environment. items are the work's items
// with their positions K in the partition; each item for which need is
// true (every item when need is nil) must be journaled by its shard, and
// no shard may hold an item of another. Errors name the shard's journal;
// on error nothing is left open.
func OpenShardSet(id, fingerprint, planSHA string, scored bool, items []Item, need func(Item) bool, dirs []string) (_ *ShardSet, err error) {
	shards, err := OpenShards(id, dirs)
	set := &ShardSet{Shards: shards}
	defer func() {
		if err != nil {
			set.Close()
		}
	}()
	if err != nil {
		return nil, err
	}
	n := shards[0].Shard.Count
	if scored {
		set.Env = shards[0].SessionScoring()
		if set.Env == nil {
			return nil, fmt.Errorf("shard %s (%s): its sessions record no sandbox environment, but the run is scored", shards[0].Shard, shards[0].J.path)
		}
	}
	pos := make(map[int]int, len(items)) // item index → partition position
	for _, it := range items {
		pos[it.Index] = it.K
	}
	for _, s := range shards {
		if err := s.J.Check(id, fingerprint, set.Env); err != nil {
			return nil, fmt.Errorf("shard %s: %w", s.Shard, err)
		}
		for i, l := range s.J.sessions {
			at := fmt.Sprintf("shard %s: journal %s (session %d)", s.Shard, s.J.path, i+1)
			switch {
			case l.Shard != s.Shard.String():
				return nil, fmt.Errorf("%s: written by shard %q, not %s", at, l.Shard, s.Shard)
			case planSHA != "" && l.PlanSHA256 != planSHA:
				return nil, fmt.Errorf("%s: written for another plan (SHA-256 %s, this plan's is %s)", at, l.PlanSHA256, planSHA)
			case l.GeneratorVersion != GeneratorVersion():
				return nil, fmt.Errorf("%s: written by generator version %s, this program is %s; merge with the build that ran the shards",
					at, l.GeneratorVersion, GeneratorVersion())
			case set.Generator != "" && l.Generator != set.Generator:
				return nil, fmt.Errorf("%s: written by %q, shard 0 by %q", at, l.Generator, set.Generator)
			}
			set.Generator = l.Generator
		}
		set.Sessions = append(set.Sessions, s.J.sessions...)
		set.Resumed += max(len(s.J.sessions)-1, 0)
		for index := range s.J.items {
			k, ok := pos[index]
			if !ok || k%n != s.Shard.Index {
				return nil, fmt.Errorf("shard %s: journal %s holds item %d, which is not this shard's (another partition?)", s.Shard, s.J.path, index)
			}
		}
	}
	var missing []string
	for _, it := range items {
		if (need == nil || need(it)) && !shards[it.K%n].J.Done(it.Index) {
			missing = append(missing, fmt.Sprintf("%s (shard %d)", it.ID, it.K%n))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%d question(s) not journaled by their shard, e.g. %s: run those shards to completion first",
			len(missing), strings.Join(missing[:min(len(missing), 3)], ", "))
	}
	return set, nil
}

// OpenShards finds and reads the shard journals of journal id in dirs: one
// per shard 0…n−1, in shard order, scored in one sandbox environment. On
// error the journals it opened are returned too, for the caller to close.
func OpenShards(id string, dirs []string) ([]*ShardJournal, error) {
	var found []*ShardJournal
	var errs []error
	for _, dir := range dirs {
		if _, err := os.Stat(dir); err != nil {
			return nil, fmt.Errorf("shard directory: %w", err)
		}
		paths, err := filepath.Glob(filepath.Join(dir, Dir, id+".shard-*-of-*.jsonl"))
		if err != nil {
			return nil, err
		}
		for _, path := range paths {
			m := shardJournalRE.FindStringSubmatch(path)
			if m == nil || filepath.Base(path) != id+m[0] {
				continue
			}
			i, _ := strconv.Atoi(m[1])
			n, _ := strconv.Atoi(m[2])
			j, err := OpenReadOnly(path)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			found = append(found, &ShardJournal{Shard: Shard{i, n}, Dir: dir, J: j})
		}
	}
	if err := errors.Join(errs...); err != nil {
		return found, err
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("no shard journal %s.shard-<i>-of-<n>.jsonl in %s", id, strings.Join(dirs, ", "))
	}
	sort.Slice(found, func(a, b int) bool { return found[a].Shard.Index < found[b].Shard.Index })
	n := found[0].Shard.Count
	have := map[int]string{}
	for _, s := range found {
		if s.Shard.Count != n || s.Shard.Index >= n {
			return found, fmt.Errorf("shard journals of %d and %d shards: %s and %s", n, s.Shard.Count, found[0].J.path, s.J.path)
		}
		if prev, dup := have[s.Shard.Index]; dup {
			return found, fmt.Errorf("shard %s journaled twice: %s and %s", s.Shard, prev, s.J.path)
		}
		have[s.Shard.Index] = s.J.path
	}
	var missing []string
	for i := range n {
		if _, ok := have[i]; !ok {
			missing = append(missing, strconv.Itoa(i))
		}
	}
	if len(missing) > 0 {
		return found, fmt.Errorf("shard(s) %s of %d missing (no journal %s.shard-<i>-of-%d.jsonl in %s)",
			strings.Join(missing, ", "), n, id, n, strings.Join(dirs, ", "))
	}
	// Every shard's sessions must agree on the sandbox environment with shard 0's.
	want, _ := json.Marshal(found[0].SessionScoring())
	for _, s := range found[1:] {
		if got, _ := json.Marshal(s.SessionScoring()); !bytes.Equal(got, want) {
			return found, fmt.Errorf("shard %s (%s) was scored in another sandbox environment than shard 0: %s, not %s", s.Shard, s.J.path, got, want)
		}
	}
	return found, nil
}

// GeneratorVersion is the version a journal's sessions record and a merge
// requires: the commit the build was stamped with (version.Commit, which
// the Makefile and deploy/kubernetes/Dockerfile set with -ldflags; an image
// builds without .git, so without VCS information), else the main module's
// VCS revision or version.
func GeneratorVersion() string {
	if version.Commit != "" {
		return version.Commit
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" {
			return s.Value
		}
	}
	if bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
