package journal

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
)

// Sharded re-execution: the commands that re-execute stored
// code (cmd/rescore, cmd/validate-submission -reexecute) take -shard i/n
// like run-benchmark. Their items are numbered k = 0, 1, … in the
// command's own order (e.g. each input run's questions in benchmark order,
// the inputs in the order given); item k belongs to shard k mod n
// (Shard.Owns). Each shard journals the scored outcomes of its items in an
// outcome journal, the runner's journal format (batched, synced, resumable,
// locked) at DIR/.journal/<id>.shard-<i>-of-<n>.jsonl, and the merge reads
// the shards' journals with the checks of OpenShardSet (the runner's Merge
// makes them too): every shard 0…n−1 once, of
// one n; every item journaled by its owner and by no other; the same work
// (fingerprint: the command's inputs); the same generator and version as
// the merging program; one sandbox environment.

// outcomeJournal is one shard's journal of scored outcomes, for a command
// that re-executes stored code.
type outcomeJournal struct {
	j     *Journal
	shard Shard
}

// openOutcomeJournal opens shard sh's outcome journal of the work id in
// dir (creating it, or resuming it when it exists). fingerprint identifies
// the work's inputs (a journal of another fingerprint or sandbox
// environment is refused, naming it); env is the sandbox environment of
// the outcomes; generator names the command.
func openOutcomeJournal(dir, id, fingerprint string, sh Shard, env scoring.Environment, generator string) (*outcomeJournal, error) {
	if err := sh.Check(); err != nil {
		return nil, err
	}
	if sh.Count < 1 {
		return nil, fmt.Errorf("outcome journal %s: no shard", id)
	}
	path := filepath.Join(dir, Dir, id+sh.Suffix()+".jsonl")
	sess := Line{Scoring: &env, Shard: sh.String(), Generator: generator, GeneratorVersion: GeneratorVersion()}
	j, err := Open(path, id, fingerprint, time.Now(), Options{Session: sess})
	if err != nil {
		return nil, err
	}
	return &outcomeJournal{j: j, shard: sh}, nil
}

// append journals item k (named itemID in messages) with its outcome s,
// trimmed as the runner's journal stores it (scoring.Scored.Trim: the rows
// it fills are the same). s is modified. Safe for concurrent use.
func (o *outcomeJournal) append(k int, itemID string, s *scoring.Scored) error {
	if !o.shard.Owns(k) {
		return fmt.Errorf("outcome journal %s: item %d (%s) is not shard %s's", o.j.path, k, itemID, o.shard)
	}
	s.Trim()
	return o.j.Append(Line{Kind: "item", Index: k, ID: itemID, Scored: s})
}

// close writes and syncs what is queued and closes the journal.
func (o *outcomeJournal) close() error {
	err := o.j.Flush()
	if cerr := o.j.Close(); err == nil {
		err = cerr
	}
	return err
}

// Outcomes are the merged outcome journals of a sharded work.
type Outcomes struct {
	// Environment is the sandbox environment every shard scored in.
	Environment scoring.Environment
	// Shards is the number of shards (n); Sessions counts their sessions
	// (more than Shards when one was resumed).
	Shards, Sessions int
	scored           map[int]*scoring.Scored // by item
}

// MergeOutcomes reads the outcome journals that the shards of command's
// work (parts: its fingerprint, as given to ScoreShard) wrote into dirs.
// ids names the work's items in partition order (item k
// is ids[k]); need reports which items must be journaled (nil: all; a
// command may leave out items it keeps from elsewhere). It refuses, naming
// the journal, what OpenShardSet refuses: a shard missing or twice, shards of
// different counts, a journal of another fingerprint or generator version,
// an item journaled by a shard that does not own it, an item needed but not
// journaled, or shards scored in different sandbox environments.
func MergeOutcomes(dirs []string, command string, parts, ids []string, need func(k int) bool) (*Outcomes, error) {
	id, fingerprint := outcomeWork(command, parts)
	items := make([]Item, len(ids))
	for k, name := range ids {
		items[k] = Item{Index: k, K: k, ID: name}
	}
	var needItem func(Item) bool
	if need != nil {
		needItem = func(it Item) bool { return need(it.K) }
	}
	set, err := OpenShardSet(id, fingerprint, "", true, items, needItem, dirs)
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	defer set.Close() // the journals are read now: the files are closed on return
	desc := "shards of " + id
	o := &Outcomes{Environment: *set.Env, Shards: len(set.Shards), Sessions: len(set.Sessions), scored: map[int]*scoring.Scored{}}
	for _, it := range items {
		l, ok, err := set.Read(it)
		if err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
		if !ok {
			continue
		}
		if l.ID != it.ID || l.Scored == nil {
			return nil, fmt.Errorf("merge: %s: item %d is %q (with an outcome: %v), but the work's item %d is %q", desc, it.K, l.ID, l.Scored != nil, it.K, it.ID)
		}
		o.scored[it.K] = l.Scored
	}
	return o, nil
}

// Get returns item k's outcome, or nil when no shard journaled it.
func (o *Outcomes) Get(k int) *scoring.Scored { return o.scored[k] }

// outcomeWork returns the journal id and the fingerprint of a command's
// sharded work: the fingerprint is the hex SHA-256 of parts (what decides
// the items and their code: the inputs' SHA-256, the question ids), the id
// command and its first 16 hex digits, so that the shards of one work find
// one another's journals and a shard of other inputs is refused.
func outcomeWork(command string, parts []string) (id, fingerprint string) {
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	fingerprint = hex.EncodeToString(sum[:])
	return command + "-" + fingerprint[:16], fingerprint
}

// QuestionParts are a benchmark's part of a sharded work's fingerprint
// (OutcomeWork): each question id, in benchmark order, and whether its data
// files are present (which decides whether it executes).
func QuestionParts(b *datasets.Benchmark) []string {
	parts := []string{"questions"}
	for _, q := range b.Questions {
		parts = append(parts, fmt.Sprintf("%s %t", q.ID, q.Executable()))
	}
	return parts
}

// ScoreShard re-executes, with scorer, shard sh of command's work of n
// items (parts: what decides the items and their code, QuestionParts
// included; the journal's name and fingerprint hash them) into its outcome
// journal in dir/.journal, returned: the items sh owns, want accepts (nil:
// all) and the journal does not hold yet (a resumed shard goes on where it
// stopped), each journaled as its outcome comes. answer(k) gives item k's
// question and code, itemID(k) its name. done counts the items scored by
// this call. The first error stops it (what was journaled stays).
func ScoreShard(ctx context.Context, scorer *scoring.Scorer, dir, command string, parts []string, sh Shard, n int, want func(k int) bool,
	answer func(k int) (*datasets.Question, scoring.Submission), itemID func(k int) string, progress io.Writer) (done int, journal string, err error) {
	id, fp := outcomeWork(command, parts)
	j, err := openOutcomeJournal(dir, id, fp, sh, scorer.Environment(), command)
	if err != nil {
		return 0, "", err
	}
	var todo []int
	for k := range n {
		if sh.Owns(k) && (want == nil || want(k)) && !j.j.Done(k) {
			todo = append(todo, k)
		}
	}
	var appendErr error
	err = scorer.ScoreEach(ctx, len(todo), func(i int) (*datasets.Question, scoring.Submission) { return answer(todo[i]) },
		func(i int, sc *scoring.Scored) {
			if err := j.append(todo[i], itemID(todo[i]), sc); err != nil && appendErr == nil {
				appendErr = err
			}
		}, func(i int) string { return itemID(todo[i]) }, progress)
	if err == nil {
		err = appendErr
	}
	if cerr := j.close(); err == nil {
		err = cerr
	}
	return len(todo), j.j.path, err
}
