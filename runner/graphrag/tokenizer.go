package graphrag

import (
	"fmt"
	"sync"

	"github.com/tiktoken-go/tokenizer"
)

// Tokenizer turns text into token ids and back. It is what LightRAG's
// encode_string_by_tiktoken / decode_tokens_by_tiktoken do (utils.py:314-327):
// chunk windows (§2.2), the 32768-token cut before a summary (§2.7) and the
// 4000-token context budgets (§3.3) are counted with it. Implementations
// must be safe for concurrent use.
type Tokenizer interface {
	// Name identifies the tokenizer in the manifest: "o200k_base" or "chars".
	Name() string
	// Encode returns the token ids of s.
	Encode(s string) []int
	// Decode returns the text of ids. Byte-level tokenizers may cut a
	// character; each maximal invalid UTF-8 subsequence then becomes one
	// U+FFFD, as Python's bytes.decode(errors="replace") that tiktoken uses.
	Decode(ids []int) string
	// Count returns len(Encode(s)).
	Count(s string) int
}

// Tokenizer names recorded in the manifest.
const (
	TokenizerO200k = "o200k_base"
	TokenizerChars = "chars"
)

// TokenizerByName returns the tokenizer a manifest names.
func TokenizerByName(name string) (Tokenizer, error) {
	switch name {
	case TokenizerO200k:
		return O200k(), nil
	case TokenizerChars:
		return Chars(), nil
	}
	return nil, fmt.Errorf("graphrag: unknown tokenizer %q (want %q or %q)", name, TokenizerO200k, TokenizerChars)
}

type o200k struct{ c tokenizer.Codec }

var (
	o200kOnce sync.Once
	o200kTok  *o200k
)

// O200k returns the o200k_base tokenizer, which LightRAG 1.3.3 uses through
// tiktoken for its tiktoken_model_name "gpt-4o-mini" (lightrag.py:125;
// docs/graphrag.md §2.2), from github.com/tiktoken-go/tokenizer (ranks embedded,
// no download). Decoding replaces invalid UTF-8 as tiktoken does. Special
// tokens such as "<|endoftext|>" are encoded as ordinary text, where tiktoken
// raises; Build refuses documents that contain them (see the package doc).
// The value is shared; its vocabulary is loaded on first use.
func O200k() Tokenizer {
	o200kOnce.Do(func() {
		c, err := tokenizer.Get(tokenizer.O200kBase)
		if err != nil {
			panic("graphrag: o200k_base: " + err.Error())
		}
		c.SetErrorMode(tokenizer.ErrorModeReplace)
		o200kTok = &o200k{c: c}
	})
	return o200kTok
}

func (t *o200k) Name() string { return TokenizerO200k }

func (t *o200k) Encode(s string) []int {
	ids, _, err := t.c.Encode(s)
	if err != nil {
		// The codec fails only if its split regexp does, which has no timeout.
		panic("graphrag: o200k_base encode: " + err.Error())
	}
	out := make([]int, len(ids))
	for i, id := range ids {
		out[i] = int(id)
	}
	return out
}

func (t *o200k) Decode(ids []int) string {
	u := make([]uint, len(ids))
	for i, id := range ids {
		u[i] = uint(id)
	}
	s, err := t.c.Decode(u)
	if err != nil {
		// Only ids that no Encode returned fail.
		panic("graphrag: o200k_base decode: " + err.Error())
	}
	return s
}

func (t *o200k) Count(s string) int {
	n, err := t.c.Count(s)
	if err != nil {
		panic("graphrag: o200k_base count: " + err.Error())
	}
	return n
}

type chars struct{}

// Chars returns a tokenizer with one token per Unicode code point (the id
// is the code point), so that windows and budgets of tests can be computed
// by hand (docs/graphrag.md §8). Invalid UTF-8 bytes count as U+FFFD.
func Chars() Tokenizer { return chars{} }

func (chars) Name() string { return TokenizerChars }

func (chars) Encode(s string) []int {
	out := make([]int, 0, len(s))
	for _, r := range s {
		out = append(out, int(r))
	}
	return out
}

func (chars) Decode(ids []int) string {
	rs := make([]rune, len(ids))
	for i, id := range ids {
		rs[i] = rune(id)
	}
	return string(rs)
}

func (chars) Count(s string) int {
	n := 0
	for range s {
		n++
	}
	return n
}
