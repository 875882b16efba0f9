// Command audit-qa audits MatTools' QA question sets for validity: per set,
// the distribution of the correct letters and the best constant-letter
// accuracy, the malformed items, the items that leak their answer in the
// question (a strict and a loose rule), the duplicate questions and the
// baselines that need no model (datasets/qaaudit; docs/qa-validity.md).
//
//	audit-qa [-csv FLAGGED.csv] [-variants DIR] [SET...]
//
// A SET is a QA file in upstream's format (qa_benchmark/generated_qa/
// generation_results_{code,doc}.json or its .json.zip) or a flattened list of
// items, or a folder, read for its *.json and *.json.zip files in name
// order. Without SET it reads the folder $MATTOOLS_QA_SAMPLE. A set is named
// by its file name without ".zip" and ".json".
//
// It prints, per set, a block whose second line is exactly
//
//	correct letters: A a% B b% C c% D d% (n items)
//
// (percentages to one decimal; a best constant letter tied with another is
// followed by "(tie)"), then a table of all sets. -csv writes the flagged
// items, one row per item and rule: set,item_index,item,source,rule, where
// item_index is the item's 0-based position in the set (upstream's
// documents' questions, flattened in order) and item its id. Two SETs of
// one name are an error.
// -variants writes, per set, DIR/<set>.balanced.json and DIR/<set>.clean.json:
// the item lists of the two variants (flattened, with each item's id), the
// same lists the runner derives for qa_sets.<benchmark>.variant. Writes are
// atomic. Exit status 1 on an error, 2 on a usage error.
package main

import (
	"bytes"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/datasets/qaaudit"
	"github.com/mattools-leaderboard/leaderboard/results"
)

// SampleEnv names the folder read when no SET is given.
const SampleEnv = "MATTOOLS_QA_SAMPLE"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

var errUsage = errors.New("usage")

func run(args []string, stdout, stderr io.Writer) int {
	if err := audit(args, stdout, stderr); err != nil {
		if errors.Is(err, errUsage) {
			return 2
		}
		fmt.Fprintln(stderr, "audit-qa:", err)
		return 1
	}
	return 0
}

func audit(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("audit-qa", flag.ContinueOnError)
	fs.SetOutput(stderr)
	csvPath := fs.String("csv", "", "write the flagged items to this CSV file")
	variants := fs.String("variants", "", "write each set's balanced and clean item lists into this folder")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: audit-qa [-csv FLAGGED.csv] [-variants DIR] [SET...]   (no SET: the folder $"+SampleEnv+")")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	inputs := fs.Args()
	if len(inputs) == 0 {
		dir := os.Getenv(SampleEnv)
		if dir == "" {
			fs.Usage()
			fmt.Fprintln(stderr, "audit-qa: give a SET or set "+SampleEnv)
			return errUsage
		}
		inputs = []string{dir}
	}
	files, err := expand(inputs)
	if err != nil {
		return err
	}
	// A set is named by its file; two files of one name would write the
	// same variant files and mix in the CSV.
	named := map[string]string{}
	for _, f := range files {
		if other, dup := named[setName(f)]; dup {
			return fmt.Errorf("%s and %s: both name the set %q (a set is named by its file name without .zip and .json); rename one", other, f, setName(f))
		}
		named[setName(f)] = f
	}
	var reports []*qaaudit.Report
	for _, f := range files {
		set, err := datasets.LoadQA(f)
		if err != nil {
			return err
		}
		name := setName(f)
		r := qaaudit.Audit(name, set)
		reports = append(reports, r)
		writeReport(stdout, f, r)
		if *variants != "" {
			for _, v := range qaaudit.Variants {
				vs, _, _ := qaaudit.Variant(set, v)
				b, err := qaaudit.MarshalItems(vs)
				if err != nil {
					return err
				}
				if err := os.MkdirAll(*variants, 0o755); err != nil {
					return err
				}
				out := filepath.Join(*variants, name+"."+v+".json")
				if err := results.WriteFileAtomic(out, b, 0o644); err != nil {
					return err
				}
				fmt.Fprintf(stdout, "wrote %s (%d items)\n", out, len(vs.Questions))
			}
			fmt.Fprintln(stdout)
		}
	}
	writeTable(stdout, reports)
	if *csvPath != "" {
		if err := results.WriteFileAtomic(*csvPath, flaggedCSV(reports), 0o644); err != nil {
			return err
		}
		n := 0
		for _, r := range reports {
			n += len(r.Flags)
		}
		fmt.Fprintf(stdout, "wrote %s (%d flags)\n", *csvPath, n)
	}
	return nil
}

// expand replaces each folder by its *.json and *.json.zip files, in name order.
func expand(inputs []string) ([]string, error) {
	var out []string
	for _, in := range inputs {
		st, err := os.Stat(in)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, in)
			continue
		}
		ents, err := os.ReadDir(in)
		if err != nil {
			return nil, err
		}
		n := len(out)
		for _, e := range ents {
			if !e.IsDir() && (strings.HasSuffix(e.Name(), ".json") || strings.HasSuffix(e.Name(), ".json.zip")) {
				out = append(out, filepath.Join(in, e.Name()))
			}
		}
		if len(out) == n {
			return nil, fmt.Errorf("%s: no .json or .json.zip file", in)
		}
	}
	return out, nil
}

func setName(file string) string {
	return strings.TrimSuffix(strings.TrimSuffix(filepath.Base(file), ".zip"), ".json")
}

// constant is the best constant letter, " (tie)" after it when another
// letter is correct as often.
func constant(b qaaudit.Baselines) string {
	if b.ConstantTied() {
		return b.ConstantLetter + " (tie)"
	}
	return b.ConstantLetter
}

func pct(r *qaaudit.Report, k int) string { return strconv.FormatFloat(r.Percent(k), 'f', 1, 64) + "%" }

func writeReport(w io.Writer, file string, r *qaaudit.Report) {
	b := r.Baselines()
	fmt.Fprintf(w, "set %s (%s)\n", r.Set, file)
	fmt.Fprintln(w, r.LettersLine())
	fmt.Fprintf(w, "best constant letter: %s %s (%d of %d)\n", constant(b), pct(r, b.ConstantCorrect), b.ConstantCorrect, r.N)
	var parts []string
	for _, rule := range qaaudit.MalformedRules {
		parts = append(parts, fmt.Sprintf("%s %d", rule, r.ByRule[rule]))
	}
	fmt.Fprintf(w, "malformed: %d items (%s): %s\n", r.Malformed, pct(r, r.Malformed), strings.Join(parts, ", "))
	fmt.Fprintf(w, "leaked: strict %d (%s), loose %d (%s)\n", r.LeakedStrict, pct(r, r.LeakedStrict), r.LeakedLoose, pct(r, r.LeakedLoose))
	fmt.Fprintf(w, "duplicate questions: %d (%s)\n", r.Duplicates, pct(r, r.Duplicates))
	fmt.Fprintf(w, "baselines: uniform guess 25.0%%, constant %s %s, leak heuristic %s\n", constant(b), pct(r, b.ConstantCorrect), pct(r, b.LeakCorrect))
	fmt.Fprintln(w)
}

func writeTable(w io.Writer, reports []*qaaudit.Report) {
	fmt.Fprintln(w, "| set | items | A | B | C | D | best constant | malformed | leaked strict | leaked loose | duplicates | leak heuristic |")
	fmt.Fprintln(w, "| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |")
	for _, r := range reports {
		b := r.Baselines()
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %s %s | %d | %d | %d | %d | %s |\n", r.Set, r.N,
			pct(r, r.Letters[0]), pct(r, r.Letters[1]), pct(r, r.Letters[2]), pct(r, r.Letters[3]),
			constant(b), pct(r, b.ConstantCorrect), r.Malformed, r.LeakedStrict, r.LeakedLoose, r.Duplicates, pct(r, b.LeakCorrect))
	}
}

func flaggedCSV(reports []*qaaudit.Report) []byte {
	var b bytes.Buffer
	cw := csv.NewWriter(&b)
	cw.Write([]string{"set", "item_index", "item", "source", "rule"})
	for _, r := range reports {
		for _, f := range r.Flags {
			cw.Write([]string{f.Set, strconv.Itoa(f.Index), f.ID, f.Source, string(f.Rule)})
		}
	}
	cw.Flush()
	return b.Bytes()
}
