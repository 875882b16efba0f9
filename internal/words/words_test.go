package words

import "testing"

func TestCount(t *testing.T) {
	for _, tt := range []struct {
		n    int64
		want string
	}{{0, "0 properties"}, {1, "1 property"}, {2, "2 properties"}, {-1, "-1 properties"}, {1000, "1000 properties"}} {
		if got := Count(tt.n, "property", "properties"); got != tt.want {
			t.Errorf("Count(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
	if got := Count(uint8(1), "run", "runs"); got != "1 run" {
		t.Errorf("Count(uint8(1)) = %q", got)
	}
	if Noun(1, "was", "were") != "was" || Noun(3, "was", "were") != "were" {
		t.Error("Noun")
	}
}
