package datasets

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Diagnosis says why the benchmark audit's reference solution fails one
// property of a question (benchmarks/mattools-tool-usage/diagnoses.csv;
// its categories are those of that folder's README.md).
type Diagnosis struct {
	Category string // e.g. "expected value wrong", "missing dependency"
	Evidence string // the lines of new_unit_test.py, the value computed, the test's assert
}

// Diagnoses maps "question/property" to its diagnosis.
type Diagnoses map[string]Diagnosis

// Of returns the diagnosis of question's property and whether there is one.
func (d Diagnoses) Of(question, property string) (Diagnosis, bool) {
	x, ok := d[question+"/"+property]
	return x, ok
}

// ReadDiagnoses reads a diagnoses file (CSV with the header question,
// property, category, evidence): "" or an absent file gives none. A record
// with fewer than three fields, an empty question, property or category, or
// a property diagnosed twice is an error naming the file and the line.
func ReadDiagnoses(path string) (Diagnoses, error) {
	out := Diagnoses{}
	if path == "" {
		return out, nil
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for i, rec := range recs {
		if i == 0 {
			continue
		}
		if len(rec) < 3 || rec[0] == "" || rec[1] == "" || rec[2] == "" {
			return nil, fmt.Errorf("%s:%d: want the fields question, property, category, evidence (the first three non-empty)", path, i+1)
		}
		key := rec[0] + "/" + rec[1]
		if _, dup := out[key]; dup {
			return nil, fmt.Errorf("%s:%d: %s: property %s diagnosed twice", path, i+1, rec[0], rec[1])
		}
		d := Diagnosis{Category: rec[2]}
		if len(rec) > 3 {
			d.Evidence = rec[3]
		}
		out[key] = d
	}
	return out, nil
}
