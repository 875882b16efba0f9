package results

import (
	"regexp"
	"slices"
)

// registered are the systems under test added by RegisterSystem, in
// registration order.
var registered []System

// systemID is the shape of a system id: lower-case words joined by "-"
// (it is a part of run ids and of page paths).
var systemID = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

// RegisterSystem adds s to the systems under test that results files may
// name (beside the paper's Systems): a system that this process's runner
// can run (runner/systems registers each of its systems here when it is
// not one of the paper's). It is called from init only, and panics when s
// is not a system id (lower-case words joined by "-") or is already known.
func RegisterSystem(s System) {
	if !systemID.MatchString(string(s)) {
		panic("results: system id " + string(s) + " is not lower-case words joined by \"-\"")
	}
	if systems[s] {
		panic("results: system " + string(s) + " is already known")
	}
	systems[s] = true
	registered = append(registered, s)
}

// SystemsUnderTest returns the systems a run plan may name: the paper's
// Systems, in the paper's order, then those added by RegisterSystem, in
// registration order (not the audit's systems).
func SystemsUnderTest() []System {
	return append(slices.Clone(Systems), registered...)
}

// KnownSystem reports whether s is a system results files may name: one
// of the paper's, of the audit's, or registered.
func KnownSystem(s System) bool { return systems[s] }
