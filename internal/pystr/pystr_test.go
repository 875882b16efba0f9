package pystr

import (
	"regexp"
	"testing"
)

func TestStripMatchesPythonWhitespace(t *testing.T) {
	// Python: "\x0b\x1c\u00a0 a b \u3000\n\x85".strip() == "a b"; "\u200b" (zero-width space) is not whitespace.
	if got := Strip("\x0b\x1c\u00a0 a b \u3000\n\u0085"); got != "a b" {
		t.Errorf("Strip = %q, want %q", got, "a b")
	}
	if got := Strip("\u200ba\u200b"); got != "\u200ba\u200b" {
		t.Errorf("Strip removed U+200B: %q", got)
	}
}

func TestSpaceClassAgreesWithIsSpace(t *testing.T) {
	re := regexp.MustCompile(`^[` + Space + `]$`)
	for r := rune(0); r < 0x3100; r++ {
		if re.MatchString(string(r)) != IsSpace(r) {
			t.Errorf("U+%04X: class %v, IsSpace %v", r, re.MatchString(string(r)), IsSpace(r))
		}
	}
}

func TestFormat(t *testing.T) {
	tests := []struct {
		name, tmpl, want string
		wantErr          bool
	}{
		{"fields", "<q>{question}</q> {a}", "<q>What is {x}?</q> A. {b}", false},
		{"escaped braces", "{{literal}} {a}", "{literal} A. {b}", false},
		{"missing field", "{nope}", "", true},
		{"unmatched open", "x {a", "", true},
		{"single close", "x } y", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Format(tt.tmpl, map[string]string{"question": "What is {x}?", "a": "A. {b}"})
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("Format = %q, %v; want %q (error %v)", got, err, tt.want, tt.wantErr)
			}
		})
	}
}
