package corpus

import (
	"strings"
	"unicode/utf8"
)

// pyIsSpace reports whether r is whitespace for Python's str.isspace,
// str.strip and the \s class of str regular expressions (Unicode
// bidirectional class WS, B or S, or category Zs).
func pyIsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', 0x1c, 0x1d, 0x1e, 0x1f, ' ',
		0x85, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// pyStrip is Python's str.strip() without arguments.
func pyStrip(s string) string { return strings.TrimFunc(s, pyIsSpace) }

// pyLen is Python's len of a str: the number of code points.
func pyLen(s string) int { return utf8.RuneCountInString(s) }

// isPyLineBreak reports whether r ends a line for Python's str.splitlines.
func isPyLineBreak(r rune) bool {
	switch r {
	case '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
		return true
	}
	return false
}

// pySplitLines is Python's str.splitlines() (keepends=False): lines end at
// \n, \r, \r\n, \v, \f, \x1c-\x1e, \x85, U+2028 and U+2029; a final line
// break does not start a new, empty line; "" gives no lines.
func pySplitLines(s string) []string {
	var lines []string
	start := 0
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !isPyLineBreak(r) {
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

// universalNewlines converts \r\n and lone \r to \n, as Python's text-mode
// open (newline=None) and Path.read_text do.
func universalNewlines(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}
