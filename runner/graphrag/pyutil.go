package graphrag

// Python semantics LightRAG's output depends on: its small string helpers
// (utils.py), Python's float repr, csv writer dialect and time formatting.

import (
	"crypto/md5"
	"encoding/hex"
	"html"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mattools-leaderboard/leaderboard/internal/pystr"
)

// GraphFieldSep joins the descriptions, keywords, source ids and file paths
// of a merged entity or relation (prompt.py GRAPH_FIELD_SEP).
const GraphFieldSep = "<SEP>"

// mdhashID is compute_mdhash_id (utils.py:266): prefix + md5 hex of the
// UTF-8 bytes.
func mdhashID(content, prefix string) string {
	sum := md5.Sum([]byte(content))
	return prefix + hex.EncodeToString(sum[:])
}

// md5Hex is the md5 hex digest of s.
func md5Hex(s string) string { return mdhashID(s, "") }

// pyLen is Python's len of a str: code points.
func pyLen(s string) int { return utf8.RuneCountInString(s) }

// splitByMarkers is split_string_by_multi_markers (utils.py:337-345):
// re.split on the markers (tried in order at each position), every piece
// stripped as str.strip() does, empty pieces dropped.
func splitByMarkers(content string, markers []string) []string {
	if len(markers) == 0 {
		return []string{content}
	}
	var out []string
	add := func(p string) {
		if p = pystr.Strip(p); p != "" {
			out = append(out, p)
		}
	}
	start := 0
	for i := 0; i < len(content); {
		matched := ""
		for _, m := range markers {
			if m != "" && strings.HasPrefix(content[i:], m) {
				matched = m
				break
			}
		}
		if matched == "" {
			i++
			continue
		}
		add(content[start:i])
		i += len(matched)
		start = i
	}
	add(content[start:])
	return out
}

// cleanStr is clean_str (utils.py:348-356): strip, html.unescape, then delete
// the code points U+0000–U+001F and U+007F–U+009F.
func cleanStr(s string) string {
	s = html.UnescapeString(pystr.Strip(s))
	return strings.Map(func(r rune) rune {
		if r <= 0x1f || (r >= 0x7f && r <= 0x9f) {
			return -1
		}
		return r
	}, s)
}

// isCJK reports whether r is in [\u4e00-\u9fa5], the class LightRAG's
// normalisation uses.
func isCJK(r rune) bool { return r >= 0x4e00 && r <= 0x9fa5 }

func isASCIIAlnum(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}

// removeSpaceRuns deletes every maximal run of Python whitespace that is
// preceded by a rune satisfying before and followed by one satisfying
// after: re.sub(r"(?<=B)\s+(?=A)", "", s) for single-rune classes.
func removeSpaceRuns(s string, before, after func(rune) bool) string {
	rs := []rune(s)
	var b strings.Builder
	for i := 0; i < len(rs); {
		if !pystr.IsSpace(rs[i]) {
			b.WriteRune(rs[i])
			i++
			continue
		}
		j := i
		for j < len(rs) && pystr.IsSpace(rs[j]) {
			j++
		}
		if !(i > 0 && before(rs[i-1]) && j < len(rs) && after(rs[j])) {
			b.WriteString(string(rs[i:j]))
		}
		i = j
	}
	return b.String()
}

// normalizeExtractedInfo is normalize_extracted_info (utils.py:1356-1398):
// Chinese parentheses and dashes to ASCII, spaces between CJK characters
// (and between CJK and ASCII letters or digits) removed, one pair of
// surrounding double quotes removed; for entity names also the curly quotes
// “ ” ‘ ’ anywhere, and straight quotes next to CJK characters.
func normalizeExtractedInfo(name string, isEntity bool) string {
	name = strings.NewReplacer("（", "(", "）", ")").Replace(name)
	name = strings.NewReplacer("—", "-", "－", "-").Replace(name)
	name = removeSpaceRuns(name, isCJK, isCJK)
	name = removeSpaceRuns(name, isCJK, isASCIIAlnum)
	name = removeSpaceRuns(name, isASCIIAlnum, isCJK)
	if len(name) >= 2 && strings.HasPrefix(name, `"`) && strings.HasSuffix(name, `"`) {
		name = name[1 : len(name)-1]
	}
	if isEntity {
		name = strings.NewReplacer("“", "", "”", "", "‘", "", "’", "").Replace(name)
		name = removeQuotesNextToCJK(name)
	}
	return name
}

// removeQuotesNextToCJK applies re.sub(r"['\"]+(?=[\u4e00-\u9fa5])", "", s)
// and then re.sub(r"(?<=[\u4e00-\u9fa5])['\"]+", "", s).
func removeQuotesNextToCJK(s string) string {
	isQ := func(r rune) bool { return r == '\'' || r == '"' }
	pass := func(rs []rune, drop func(rs []rune, i, j int) bool) []rune {
		var out []rune
		for i := 0; i < len(rs); {
			if !isQ(rs[i]) {
				out = append(out, rs[i])
				i++
				continue
			}
			j := i
			for j < len(rs) && isQ(rs[j]) {
				j++
			}
			if !drop(rs, i, j) {
				out = append(out, rs[i:j]...)
			}
			i = j
		}
		return out
	}
	rs := pass([]rune(s), func(rs []rune, i, j int) bool { return j < len(rs) && isCJK(rs[j]) })
	rs = pass(rs, func(rs []rune, i, j int) bool { return i > 0 && isCJK(rs[i-1]) })
	return string(rs)
}

// stripChars is Python's s.strip(chars) for a set of ASCII characters.
func stripChars(s, chars string) string { return strings.Trim(s, chars) }

// floatRe is is_float_regex's pattern (utils.py:359-360); Python's $ also
// matches before one final newline.
var floatRe = regexp.MustCompile(`^[-+]?[0-9]*\.?[0-9]+\n?\z`)

func isFloatRegex(s string) bool { return floatRe.MatchString(s) }

// pyFloat parses what Python's float() accepts of a string that matched
// floatRe (surrounding whitespace allowed); out-of-range values become ±Inf
// as in Python.
func pyFloat(s string) float64 {
	f, _ := strconv.ParseFloat(pystr.Strip(s), 64)
	return f
}

// reprFloat is Python's repr(float)/str(float): the shortest round-tripping
// digits, in fixed notation when the decimal exponent is in [-4, 16),
// otherwise scientific with a sign and at least two exponent digits
// ("22.0", "0.0001", "1e-05", "1e+16", "inf", "nan").
func reprFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	sign := ""
	if e[0] == '-' {
		sign, e = "-", e[1:]
	}
	mant, expS, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expS)
	digits := strings.Replace(mant, ".", "", 1)
	if exp >= -4 && exp < 16 {
		var s string
		switch {
		case exp < 0:
			s = "0." + strings.Repeat("0", -exp-1) + digits
		case exp+1 >= len(digits):
			s = digits + strings.Repeat("0", exp+1-len(digits)) + ".0"
		default:
			s = digits[:exp+1] + "." + digits[exp+1:]
		}
		return sign + s
	}
	m := digits[:1]
	if len(digits) > 1 {
		m += "." + digits[1:]
	}
	es := "+"
	if exp < 0 {
		es, exp = "-", -exp
	}
	return sign + m + "e" + es + pad2(exp)
}

func pad2(n int) string {
	s := strconv.Itoa(n)
	if len(s) < 2 {
		s = "0" + s
	}
	return s
}

// pyTime formats a Unix time in seconds as time.strftime("%Y-%m-%d
// %H:%M:%S", time.localtime(ts)) does: floored to the second, in loc.
func pyTime(ts float64, loc *time.Location) string {
	if loc == nil {
		loc = time.Local
	}
	return time.Unix(int64(math.Floor(ts)), 0).In(loc).Format("2006-01-02 15:04:05")
}

// unicodeEscapeRe is safe_unicode_decode's pattern (utils.py:782-796).
var unicodeEscapeRe = regexp.MustCompile(`\\u([0-9a-fA-F]{4})`)

// safeUnicodeDecode is what LightRAG's OpenAI binding does to every answer
// that contains a literal `\u` (llm/openai.py; utils.py:782-796): each
// \uXXXX becomes the character U+XXXX. A high and a low surrogate written
// next to each other become the one character they encode (Python keeps
// two lone surrogates, which become that character once the text is sent
// as JSON); a lone surrogate becomes U+FFFD.
func safeUnicodeDecode(s string) string {
	if !strings.Contains(s, `\u`) {
		return s
	}
	locs := unicodeEscapeRe.FindAllStringSubmatchIndex(s, -1)
	if locs == nil {
		return s
	}
	var b strings.Builder
	last := 0
	for k := 0; k < len(locs); k++ {
		l := locs[k]
		b.WriteString(s[last:l[0]])
		v, _ := strconv.ParseUint(s[l[2]:l[3]], 16, 32)
		r := rune(v)
		last = l[1]
		if r >= 0xd800 && r <= 0xdbff && k+1 < len(locs) && locs[k+1][0] == l[1] {
			n := locs[k+1]
			w, _ := strconv.ParseUint(s[n[2]:n[3]], 16, 32)
			if w >= 0xdc00 && w <= 0xdfff {
				r = 0x10000 + (r-0xd800)<<10 + (rune(w) - 0xdc00)
				last = n[1]
				k++
			}
		}
		if r >= 0xd800 && r <= 0xdfff {
			r = utf8.RuneError
		}
		b.WriteRune(r)
	}
	b.WriteString(s[last:])
	return b.String()
}

// csvRows renders rows as list_of_list_to_csv does (utils.py:377-388):
// Python's csv.writer with QUOTE_ALL, escapechar "\" and doublequote, lines
// ending in "\n": every field in double quotes, `"` doubled, `\` written as
// `\\`, everything else (newlines included) kept as is. Fields are strings
// already formatted as Python's str() would (see reprFloat).
func csvRows(rows [][]string) string {
	var b strings.Builder
	for _, row := range rows {
		for i, f := range row {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('"')
			for j := 0; j < len(f); j++ {
				switch f[j] {
				case '"':
					b.WriteString(`""`)
				case '\\':
					b.WriteString(`\\`)
				default:
					b.WriteByte(f[j])
				}
			}
			b.WriteByte('"')
		}
		b.WriteByte('\n')
	}
	return b.String()
}
