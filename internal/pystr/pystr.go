// Package pystr reproduces the few Python string semantics the MatTools
// scripts rely on, so that prompts and extractions match theirs byte for
// byte: str.strip() without arguments, len and splitlines() of a str,
// text-mode newline translation, the str-pattern meaning of \s in the re
// module, str.format with named fields, repr of a str and of a list of
// str, and json.dumps of a str with ensure_ascii=False. The runner's
// prompts and extractions and the corpus builder's chunks share it.
//
// It imports no project package.
package pystr

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
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
	n := len(tmpl)
	for _, v := range fields {
		n += len(v)
	}
	b.Grow(n) // as if each field were used once
	for i := 0; i < len(tmpl); i++ {
		if k := strings.IndexAny(tmpl[i:], "{}"); k != 0 { // the literal text up to the next brace, at once
			if k < 0 {
				k = len(tmpl) - i
			}
			b.WriteString(tmpl[i : i+k])
			i += k - 1
			continue
		}
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

// Repr returns repr(s) of a Python 3 str: single quotes, or double quotes
// when s holds a single quote and no double quote; backslash, the chosen
// quote, \t, \n and \r escaped; other non-printable characters (as
// str.isprintable, which Go's unicode.IsPrint matches: letters, marks,
// numbers, punctuation, symbols and the ASCII space) as \xhh, \uhhhh or
// \Uhhhhhhhh. Invalid UTF-8 bytes are taken as U+FFFD.
func Repr(s string) string {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte(quote)
	for _, r := range s {
		switch {
		case r == '\\' || r == rune(quote):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x7f && r >= ' ':
			b.WriteRune(r)
		case unicode.IsPrint(r) && r != 0x7f:
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x10000:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	b.WriteByte(quote)
	return b.String()
}

// ReprList returns str(items) of a Python list of str: "[" + the items'
// Repr joined by ", " + "]".
func ReprList(items []string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, s := range items {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(Repr(s))
	}
	b.WriteByte(']')
	return b.String()
}

// JSONString returns s as Python's json.dumps(s, ensure_ascii=False)
// writes it: double quotes; " and \ escaped; \n, \r, \t, \b and \f by
// their short escapes; other characters below U+0020 as \u00hh; all else
// as is (Go's encoding/json differs: it escapes <, >, &, U+2028 and
// U+2029). Invalid UTF-8 bytes are taken as U+FFFD.
func JSONString(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if r < 0x20 {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Len is Python's len of a str: the number of code points.
func Len(s string) int { return utf8.RuneCountInString(s) }

// IsLineBreak reports whether r ends a line for Python's str.splitlines.
func IsLineBreak(r rune) bool {
	switch r {
	case '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
		return true
	}
	return false
}

// SplitLines is Python's str.splitlines() (keepends=False): lines end at
// \n, \r, \r\n, \v, \f, \x1c-\x1e, \x85, U+2028 and U+2029; a final line
// break does not start a new, empty line; "" gives no lines.
func SplitLines(s string) []string {
	var lines []string
	start := 0
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !IsLineBreak(r) {
			i += n
			continue
		}
		lines = append(lines, s[start:i])
		i += n
		if r == '\r' && i < len(s) && s[i] == '\n' {
			i++
		}
		start = i
	}
	if start < len(s) {
		lines = append(lines, s[start:])
	}
	return lines
}

// UniversalNewlines converts \r\n and lone \r to \n, as Python's text-mode
// open (newline=None) and Path.read_text do.
func UniversalNewlines(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}
