// Package qaaudit checks the validity of a QA question set (MatTools'
// generation_results_{code,doc}.json, read by datasets.LoadQA): how its
// correct letters are distributed, which items are malformed, which leak
// their answer in the question text, which questions repeat; it computes the
// baselines that need no model (a uniform guess, the best constant letter,
// the leak heuristic) and derives the two variant question sets, balanced and
// clean (docs/qa-validity.md). cmd/audit-qa prints its report, the runner
// runs the variants and records the baselines, and the site shows them.
package qaaudit

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/datasets"
)

// Rule names one check an item can fail; the CSV of flagged items names it.
type Rule string

// The rules. The malformed rules are the first six; an item is malformed
// when it fails any of them.
const (
	// RuleExtraChoice: the item has a choice key other than A–D.
	RuleExtraChoice Rule = "extra-choice"
	// RuleBadPrefix: a choice text does not start with its own letter and ". ".
	RuleBadPrefix Rule = "bad-prefix"
	// RuleEmptyText: a choice's text, without its prefix, is empty or blank (e.g. "D.").
	RuleEmptyText Rule = "empty-text"
	// RuleDuplicateText: two choices of the item have the same text.
	RuleDuplicateText Rule = "duplicate-text"
	// RuleMaskInChoice: a choice holds "[MASK]".
	RuleMaskInChoice Rule = "mask-in-choice"
	// RuleHTMLEntity: the question or a choice holds an HTML entity
	// ("&gt;", "&#39;"), where the code has the character itself.
	RuleHTMLEntity Rule = "html-entity"
	// RuleLeakedStrict: the correct text (at least MinLeakLen characters)
	// appears in the question outside "[MASK]" as a whole word, and no
	// wrong choice's text does (Leak).
	RuleLeakedStrict Rule = "leaked-strict"
	// RuleLeakedLoose: the correct text (at least MinLeakLen characters)
	// appears in the question outside "[MASK]" at all.
	RuleLeakedLoose Rule = "leaked-loose"
	// RuleDuplicateQuestion: the question text (whitespace-trimmed) equals
	// that of an earlier item of the set.
	RuleDuplicateQuestion Rule = "duplicate-question"
)

// MalformedRules are the rules that make an item malformed, in report order.
var MalformedRules = []Rule{RuleExtraChoice, RuleBadPrefix, RuleEmptyText, RuleDuplicateText, RuleMaskInChoice, RuleHTMLEntity}

// MinLeakLen is the shortest correct text (in characters) that counts as leaked.
const MinLeakLen = 3

const mask = "[MASK]"

var htmlEntity = regexp.MustCompile(`&(?:[A-Za-z][A-Za-z0-9]*|#[0-9]+|#[xX][0-9A-Fa-f]+);`)

// Text returns a choice's text without its letter prefix: choice minus a
// leading "X. " (X its own letter) or "X." when that is all it holds;
// otherwise the choice as it is. letter is "A"–"D".
func Text(choice, letter string) string {
	if t, ok := strings.CutPrefix(choice, letter+". "); ok {
		return t
	}
	if choice == letter+"." {
		return ""
	}
	return choice
}

// Malformed returns the malformed rules q fails, in MalformedRules order.
func Malformed(q *datasets.QAQuestion) []Rule {
	var out []Rule
	if len(q.ExtraChoices) > 0 {
		out = append(out, RuleExtraChoice)
	}
	var prefix, empty, dup, maskIn, entity bool
	seen := map[string]bool{}
	entity = htmlEntity.MatchString(q.Question)
	for i, c := range q.Choices {
		l := datasets.QALetters[i]
		prefix = prefix || !strings.HasPrefix(c, l+". ") && strings.TrimSpace(c) != l+"." // "D." is an empty text
		t := strings.TrimSpace(Text(c, l))
		empty = empty || t == ""
		dup = dup || (t != "" && seen[t])
		seen[t] = true
		maskIn = maskIn || strings.Contains(c, mask)
		entity = entity || htmlEntity.MatchString(c)
	}
	for _, r := range []struct {
		on   bool
		rule Rule
	}{{prefix, RuleBadPrefix}, {empty, RuleEmptyText}, {dup, RuleDuplicateText}, {maskIn, RuleMaskInChoice}, {entity, RuleHTMLEntity}} {
		if r.on {
			out = append(out, r.rule)
		}
	}
	return out
}

// wordByte reports whether b is part of an identifier ([A-Za-z0-9_]).
func wordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// appears reports whether text occurs in question, counted in the pieces
// between "[MASK]"s (so never across or inside one); with whole, only where
// neither neighbour continues an identifier at a word-character edge of
// text. Texts shorter than MinLeakLen characters never appear.
func appears(question, text string, whole bool) bool {
	text = strings.TrimSpace(text)
	if len([]rune(text)) < MinLeakLen {
		return false
	}
	for _, piece := range strings.Split(question, mask) {
		for off := 0; ; {
			i := strings.Index(piece[off:], text)
			if i < 0 {
				break
			}
			s, e := off+i, off+i+len(text)
			if !whole || ((s == 0 || !wordByte(text[0]) || !wordByte(piece[s-1])) &&
				(e == len(piece) || !wordByte(text[len(text)-1]) || !wordByte(piece[e]))) {
				return true
			}
			off = s + 1
		}
	}
	return false
}

// Leak returns the index (0–3) of the only choice whose text appears in
// the question as a whole word outside "[MASK]" (appears), or -1 when no
// choice or more than one does. The item is leaked (RuleLeakedStrict) when
// Leak is its correct choice.
func Leak(q *datasets.QAQuestion) int {
	found := -1
	for i, c := range q.Choices {
		if appears(q.Question, Text(c, datasets.QALetters[i]), true) {
			if found >= 0 {
				return -1
			}
			found = i
		}
	}
	return found
}

// LeakedLoose reports whether q's correct text appears in its question
// outside "[MASK]" at all (RuleLeakedLoose).
func LeakedLoose(q *datasets.QAQuestion) bool {
	i := letterIndex(q.CorrectAnswer)
	return appears(q.Question, Text(q.Choices[i], q.CorrectAnswer), false)
}

func letterIndex(l string) int { return slices.Index(datasets.QALetters[:], l) }

// Flag is one item failing one rule.
type Flag struct {
	Set    string // the set's name (Report.Set)
	Index  int    // the item's 0-based position in the set (QAQuestion.Index)
	ID     string // the item's ID
	Source string // the item's Source
	Rule   Rule
}

// Report is the audit of one set.
type Report struct {
	Set string // a name for the set, e.g. "qa_120" or "code"
	N   int    // items
	// Letters counts the items whose correct letter is A, B, C, D.
	Letters [4]int
	// Best is the letter (0–3) a constant answer would best choose: the
	// most frequent correct letter (the first of a tie).
	Best int
	// Malformed counts the malformed items (any malformed rule), ByRule the
	// items failing each rule (an item may fail several).
	Malformed int
	ByRule    map[Rule]int
	// LeakedStrict and LeakedLoose count the leaked items under each rule.
	LeakedStrict, LeakedLoose int
	// Duplicates counts the items whose question repeats an earlier one.
	Duplicates int
	// LeakHeuristic counts the items the leak heuristic answers correctly.
	LeakHeuristic int
	// Flags lists every failed rule, item by item in set order, each item's
	// rules in the order of the Rule constants.
	Flags []Flag
}

// Percent returns 100·k/N, or 0 for an empty set.
func (r *Report) Percent(k int) float64 {
	if r.N == 0 {
		return 0
	}
	return 100 * float64(k) / float64(r.N)
}

// LettersLine is the report's letter line, e.g.
// "correct letters: A 5.2% B 22.0% C 48.9% D 23.9% (840 items)":
// percentages of N to one decimal.
func (r *Report) LettersLine() string {
	var b strings.Builder
	b.WriteString("correct letters:")
	for i, l := range datasets.QALetters {
		fmt.Fprintf(&b, " %s %.1f%%", l, r.Percent(r.Letters[i]))
	}
	fmt.Fprintf(&b, " (%d items)", r.N)
	return b.String()
}

// Audit checks every item of set and names the report set.
func Audit(name string, set *datasets.QASet) *Report {
	r := &Report{Set: name, N: len(set.Questions), ByRule: map[Rule]int{}}
	seen := map[string]bool{}
	flags := make([][]Rule, len(set.Questions))
	for i := range set.Questions {
		q := &set.Questions[i]
		r.Letters[letterIndex(q.CorrectAnswer)]++
		rules := Malformed(q)
		if len(rules) > 0 {
			r.Malformed++
		}
		if Leak(q) == letterIndex(q.CorrectAnswer) {
			rules = append(rules, RuleLeakedStrict)
			r.LeakedStrict++
		}
		if LeakedLoose(q) {
			rules = append(rules, RuleLeakedLoose)
			r.LeakedLoose++
		}
		qt := strings.TrimSpace(q.Question)
		if seen[qt] {
			rules = append(rules, RuleDuplicateQuestion)
			r.Duplicates++
		}
		seen[qt] = true
		flags[i] = rules
	}
	for i := range r.Letters {
		if r.Letters[i] > r.Letters[r.Best] {
			r.Best = i
		}
	}
	for i := range set.Questions {
		q := &set.Questions[i]
		if LeakGuess(q, r.Best) == letterIndex(q.CorrectAnswer) {
			r.LeakHeuristic++
		}
		for _, rule := range flags[i] {
			r.ByRule[rule]++
			r.Flags = append(r.Flags, Flag{Set: name, Index: q.Index, ID: q.ID, Source: q.Source, Rule: rule})
		}
	}
	return r
}

// LeakGuess is the leak heuristic's answer (0–3) to q: the choice Leak
// finds, else fallback (the set's most frequent correct letter).
func LeakGuess(q *datasets.QAQuestion, fallback int) int {
	if i := Leak(q); i >= 0 {
		return i
	}
	return fallback
}

// Baselines are the accuracies a QA set gives without a model, computed
// from the set itself (its correct letters and texts); the run file records
// them (results.Run.Extensions[ExtensionBaselines]) and the QA board shows
// them as unranked rows.
type Baselines struct {
	Questions int `json:"questions"` // items in the set
	// Letters counts the correct letters A–D.
	Letters [4]int `json:"letters"`
	// ConstantLetter is the best constant answer, "A"–"D" (the most frequent
	// correct letter); ConstantCorrect the items it answers correctly
	// (Letters of it).
	ConstantLetter  string `json:"constant_letter"`
	ConstantCorrect int    `json:"constant_correct"`
	// LeakCorrect is the items the leak heuristic answers correctly
	// (answer the only choice whose text appears in the question as a
	// whole word outside [MASK], else ConstantLetter).
	LeakCorrect int `json:"leak_correct"`
}

// ConstantTied reports whether another letter is correct as often as
// ConstantLetter (a tie, broken by the first letter): then always answering
// either scores the same.
func (b Baselines) ConstantTied() bool {
	n := 0
	for _, c := range b.Letters {
		if c == b.ConstantCorrect {
			n++
		}
	}
	return n > 1
}

// ExtensionBaselines is the results.Run.Extensions key of a QA run's Baselines.
const ExtensionBaselines = "qa_baselines"

// Baselines returns the report's baselines. A uniform random guess is
// correct with probability 1/4 on every item, so its expected accuracy is
// 25 % and needs no field.
func (r *Report) Baselines() Baselines {
	return Baselines{Questions: r.N, Letters: r.Letters, ConstantLetter: datasets.QALetters[r.Best],
		ConstantCorrect: r.Letters[r.Best], LeakCorrect: r.LeakHeuristic}
}

// The variants of a QA set (the runner's qa_sets.<benchmark>.variant).
const (
	VariantBalanced = "balanced"
	VariantClean    = "clean"
)

// Variants are the variant names, in order.
var Variants = []string{VariantBalanced, VariantClean}

// VariantAlgorithm numbers the derivation of the variants (Balanced's
// order, hash and shuffle; Clean's rules). It is raised whenever the same
// set would give a different variant, so that runs of two derivations are
// never taken for one question set (the site shows a table's variant only
// when all its runs record the same VariantInfo).
const VariantAlgorithm = 1

// ExtensionVariant is the results.Run.Extensions key of a variant run's
// VariantInfo (absent on a run of a set as published).
const ExtensionVariant = "qa_variant"

// VariantInfo records which variant of which set a QA run asked: the
// marker the site reads to say what a variant table is (never the
// question set's name).
type VariantInfo struct {
	Variant   string `json:"variant"`   // VariantBalanced or VariantClean
	Algorithm int    `json:"algorithm"` // VariantAlgorithm of the derivation
	// Of is the name of the set as published (the plan's
	// qa_sets.<benchmark>.name), OfQuestions its items, Questions the
	// variant's.
	Of          string `json:"of"`
	OfQuestions int    `json:"of_questions"`
	Questions   int    `json:"questions"`
	// Malformed and Leaked count the items Clean drops: the malformed ones
	// (any of MalformedRules) and the leaked ones (RuleLeakedStrict) that
	// are not malformed, so Questions = OfQuestions − Malformed − Leaked;
	// both 0 for balanced.
	Malformed int `json:"malformed"`
	Leaked    int `json:"leaked"`
}

// Variant returns the named variant of set (Balanced or Clean) and its
// VariantInfo (Of left empty: the caller names the set), or an error
// naming the known variants.
func Variant(set *datasets.QASet, name string) (*datasets.QASet, VariantInfo, error) {
	info := VariantInfo{Variant: name, Algorithm: VariantAlgorithm, OfQuestions: len(set.Questions)}
	var out *datasets.QASet
	switch name {
	case VariantBalanced:
		out = Balanced(set)
	case VariantClean:
		out = Clean(set)
		for i := range set.Questions {
			q := &set.Questions[i]
			switch {
			case len(Malformed(q)) > 0:
				info.Malformed++
			case Leak(q) == letterIndex(q.CorrectAnswer):
				info.Leaked++
			}
		}
	default:
		return nil, VariantInfo{}, fmt.Errorf("unknown QA variant %q; want one of %s", name, strings.Join(Variants, ", "))
	}
	info.Questions = len(out.Questions)
	return out, info, nil
}

// identity returns the SHA-256 of an item's identity: its ID, question and
// choices, each followed by a NUL byte.
func identity(q *datasets.QAQuestion) [32]byte {
	h := sha256.New()
	for _, s := range append([]string{q.ID, q.Question}, q.Choices[:]...) {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// Balanced returns a copy of set whose items have their four choice texts
// permuted so that each letter is correct for n/4 items (±1; n the set's
// size) and every item keeps its question, ID, Index and correct text and
// its three wrong texts, each behind its new letter ("C. " + Text). The
// permutation is deterministic: items are ordered by the SHA-256 of their
// identity (ID, question, choices), the k-th in that order gets correct
// letter k mod 4, and the wrong texts fill the other letters in an order
// drawn from the same hash. The same set always gives the same variant.
func Balanced(set *datasets.QASet) *datasets.QASet {
	out := &datasets.QASet{Path: set.Path, SHA256: set.SHA256, Questions: slices.Clone(set.Questions)}
	type keyed struct {
		sum [32]byte
		i   int
	}
	order := make([]keyed, len(out.Questions))
	for i := range out.Questions {
		order[i] = keyed{identity(&out.Questions[i]), i}
	}
	slices.SortFunc(order, func(a, b keyed) int {
		if c := slices.Compare(a.sum[:], b.sum[:]); c != 0 {
			return c
		}
		return a.i - b.i
	})
	for k, o := range order {
		q := &out.Questions[o.i]
		ci := letterIndex(q.CorrectAnswer)
		var wrong []string
		for i, c := range q.Choices {
			if i != ci {
				wrong = append(wrong, Text(c, datasets.QALetters[i]))
			}
		}
		// Fisher–Yates over the wrong texts, drawn from the identity hash.
		seed := binary.BigEndian.Uint64(o.sum[8:16])
		for i := len(wrong) - 1; i > 0; i-- {
			j := int(seed % uint64(i+1))
			seed /= uint64(i + 1)
			wrong[i], wrong[j] = wrong[j], wrong[i]
		}
		target := k % 4
		correct := Text(q.Choices[ci], q.CorrectAnswer)
		w := 0
		for i, l := range datasets.QALetters {
			t := correct
			if i != target {
				t, w = wrong[w], w+1
			}
			q.Choices[i] = l + ". " + t
		}
		q.CorrectAnswer = datasets.QALetters[target]
	}
	return out
}

// Clean returns a copy of set without its malformed (Malformed) and
// leaked (RuleLeakedStrict) items; the others keep their order and ID, and
// their Index becomes their position in the variant.
func Clean(set *datasets.QASet) *datasets.QASet {
	out := &datasets.QASet{Path: set.Path, SHA256: set.SHA256}
	for i := range set.Questions {
		q := set.Questions[i]
		if len(Malformed(&q)) == 0 && Leak(&q) != letterIndex(q.CorrectAnswer) {
			q.Index = len(out.Questions)
			out.Questions = append(out.Questions, q)
		}
	}
	return out
}

// MarshalItems writes set as the flattened list datasets.LoadQA reads: one
// object per item, {"id", "source_file" (the item's Source), "question",
// "choices" {"A".."D"}, "correct_answer"}, indented, with a final newline.
// Loading it gives the same IDs, questions, choices and answers (Index
// then counts from 0 in the list).
func MarshalItems(set *datasets.QASet) ([]byte, error) {
	type item struct {
		ID            string            `json:"id"`
		SourceFile    string            `json:"source_file"`
		Question      string            `json:"question"`
		Choices       map[string]string `json:"choices"`
		CorrectAnswer string            `json:"correct_answer"`
	}
	items := make([]item, len(set.Questions))
	for i := range set.Questions {
		q := &set.Questions[i]
		items[i] = item{ID: q.ID, SourceFile: q.Source, Question: q.Question, CorrectAnswer: q.CorrectAnswer,
			Choices: map[string]string{"A": q.Choices[0], "B": q.Choices[1], "C": q.Choices[2], "D": q.Choices[3]}}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(items); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Format is the format diagnostics of a QA run's answers: how many answers
// MatTools' exact rule (runner/scoring.QAExtractStrict: the answer, tags
// removed, must be exactly the letter) cannot read as any letter while the
// lenient rule (QAExtractLenient) finds one, and the model's letters
// against the key's. The runner records it on every QA run
// (results.Run.Extensions[ExtensionFormat]); the QA board and the model
// pages show it.
type Format struct {
	Answers int `json:"answers"`
	// StrictRejected counts the answers whose strict extraction is not one
	// of "A"–"D" (so no letter is ever correct under MatTools' rule).
	StrictRejected int `json:"strict_rejected"`
	// LenientFound counts those of StrictRejected in which the lenient rule
	// finds a single letter: answers lost to the format alone.
	LenientFound int `json:"lenient_found"`
	// ModelLetters counts the lenient letters A–D of all answers, and at
	// [4] the answers in which it finds none.
	ModelLetters [5]int `json:"model_letters"`
	// KeyLetters counts the correct letters A–D of the items answered.
	KeyLetters [4]int `json:"key_letters"`
}

// ExtensionFormat is the results.Run.Extensions key of a QA run's Format.
const ExtensionFormat = "qa_format"

// Add counts one answer: its strict extraction, its lenient letter ("" when
// none) and the item's correct letter.
func (f *Format) Add(strict, lenient, key string) {
	f.Answers++
	if letterIndex(strict) < 0 {
		f.StrictRejected++
		if lenient != "" {
			f.LenientFound++
		}
	}
	if i := letterIndex(lenient); i >= 0 {
		f.ModelLetters[i]++
	} else {
		f.ModelLetters[4]++
	}
	if i := letterIndex(key); i >= 0 {
		f.KeyLetters[i]++
	}
}
