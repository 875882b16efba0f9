package pystr

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

var spaceRE = regexp.MustCompile(`^[` + Space + `]$`)

// FuzzStrip checks Strip and IsSpace against each other and against Space
// (the regexp class the extractors use): for every rune of the input,
// IsSpace agrees with [Space]; Strip leaves no leading or trailing space,
// removes only spaces, and is idempotent.
func FuzzStrip(f *testing.F) {
	f.Add("  \t\n x y \u3000\u0085")
	f.Add("\x1c\x1d\x1e\x1fa\v\f\r")
	f.Add("\u200b\ufeffkeep\u00a0")
	f.Fuzz(func(t *testing.T, s string) {
		for _, r := range s {
			if IsSpace(r) != spaceRE.MatchString(string(r)) {
				t.Fatalf("IsSpace(%U) = %v but [Space] says %v", r, IsSpace(r), !IsSpace(r))
			}
		}
		got := Strip(s)
		if Strip(got) != got {
			t.Fatalf("Strip not idempotent on %q", s)
		}
		if r, _ := utf8.DecodeRuneInString(got); got != "" && IsSpace(r) {
			t.Fatalf("Strip(%q) = %q starts with a space", s, got)
		}
		if r, _ := utf8.DecodeLastRuneInString(got); got != "" && IsSpace(r) {
			t.Fatalf("Strip(%q) = %q ends with a space", s, got)
		}
		// Where got starts: after the leading spaces (not strings.Index,
		// which can match inside a multi-byte rune of invalid UTF-8).
		i := len(s) - len(strings.TrimLeftFunc(s, IsSpace))
		if i+len(got) > len(s) || s[i:i+len(got)] != got || strings.TrimFunc(s[:i], IsSpace) != "" || strings.TrimFunc(s[i+len(got):], IsSpace) != "" {
			t.Fatalf("Strip(%q) = %q removed more than spaces", s, got)
		}
	})
}

// FuzzFormat feeds arbitrary templates and values to Format (Python's
// str.format with named fields). Invariants: no panic; a value is inserted
// verbatim, never re-scanned (values full of braces change nothing else);
// escaping a text's braces ({{, }}) and formatting gives the text back; a
// template without braces is returned as is; an accepted template's output
// is the template with each {field} replaced, so formatting with values
// that are the field's own "{name}" escaped reproduces the unescaped
// template; and Format gives what formatByByte gives, output and error.
func FuzzFormat(f *testing.F) {
	f.Add("Pick one.\n<question>{question}</question>\n{first_choice}\nAnswer as <answer>X</answer>.", "What is {x}?", "A. {{}}")
	f.Add("{{literal}} {question}", "}", "{")
	f.Add("{unknown}", "", "")
	f.Add("{question", "", "")
	f.Add("}", "", "")
	f.Fuzz(func(t *testing.T, tmpl, a, b string) {
		fields := map[string]string{"question": a, "first_choice": b, "": a + b}
		out, err := Format(tmpl, fields)
		if ref, rerr := formatByByte(tmpl, fields); ref != out || fmt.Sprint(rerr) != fmt.Sprint(err) {
			t.Fatalf("Format(%q) = %q, %v; the byte-at-a-time reference gives %q, %v", tmpl, out, err, ref, rerr)
		}
		if err != nil {
			if out != "" {
				t.Fatalf("error with output %q", out)
			}
		} else {
			// Values full of braces: same success, and the same output
			// around them.
			braces := map[string]string{"question": "{" + a + "}}", "first_choice": "{{" + b, "": "}{"}
			if _, err := Format(tmpl, braces); err != nil {
				t.Fatalf("values changed the outcome: %v", err)
			}
		}
		if !strings.ContainsAny(tmpl, "{}") {
			if err != nil || out != tmpl {
				t.Fatalf("template without braces: %q, %v", out, err)
			}
		}
		esc := strings.NewReplacer("{", "{{", "}", "}}").Replace(tmpl)
		if got, err := Format(esc, nil); err != nil || got != tmpl {
			t.Fatalf("escaped template gives %q, %v; want it back", got, err)
		}
	})
}

// formatByByte is Format as first written, one byte at a time: the
// reference FuzzFormat checks Format's faster literal copying against.
func formatByByte(tmpl string, fields map[string]string) (string, error) {
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
