package runner

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
)

// Shard is one of Count parts of a plan's items, for running a plan on
// several machines (Options.Shard). The items are the plan's (configuration,
// round, question) triples in plan order (the order of Plan.Runs, then
// each run's questions in benchmark order), numbered k = 0, 1, …; item k
// belongs to shard k mod Count. The partition depends only on the plan and
// the data, so every machine computes the same one, and each shard gets
// every Count-th question of every run (their sizes differ by at most one
// item per run). Index is 0-based, as a Kubernetes Indexed Job's completion
// index: shards 0/4, 1/4, 2/4 and 3/4 make a whole plan.
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
	if err := sh.check(); err != nil {
		return Shard{}, err
	}
	return sh, nil
}

func (s Shard) check() error {
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

// suffix is the shard's part of its journals' file names.
func (s Shard) suffix() string { return fmt.Sprintf(".shard-%d-of-%d", s.Index, s.Count) }

var shardJournalRE = regexp.MustCompile(`\.shard-(\d+)-of-(\d+)\.jsonl$`)

// shardJournal is one shard's journal of one configuration × round.
type shardJournal struct {
	shard Shard
	dir   string // the shard's output directory
	j     *journal
}

// Merge assembles the results files of every run of o.Plan from the
// journals that its shards (run with Options.Shard) wrote into shardDirs
// (each an output directory of one or more shards; OUT/.journal), into
// o.OutDir: the same files an unsharded run of the plan writes (the times
// and latencies aside), one per run and scoring protocol. A run whose
// results file exists is skipped. It makes no model call and executes
// nothing.
//
// It refuses, naming the shard's journal: a run whose shards are not all
// there (each of 0…n−1 exactly once, one n), a shard that has not
// journaled every question it owns, a journal written for other settings
// (its fingerprint), another plan (Options.PlanSHA256, when set), another
// generator (program or version) than this one, or scored in another
// sandbox environment (backend, limits, lock hash, library versions) than
// shard 0. Options.Scorer is not used: the scored outcomes come from the
// journals; set Unscored as the shards ran.
//
// One merge at a time writes into o.OutDir: it holds an exclusive lock on
// o.OutDir/.merge.lock (MergeLock; removed when it returns, released by the
// kernel if its process is killed), and another merge into the same
// directory fails at once naming it. It then removes the temporary files
// that a merge killed mid-write left for the results files it writes.
func Merge(ctx context.Context, o Options, shardDirs []string) (_ []RunResult, err error) {
	if len(shardDirs) == 0 {
		return nil, errors.New("merge: no shard directory")
	}
	if _, statErr := os.Stat(o.OutDir); errors.Is(statErr, os.ErrNotExist) {
		// lockMerge creates it: a merge that fails leaves no empty folder
		// (an output directory may be a submission folder).
		defer func() {
			if err != nil {
				os.Remove(filepath.Join(o.OutDir, MergeLock))
				os.Remove(o.OutDir) // only when empty
			}
		}()
	}
	o.Shard = Shard{}
	// The lock comes first: prepareWith notes which results files exist,
	// and a merge that prepared while another was writing would write
	// those files again.
	unlock, err := lockMerge(o.OutDir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	e, err := prepareWith(ctx, o, true)
	if err != nil {
		return nil, err
	}
	// Every run's shards are checked before any file is written.
	type checked struct {
		res    []RunResult
		src    *lineSource
		senv   *scoring.Environment
		shards []*shardJournal
	}
	var all []checked
	defer func() {
		for _, c := range all {
			for _, s := range c.shards {
				s.j.close()
			}
		}
	}()
	var errs []error
	for _, p := range e.runs {
		res, src, senv, shards, err := e.checkShards(p, shardDirs)
		all = append(all, checked{res, src, senv, shards})
		if err != nil {
			errs = append(errs, fmt.Errorf("run %s: %w", p.journalID, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("merge: nothing written: %w", err)
	}
	var out []RunResult
	for i, p := range e.runs {
		if ctx.Err() != nil {
			break
		}
		c := all[i]
		if c.src != nil {
			if err := e.writeMerged(p, c.src, c.senv, c.res); err != nil {
				err = fmt.Errorf("run %s: %w", p.journalID, err)
				errs = append(errs, err)
				for i := range c.res {
					if c.res[i].Status == "" {
						c.res[i].Status, c.res[i].Err = StatusFailed, err
					}
				}
			}
		}
		out = append(out, c.res...)
	}
	if ctx.Err() != nil {
		errs = append(errs, fmt.Errorf("%w (%v)", ErrInterrupted, context.Cause(ctx)))
	}
	return out, errors.Join(errs...)
}

// checkShards finds and checks p's shard journals in dirs; src is nil
// when every results file of p exists already.
func (e *engine) checkShards(p *prepared, dirs []string) (res []RunResult, src *lineSource, senv *scoring.Environment, shards []*shardJournal, err error) {
	res = make([]RunResult, len(p.outs))
	for i, out := range p.outs {
		res[i] = RunResult{RunID: out.run.RunID, Path: out.path, Items: p.n}
		if out.exists {
			res[i].Status, res[i].Done = StatusExists, p.n
		}
	}
	if p.exists {
		return res, nil, nil, nil, nil
	}
	src, senv, shards, err = openShardSet(p.journalID, p.fingerprint, e.o.PlanSHA256, p.scored(), p.items(), nil, dirs)
	if err != nil {
		return res, nil, nil, shards, err
	}
	if p.pr.System == results.SystemGraphRAG {
		if src.graphIndex, err = shardsGraphIndex(shards); err != nil {
			return res, nil, nil, shards, err
		}
	}
	return res, src, senv, shards, nil
}

// openShardSet opens and checks the shard journals of journal id in dirs
// (see Merge), whose sessions must record fingerprint, planSHA (when set)
// and this generator's version, and, when scored, one sandbox environment
// (returned). items are the journal's items with their positions k in the
// partition; each item for which need is true (every item when need is
// nil) must be journaled by its shard, and no shard may hold an item of
// another. src reads each item from its shard's journal.
func openShardSet(id, fingerprint, planSHA string, scored bool, items []item, need func(item) bool, dirs []string) (src *lineSource, senv *scoring.Environment, shards []*shardJournal, err error) {
	shards, err = openShards(id, dirs)
	if err != nil {
		return nil, nil, shards, err
	}
	n := shards[0].shard.Count
	if scored {
		senv = shards[0].sessionScoring()
		if senv == nil {
			return nil, nil, shards, fmt.Errorf("shard %s (%s): its sessions record no sandbox environment, but the run is scored", shards[0].shard, shards[0].j.path)
		}
	}
	src = &lineSource{desc: "shards of " + id}
	pos := make(map[int]int, len(items)) // item index → plan position
	for _, it := range items {
		pos[it.index] = it.k
	}
	var generator string
	for _, s := range shards {
		if err := s.j.check(id, fingerprint, senv); err != nil {
			return nil, nil, shards, fmt.Errorf("shard %s: %w", s.shard, err)
		}
		for i, l := range s.j.sessions {
			at := fmt.Sprintf("shard %s: journal %s (session %d)", s.shard, s.j.path, i+1)
			switch {
			case l.Shard != s.shard.String():
				return nil, nil, shards, fmt.Errorf("%s: written by shard %q, not %s", at, l.Shard, s.shard)
			case planSHA != "" && l.PlanSHA256 != planSHA:
				return nil, nil, shards, fmt.Errorf("%s: written for another plan (SHA-256 %s, this plan's is %s)", at, l.PlanSHA256, planSHA)
			case l.GeneratorVersion != generatorVersion():
				return nil, nil, shards, fmt.Errorf("%s: written by generator version %s, this program is %s; merge with the build that ran the shards",
					at, l.GeneratorVersion, generatorVersion())
			case generator != "" && l.Generator != generator:
				return nil, nil, shards, fmt.Errorf("%s: written by %q, shard 0 by %q", at, l.Generator, generator)
			}
			generator = l.Generator
		}
		src.sessions = append(src.sessions, s.j.sessions...)
		src.resumed += max(len(s.j.sessions)-1, 0)
		for index := range s.j.items {
			k, ok := pos[index]
			if !ok || k%n != s.shard.Index {
				return nil, nil, shards, fmt.Errorf("shard %s: journal %s holds item %d, which is not this shard's (another partition?)", s.shard, s.j.path, index)
			}
		}
	}
	var missing []string
	for _, it := range items {
		if (need == nil || need(it)) && !shards[it.k%n].j.done(it.index) {
			missing = append(missing, fmt.Sprintf("%s (shard %d)", it.id, it.k%n))
		}
	}
	if len(missing) > 0 {
		return nil, nil, shards, fmt.Errorf("%d question(s) not journaled by their shard, e.g. %s: run those shards to completion first",
			len(missing), strings.Join(missing[:min(len(missing), 3)], ", "))
	}
	src.read = func(it item) (journalLine, bool, error) { return shards[it.k%n].j.read(it.index) }
	src.generator = generator
	return src, senv, shards, nil
}

// graphIndexVolatile are the keys of a graph index record
// (graphs.indexRecord) that say when and how one process came by the index
// (built, or reused from the cache folder) rather than what it is.
var graphIndexVolatile = []string{"built_at", "build_llm_calls", "build_embedding_calls", "build_reused"}

// shardsGraphIndex returns the graph index record of a graph-rag run's
// shards: shard 0's last session's (the process that finished it, as an
// unsharded run records the process that wrote it). Every session of every
// shard must have used the same index (the record without
// graphIndexVolatile); one that did not, or recorded none, is an error
// naming its journal.
func shardsGraphIndex(shards []*shardJournal) (json.RawMessage, error) {
	identity := func(rec json.RawMessage) (string, error) {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(rec, &m); err != nil {
			return "", err
		}
		for _, k := range graphIndexVolatile {
			delete(m, k)
		}
		b, err := json.Marshal(m) // keys sorted
		return string(b), err
	}
	var rec json.RawMessage
	var want, wantAt string
	var wantRec json.RawMessage
	for _, s := range shards {
		for i, l := range s.j.sessions {
			at := fmt.Sprintf("shard %s: journal %s (session %d)", s.shard, s.j.path, i+1)
			if len(l.GraphIndex) == 0 {
				return nil, fmt.Errorf("%s: graph_index: the session records no graph index, but the run is graph-rag", at)
			}
			id, err := identity(l.GraphIndex)
			if err != nil {
				return nil, fmt.Errorf("%s: graph_index: %w", at, err)
			}
			switch {
			case want == "":
				want, wantAt, wantRec = id, at, l.GraphIndex
			case id != want:
				return nil, fmt.Errorf("%s: graph_index: the session used another graph index (%s) than %s (%s); run the shards on one index",
					at, l.GraphIndex, wantAt, wantRec)
			}
			if s.shard.Index == 0 {
				rec = l.GraphIndex
			}
		}
	}
	return rec, nil
}

// writeMerged writes p's results files from src, reporting them in res.
func (e *engine) writeMerged(p *prepared, src *lineSource, senv *scoring.Environment, res []RunResult) error {
	for _, out := range p.outs {
		if !out.exists {
			removeStaleTemps(out.path) // a killed merge's (the lock is held)
		}
	}
	o := *e
	if src.generator != "" {
		o.o.Generator = src.generator // the program that ran the shards
	}
	if src.graphIndex != nil {
		p.setGraphIndex(src.graphIndex)
	}
	return o.writeOuts(p, src, senv, res, p.n, "run merged")
}

// MergeLock is the file in a merge's output directory that it locks while
// it runs (Merge).
const MergeLock = ".merge.lock"

// lockMerge takes the exclusive lock of a merge into dir (created if
// needed) and returns its release, which removes the lock file (an output
// directory may be a submission folder, which holds results files only).
// A lock taken on a file that its holder removed meanwhile is taken again
// on the new one.
func lockMerge(dir string) (func(), error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, MergeLock)
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, err
		}
		if err := lockFile(f); err != nil {
			f.Close()
			if errors.Is(err, errLocked) {
				return nil, fmt.Errorf("merge: %s is in use by another merge into %s: %w", path, dir, err)
			}
			return nil, fmt.Errorf("merge: %w", err)
		}
		held, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, err
		}
		now, err := os.Stat(path)
		if err == nil && os.SameFile(held, now) {
			return func() { os.Remove(path); f.Close() }, nil
		}
		f.Close()
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		// Removed (and perhaps created again) by the merge that held it: again.
	}
}

// sessionScoring returns the sandbox environment of the shard's first session.
func (s *shardJournal) sessionScoring() *scoring.Environment {
	if len(s.j.sessions) == 0 {
		return nil
	}
	return s.j.sessions[0].Scoring
}

// openShards finds and reads the shard journals of journal id in dirs: one
// per shard 0…n−1, in shard order.
func openShards(id string, dirs []string) ([]*shardJournal, error) {
	var found []*shardJournal
	var errs []error
	for _, dir := range dirs {
		if _, err := os.Stat(dir); err != nil {
			return nil, fmt.Errorf("shard directory: %w", err)
		}
		paths, err := filepath.Glob(filepath.Join(dir, JournalDir, id+".shard-*-of-*.jsonl"))
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
			j, err := readJournal(path)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			found = append(found, &shardJournal{shard: Shard{i, n}, dir: dir, j: j})
		}
	}
	if err := errors.Join(errs...); err != nil {
		return found, err
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("no shard journal %s.shard-<i>-of-<n>.jsonl in %s", id, strings.Join(dirs, ", "))
	}
	sort.Slice(found, func(a, b int) bool { return found[a].shard.Index < found[b].shard.Index })
	n := found[0].shard.Count
	have := map[int]string{}
	for _, s := range found {
		if s.shard.Count != n || s.shard.Index >= n {
			return found, fmt.Errorf("shard journals of %d and %d shards: %s and %s", n, s.shard.Count, found[0].j.path, s.j.path)
		}
		if prev, dup := have[s.shard.Index]; dup {
			return found, fmt.Errorf("shard %s journaled twice: %s and %s", s.shard, prev, s.j.path)
		}
		have[s.shard.Index] = s.j.path
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
	want, _ := json.Marshal(found[0].sessionScoring())
	for _, s := range found[1:] {
		if got, _ := json.Marshal(s.sessionScoring()); !bytes.Equal(got, want) {
			return found, fmt.Errorf("shard %s (%s) was scored in another sandbox environment than shard 0: %s, not %s", s.shard, s.j.path, got, want)
		}
	}
	return found, nil
}

// PlanFileSHA256 returns the hex SHA-256 of the plan file at path, for
// Options.PlanSHA256.
func PlanFileSHA256(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}
