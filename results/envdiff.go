package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// EnvironmentComparisonFile is the file cmd/import-mattools writes beside
// the imported runs: the published answers whose verdicts differ between
// the main re-execution environment and another one (docs/sandbox.md, "Two
// environments"; docs/benchmark-audit.md, "The tasks environment").
const EnvironmentComparisonFile = "environment-differences.json"

// EnvironmentComparison lists every question × protocol of a published run
// that both environments re-executed, for the same code, whose verdict,
// runnable flag or properties passed differ (results/published's
// Reexecuted.EnvironmentDifferences). The two sides are kept apart, never
// averaged.
type EnvironmentComparison struct {
	About string `json:"about"`
	// Label names the other environment, e.g. "tasks".
	Label string `json:"label"`
	// Environments maps environment ids to their libraries and sandbox.
	Environments map[string]ComparedEnvironment `json:"environments"`
	// Compared counts the question × protocol pairs compared.
	Compared    int                     `json:"compared"`
	Differences []EnvironmentDifference `json:"differences"`
}

// ComparedEnvironment is one re-execution environment of a comparison.
type ComparedEnvironment struct {
	Libraries map[string]string `json:"libraries"` // e.g. pymatgen → 2024.8.9
	Sandbox   Sandbox           `json:"sandbox"`
}

// EnvironmentDifference is one question × protocol of one published run
// whose outcome differs between the environments.
type EnvironmentDifference struct {
	RunID      string             `json:"run_id"` // the imported (as-published) run's id
	QuestionID string             `json:"question_id"`
	Protocol   string             `json:"protocol"`
	Main       EnvironmentOutcome `json:"main"`
	Other      EnvironmentOutcome `json:"other"`
}

// EnvironmentOutcome is a question's outcome in one environment.
type EnvironmentOutcome struct {
	Environment      string  `json:"environment"` // a key of EnvironmentComparison.Environments
	Verdict          Verdict `json:"verdict"`
	Runnable         bool    `json:"runnable"`
	PropertiesPassed int     `json:"properties_passed"`
}

// Write writes c to path atomically (indented JSON).
func (c *EnvironmentComparison) Write(path string) error {
	data, err := json.MarshalIndent(c, "", " ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, append(data, '\n'), 0o644)
}

// ReadEnvironmentComparison reads a comparison file; "" or an absent file
// gives nil. Unknown fields, an empty label, a difference naming an
// environment the file does not describe, or one whose sides agree are
// errors naming the file and the difference.
func ReadEnvironmentComparison(path string) (*EnvironmentComparison, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var c EnvironmentComparison
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if c.Label == "" {
		return nil, fmt.Errorf("%s: label: required", path)
	}
	for i, d := range c.Differences {
		for _, side := range []EnvironmentOutcome{d.Main, d.Other} {
			if _, ok := c.Environments[side.Environment]; !ok {
				return nil, fmt.Errorf("%s: differences[%d] (%s %s %s): environment %q is not in environments", path, i, d.RunID, d.QuestionID, d.Protocol, side.Environment)
			}
		}
		if d.Main.Verdict == d.Other.Verdict && d.Main.Runnable == d.Other.Runnable && d.Main.PropertiesPassed == d.Other.PropertiesPassed {
			return nil, fmt.Errorf("%s: differences[%d] (%s %s %s): both sides agree", path, i, d.RunID, d.QuestionID, d.Protocol)
		}
	}
	if len(c.Differences) > c.Compared {
		return nil, fmt.Errorf("%s: compared: %d, fewer than the %d differences", path, c.Compared, len(c.Differences))
	}
	return &c, nil
}
