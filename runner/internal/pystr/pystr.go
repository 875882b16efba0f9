// Package pystr reproduces the few Python string semantics the MatTools
// scripts rely on, so that prompts and extractions match theirs byte for
// byte: str.strip() without arguments, the str-pattern meaning of \s in the
// re module, and str.format with named fields.
//
// It imports no project package.
package pystr

import (
	"fmt"
	"strings"
)

// Space is a regexp character class body (without brackets) matching the
// characters for which Python's str.isspace() is true, which is also what \s
// matches in a Python 3 str pattern: ASCII \t \n \v \f \r, the separators
// \x1c–\x1f, space, U+0085, U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029,
// U+202F, U+205F and U+3000. Go's \s lacks \v and everything past ASCII.
const Space = `\t\n\x0b\x0c\r\x1c-\x1f \x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}`

// IsSpace reports whether Python's str.isspace() is true for r.
func IsSpace(r rune) bool {
	switch {
	case r >= '\t' && r <= '\r', r >= 0x1c && r <= 0x20, r == 0x85, r == 0xa0, r == 0x1680,
		r >= 0x2000 && r <= 0x200a, r == 0x2028, r == 0x2029, r == 0x202f, r == 0x205f, r == 0x3000:
		return true
	}
	return false
}

// Strip returns s without leading and trailing whitespace, as Python's
// s.strip() does.
func Strip(s string) string { return strings.TrimFunc(s, IsSpace) }

// Format substitutes the named fields of a Python format string, as
// tmpl.format(**fields) does for templates that use only plain named fields:
// "{name}" becomes fields[name] (never re-scanned), "{{" and "}}" become
// single braces. A field missing from fields, a conversion or format spec,
// or an unmatched brace is an error naming the position.
func Format(tmpl string, fields map[string]string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(tmpl); i++ {
		c := tmpl[i]
		switch {
		case c == '{' && i+1 < len(tmpl) && tmpl[i+1] == '{', c == '}' && i+1 < len(tmpl) && tmpl[i+1] == '}':
			b.WriteByte(c)
			i++
		case c == '{':
			end := strings.IndexByte(tmpl[i:], '}')
			if end < 0 {
				return "", fmt.Errorf("format: unmatched '{' at byte %d", i)
			}
			name := tmpl[i+1 : i+end]
			v, ok := fields[name]
			if !ok {
				return "", fmt.Errorf("format: field {%s} at byte %d has no value", name, i)
			}
			b.WriteString(v)
			i += end
		case c == '}':
			return "", fmt.Errorf("format: single '}' at byte %d", i)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}
