package graphrag

import (
	"strings"
	"testing"
)

// TestO200kKnownTokens checks the real o200k_base tokenizer on strings whose
// ids tiktoken gives (o200k_base: "hello world" = [24912, 2375]).
func TestO200kKnownTokens(t *testing.T) {
	tok := O200k()
	if tok.Name() != "o200k_base" {
		t.Errorf("name %q", tok.Name())
	}
	tests := []struct {
		text string
		ids  []int
	}{
		{"hello world", []int{24912, 2375}},
		{"hello  world", []int{24912, 220, 2375}},
		{"We know what we are, but know not what we may be.", []int{2167, 1761, 1412, 581, 553, 11, 889, 1761, 625, 1412, 581, 1340, 413, 13}},
	}
	for _, tt := range tests {
		got := tok.Encode(tt.text)
		if len(got) != len(tt.ids) || tok.Count(tt.text) != len(tt.ids) {
			t.Errorf("Encode(%q) = %v, want %v", tt.text, got, tt.ids)
			continue
		}
		for i := range got {
			if got[i] != tt.ids[i] {
				t.Errorf("Encode(%q) = %v, want %v", tt.text, got, tt.ids)
				break
			}
		}
	}
	for _, s := range []string{"from pymatgen.core import Structure\n\ns = Structure.from_file(\"POSCAR\")\n", "Ünïcødé-模型-λ 😀", ""} {
		if got := tok.Decode(tok.Encode(s)); got != s {
			t.Errorf("round trip of %q gave %q", s, got)
		}
	}
}

// TestO200kWindowsCutCharactersIntoReplacementCharacters: a window that
// ends or starts inside a character decodes it as U+FFFD, as tiktoken's
// errors="replace" does, so a chunk may start or end with U+FFFD.
func TestO200kWindowsCutCharactersIntoReplacementCharacters(t *testing.T) {
	tok := O200k()
	text := "鱻龘靐" // rare characters: byte-level tokens split each of them
	ids := tok.Encode(text)
	if got := tok.Decode(ids[:1]); got != "\uFFFD" {
		t.Errorf("first token alone decodes to %q, want one U+FFFD", got)
	}
	var sawReplacement bool
	for i := 1; i < len(ids); i++ {
		a, b := tok.Decode(ids[:i]), tok.Decode(ids[i:])
		if strings.ContainsRune(a, '\uFFFD') || strings.ContainsRune(b, '\uFFFD') {
			sawReplacement = true
		}
		if !strings.ContainsRune(a, '\uFFFD') && !strings.ContainsRune(b, '\uFFFD') && a+b != text {
			t.Fatalf("cut at %d: %q + %q", i, a, b)
		}
	}
	if !sawReplacement {
		t.Error("no cut gave U+FFFD")
	}
}

func TestCharsTokenizer(t *testing.T) {
	tok := Chars()
	if tok.Count("héllo") != 5 || tok.Decode(tok.Encode("héllo")) != "héllo" || tok.Decode(tok.Encode("héllo")[1:3]) != "él" {
		t.Error("character tokenizer")
	}
	for _, name := range []string{"o200k_base", "chars"} {
		if tk, err := TokenizerByName(name); err != nil || tk.Name() != name {
			t.Errorf("TokenizerByName(%q) = %v, %v", name, tk, err)
		}
	}
	if _, err := TokenizerByName("cl100k_base"); err == nil {
		t.Error("unknown tokenizer accepted")
	}
}
