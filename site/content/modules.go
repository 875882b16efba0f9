package content

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
)

// ModulesPath is the edition-relative path of the per-module page.
const ModulesPath = "modules"

// CodeSegmentsDir is where a MatTools root keeps the tree-sitter parses of
// pymatgen-analysis-defects' unit tests, one JSON file per test file, from
// which the questions were generated (docs/mattools.md §1).
const CodeSegmentsDir = "src/code_segments/pymatgen_analysis_defects"

var testFuncName = regexp.MustCompile(`(?m)^def (\w+)\(`)

// QuestionModules maps each unit-test function of the MatTools root's
// code segments (CodeSegmentsDir) to the pymatgen-analysis-defects module
// its test file covers: tests/test_core.py → "pymatgen.analysis.defects.core",
// tests/plotting/test_thermo.py → "pymatgen.analysis.defects.plotting.thermo".
// A question's id is its unit test's function name. conftest.py holds
// fixtures and is skipped. A missing folder gives an empty map and no error;
// an unreadable file is an error naming it.
func QuestionModules(root string) (map[string]string, error) {
	dir := filepath.Join(root, filepath.FromSlash(CodeSegmentsDir))
	out := map[string]string{}
	if _, err := os.Stat(dir); err != nil {
		return out, nil
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var seg struct {
			Filename  string   `json:"filename"`
			Functions []string `json:"global functions"`
		}
		if err := json.Unmarshal(data, &seg); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		// The test file's path below tests/ (the filename is an absolute path on the author's machine).
		rel := filepath.ToSlash(seg.Filename)
		if i := strings.LastIndex(rel, "/tests/"); i >= 0 {
			rel = rel[i+len("/tests/"):]
		} else {
			rel = path2base(rel)
		}
		base := strings.TrimSuffix(path2base(rel), ".py")
		if base == "conftest" || !strings.HasPrefix(base, "test_") {
			return nil
		}
		mod := strings.TrimPrefix(base, "test_")
		if d := strings.TrimSuffix(rel, path2base(rel)); d != "" {
			mod = strings.ReplaceAll(strings.Trim(d, "/"), "/", ".") + "." + mod
		}
		for _, fn := range seg.Functions {
			for _, m := range testFuncName.FindAllStringSubmatch(fn, -1) {
				out[m[1]] = "pymatgen.analysis.defects." + mod
			}
		}
		return nil
	})
	return out, err
}

func path2base(p string) string {
	if i := strings.LastIndex(p, "/"); i >= 0 {
		return p[i+1:]
	}
	return p
}

type heatCell struct {
	Text  string `json:"text"`  // percent, 0 decimals; "" when the module has no question in the set
	Class string `json:"class"` // heat-0 … heat-10
	Title string `json:"title"` // "k of n properties over r rounds"
	Sort  string `json:"sort"`
}

type heatRow struct {
	Label    string     `json:"label"`
	Href     string     `json:"href"`
	ModelID  string     `json:"model_id"`
	Group    string     `json:"group"`
	Weights  string     `json:"weights"`
	SystemID string     `json:"system_id"`
	SourceN  int        `json:"source_n"`
	Badge    string     `json:"badge"`
	Cells    []heatCell `json:"cells"`
}

type heatColumn struct {
	Module    string `json:"module"` // the last part, e.g. "core"
	Full      string `json:"full"`
	Questions string `json:"questions"` // the set's questions of the module
	N         int    `json:"n"`
}

type heatmapView struct {
	ID      string       `json:"id"`
	Heading string       `json:"heading"`
	Caption string       `json:"caption"`
	Columns []heatColumn `json:"columns"`
	Rows    []heatRow    `json:"rows"`
	// Cut says which rows the page leaves out; nil when none.
	Cut *cutView `json:"cut,omitempty"`
}

// heatmaps returns one heatmap per benchmark version, question set and
// scoring protocol: configurations with per-question outcomes × the modules
// the set's questions exercise, each cell the task success rate over that
// module's questions and the configuration's aggregated rounds.
func (v *views) heatmaps(modules map[string]string) []heatmapView {
	keys, byKey := v.toolUsageGroups(func(c *aggregate.Configuration) bool { return c.Taxonomy() != nil })
	var out []heatmapView
	for _, k := range keys {
		confs := byKey[k]
		qs := confs[0].QuestionSet()
		in := map[string]bool{}
		for _, id := range qs.IDs {
			in[id] = true
		}
		// The modules of the set's questions, in order of their first question.
		var mods []string
		qsOf := map[string][]string{}
		for _, q := range confs[0].Runs[0].Questions {
			if len(in) > 0 && !in[q.QuestionID] {
				continue
			}
			m, ok := modules[q.QuestionID]
			if !ok {
				m = "(unknown module)"
			}
			if qsOf[m] == nil {
				mods = append(mods, m)
			}
			qsOf[m] = append(qsOf[m], q.QuestionID)
		}
		slices.Sort(mods)
		hv := heatmapView{ID: k.id("modules"),
			Heading: k.heading(qs),
			Caption: fmt.Sprintf("Benchmark version %s · question set %s · scoring protocol %s. Each cell: properties passed / properties of the module's questions in this set, over the configuration's rounds, × 100; darker is higher.", k.version, k.qs, k.protocol)}
		for _, m := range mods {
			hv.Columns = append(hv.Columns, heatColumn{Module: strings.TrimPrefix(m, "pymatgen.analysis.defects."), Full: m, Questions: strings.Join(qsOf[m], ", "), N: len(qsOf[m])})
		}
		for _, c := range confs {
			row := heatRow{Label: c.Model.DisplayName + " · " + c.SystemLabel() + sourceSuffix(c.Key.RetrievalSource) + " · " + string(aggregate.BadgeOf(c.Key.Provenance)),
				Href: confHref(c), ModelID: c.Key.Model, Group: c.Model.Group, Weights: c.Model.Facts.Weights, SystemID: string(c.Key.System), SourceN: c.Key.RetrievalSource,
				Badge: string(aggregate.BadgeOf(c.Key.Provenance))}
			passed, total := map[string]int{}, map[string]int{}
			runs := c.RunsWith(aggregate.StatusAggregated)
			for _, r := range runs {
				for _, q := range r.Questions {
					if _, scored := aggregate.ClassifyRow(&q); !scored || q.PropertiesPassed == nil {
						continue
					}
					m, ok := modules[q.QuestionID]
					if !ok {
						m = "(unknown module)"
					}
					passed[m] += int(*q.PropertiesPassed)
					total[m] += int(q.PropertyCount)
				}
			}
			for _, m := range mods {
				if total[m] == 0 {
					row.Cells = append(row.Cells, heatCell{Class: "heat-none", Sort: "-1"})
					continue
				}
				pct := 100 * float64(passed[m]) / float64(total[m])
				row.Cells = append(row.Cells, heatCell{Text: fmt.Sprintf("%.0f", pct), Class: fmt.Sprintf("heat-%d", int(pct/10+0.5)),
					Title: fmt.Sprintf("%s: %d of %s over %s", m, passed[m], count(total[m], "property", "properties"), count(len(runs), "round", "rounds")), Sort: fmt.Sprintf("%.6f", pct)})
			}
			hv.Rows = append(hv.Rows, row)
		}
		out = append(out, hv)
	}
	groups := tableGroups(keys)
	for i := range out {
		out[i].Caption += differsFromOthers(i, groups)
	}
	return out
}

func (w *writer) writeModules(v *views) {
	modules := map[string]string{}
	if b := w.e.Benchmark; b != nil {
		m, err := QuestionModules(b.Root)
		if err != nil {
			w.err = err
			return
		}
		modules = m
	}
	maps := []heatmapView{}
	if len(modules) > 0 {
		maps = append(maps, v.heatmaps(modules)...)
	}
	back := linkView{Text: "Back to task success per module", Href: href(ModulesPath)}
	for i := range maps {
		m := &maps[i]
		full := *m
		m.Rows, m.Cut = boundList(w, m.Rows, ListRows, ModulesPath+"/"+m.ID, "Task success per module: "+m.Heading,
			fmt.Sprintf("Every row of this heatmap, %d to a page, in the order of the modules page.", ListRows), "heatmap.html",
			"the first", "configurations", "", back,
			func(rows []heatRow) map[string]any {
				s := full
				s.Rows = rows
				return map[string]any{"table": s}
			})
	}
	w.page(ModulesPath, "Task success per module", "modules", map[string]any{"heatmaps": maps, "segments": CodeSegmentsDir, "has_modules": len(modules) > 0})
}
