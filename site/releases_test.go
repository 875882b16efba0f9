package site

import "testing"

// TestDefaultReleases: the embedded site/releases.json parses, and lists
// the frozen releases v1.0, v1.1 and v1.2 in order.
func TestDefaultReleases(t *testing.T) {
	rs, err := DefaultReleases()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rs {
		got = append(got, r.Version)
	}
	if len(got) < 3 || got[0] != "v1.0" || got[1] != "v1.1" || got[2] != "v1.2" {
		t.Errorf("versions = %v, want v1.0, v1.1, v1.2 first", got)
	}
}
