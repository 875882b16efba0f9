package plan

import (
	"slices"

	"github.com/BurntSushi/toml"

	"github.com/mattools-leaderboard/leaderboard/results"
)

// SystemSpec is the plan's part of a system's registration
// (runner/systems.Registration.Plan): the TOML section of its settings,
// decoded and checked by the system itself, and how its settings expand a
// configuration into configurations of their own. Which retrieval sources
// its configurations use is its results.SystemInfo.Retrieval.
type SystemSpec struct {
	// Section is the plan's TOML table of the system's settings (e.g.
	// "self_reflection"); "" for a system without settings.
	Section string
	// NewSettings returns a new pointer to the settings (a struct with toml
	// tags) the section decodes into; Parse makes one for every plan,
	// whether it has the section or not.
	NewSettings func() any
	// Check sets the absent settings to their defaults and reports wrong
	// ones through c, naming the field ("self_reflection.variants[0]").
	// Parse calls it for every plan, whether it names the system or not.
	Check func(c *SectionChecker, settings any)
	// Expand returns the configurations of c (a configuration of the
	// system without a model: benchmark, retrieval source, method, top-k)
	// that its settings make, in order, e.g. one per self-reflection
	// variant; nil Expand: c alone. settings is nil for a Plan that Parse
	// did not make.
	Expand func(settings any, c Configuration) []Configuration
}

// specs are the registered system specs; specOrder their systems in
// registration order.
var (
	specs     = map[results.System]SystemSpec{}
	specOrder []results.System
)

// RegisterSystemSpec registers the plan's part of system s. It is called
// from init only (runner/systems.Register), and panics on a second spec of
// s, on a section that another system or the plan itself uses, or on a
// section without NewSettings.
func RegisterSystemSpec(s results.System, spec SystemSpec) {
	if _, dup := specs[s]; dup {
		panic("plan: a second spec of system " + string(s))
	}
	if spec.Section != "" {
		if spec.NewSettings == nil {
			panic("plan: system " + string(s) + ": section " + spec.Section + " without NewSettings")
		}
		if slices.Contains(planKeys(), spec.Section) {
			panic("plan: system " + string(s) + ": section " + spec.Section + " is a key of the plan itself")
		}
		for o, other := range specs {
			if other.Section == spec.Section {
				panic("plan: systems " + string(o) + " and " + string(s) + " both use section " + spec.Section)
			}
		}
	}
	specs[s] = spec
	specOrder = append(specOrder, s)
}

// planKeys are the top-level TOML keys of a Plan.
func planKeys() []string {
	return []string{"rounds", "concurrency", "benchmarks", "systems", "retrieval_sources", "retrieval", "tool_usage", "sandbox",
		"qa_sets", "folder_benchmarks", "models", "estimate"}
}

// Settings returns the settings of system s as Parse decoded and checked
// them (SystemSpec.NewSettings' pointer), nil for a system without a
// section or a Plan that Parse did not make.
func (p *Plan) Settings(s results.System) any { return p.settings[s] }

// SectionChecker is what a SystemSpec's Check sees: the plan (its other
// values checked and defaulted already, but for the models) and the
// section's keys.
type SectionChecker struct {
	c       *checker
	section string
}

// Plan returns the plan being checked.
func (s *SectionChecker) Plan() *Plan { return s.c.p }

// Defined reports whether the plan gives key of the section (so that an
// explicit 0 is checked, not defaulted).
func (s *SectionChecker) Defined(key ...string) bool {
	return s.c.md.IsDefined(append([]string{s.section}, key...)...)
}

// Add reports a wrong value: field is its full name, e.g.
// "self_reflection.max_iterations", or another field of the plan.
func (s *SectionChecker) Add(field, format string, a ...any) { s.c.add(field, format, a...) }

// specsInOrder returns the registered systems with a spec: the results
// registry's systems under test first, in their order, then the others in
// registration order.
func specsInOrder() []results.System {
	var out []results.System
	for _, s := range results.SystemsUnderTest() {
		if _, ok := specs[s]; ok {
			out = append(out, s)
		}
	}
	for _, s := range specOrder {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// decodeSections decodes each registered system's section of the plan
// text data into new settings; it returns the keys of those sections that
// no setting has, as toml.MetaData.Undecoded gives them. Errors are TOML
// type mismatches.
func (c *checker) decodeSections(data string) (unknown map[string]bool, err error) {
	c.p.settings = map[results.System]any{}
	var raw map[string]toml.Primitive
	md, err := toml.Decode(data, &raw)
	if err != nil {
		return nil, err
	}
	sections := map[string]bool{}
	for _, s := range specsInOrder() {
		spec := specs[s]
		if spec.Section == "" {
			continue
		}
		sections[spec.Section] = true
		v := spec.NewSettings()
		if prim, ok := raw[spec.Section]; ok {
			if err := md.PrimitiveDecode(prim, v); err != nil {
				return nil, err // a type mismatch, as toml.Decode reports it for the plan's own sections
			}
		}
		c.p.settings[s] = v
	}
	unknown = map[string]bool{}
	for _, k := range md.Undecoded() {
		if len(k) > 1 && sections[k[0]] {
			unknown[k.String()] = true
		}
	}
	return unknown, nil
}

// checkSections calls each registered system's Check on its settings.
func (c *checker) checkSections() {
	for _, s := range specsInOrder() {
		spec := specs[s]
		if spec.Check == nil {
			continue
		}
		spec.Check(&SectionChecker{c: c, section: spec.Section}, c.p.settings[s])
	}
}

// sectionSpec returns the spec whose section is the top-level key k.
func sectionSpec(k string) (SystemSpec, bool) {
	for _, spec := range specs {
		if spec.Section != "" && spec.Section == k {
			return spec, true
		}
	}
	return SystemSpec{}, false
}
