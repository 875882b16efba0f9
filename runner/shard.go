package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mattools-leaderboard/leaderboard/internal/flock"
	"github.com/mattools-leaderboard/leaderboard/runner/journal"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
)

// JournalDir is the directory, inside the output directory, that holds the
// per-run checkpoint journals (journal.Dir).
const JournalDir = journal.Dir

// DefaultJournalSync is the longest a finished question waits in memory
// before its journal line is written and synced (journal.DefaultSync).
const DefaultJournalSync = journal.DefaultSync

// Shard is one of Count parts of a plan's items, for running a plan on
// several machines (Options.Shard); see journal.Shard.
type Shard = journal.Shard

// ParseShard parses "i/n" (0 ≤ i < n); see journal.ParseShard.
func ParseShard(s string) (Shard, error) { return journal.ParseShard(s) }

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
		res  []RunResult
		src  *lineSource
		senv *scoring.Environment
		set  *journal.ShardSet
	}
	var all []checked
	defer func() {
		for _, c := range all {
			if c.set != nil {
				c.set.Close()
			}
		}
	}()
	var errs []error
	for _, p := range e.runs {
		res, src, senv, set, err := e.checkShards(p, shardDirs)
		all = append(all, checked{res, src, senv, set})
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
func (e *engine) checkShards(p *prepared, dirs []string) (res []RunResult, src *lineSource, senv *scoring.Environment, set *journal.ShardSet, err error) {
	res = e.newResults(p)
	if p.exists {
		return res, nil, nil, nil, nil
	}
	items := p.items()
	its := make([]journal.Item, len(items))
	for i, it := range items {
		its[i] = journal.Item{Index: it.index, K: it.k, ID: it.id}
	}
	set, err = journal.OpenShardSet(p.journalID, p.fingerprint, e.o.PlanSHA256, p.scored(), its, nil, dirs)
	if err != nil {
		return res, nil, nil, nil, err
	}
	n := len(set.Shards)
	src = &lineSource{desc: "shards of " + p.journalID, sessions: set.Sessions, resumed: set.Resumed, generator: set.Generator,
		read: func(it item) (journal.Line, bool, error) { return set.Shards[it.k%n].J.Read(it.index) }}
	if p.needs.Graph {
		if src.graphIndex, err = shardsGraphIndex(set.Shards); err != nil {
			return res, nil, nil, set, err
		}
	}
	return res, src, set.Env, set, nil
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
func shardsGraphIndex(shards []*journal.ShardJournal) (json.RawMessage, error) {
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
		for i, l := range s.J.Sessions() {
			at := fmt.Sprintf("shard %s: journal %s (session %d)", s.Shard, s.J.Path(), i+1)
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
			if s.Shard.Index == 0 {
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
		if err := flock.Lock(f); err != nil {
			f.Close()
			if errors.Is(err, flock.ErrLocked) {
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
