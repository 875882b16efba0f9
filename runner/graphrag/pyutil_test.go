package graphrag

import (
	"strings"
	"testing"
	"time"
)

// delims are LightRAG's default delimiters, for tests that need no prompt files.
var delims = &Prompts{TupleDelimiter: "<|>", RecordDelimiter: "##", CompletionDelimiter: "<|COMPLETE|>"}

func TestReprFloatIsPythonStr(t *testing.T) {
	check := func(f float64, want string) {
		t.Helper()
		if got := reprFloat(f); got != want {
			t.Errorf("reprFloat(%v) = %q, want %q", f, got, want)
		}
	}
	// Python: str(22.0), str(1.0), str(0.5), str(7.25), str(-3.0), str(0.0001),
	// str(1e-05), str(123456789012345.0), str(1e16), str(1.5e16), str(1/3), str(float("inf"))
	check(22, "22.0")
	check(1, "1.0")
	check(0.5, "0.5")
	check(7.25, "7.25")
	check(-3, "-3.0")
	check(0.0001, "0.0001")
	check(0.00001, "1e-05")
	check(123456789012345, "123456789012345.0")
	check(1e16, "1e+16")
	check(1.5e16, "1.5e+16")
	check(1.0/3, "0.3333333333333333")
	check(0, "0.0")
	check(2e-300, "2e-300")
	check(inf(), "inf")
}

func inf() float64 { var z float64; return 1 / z }

func TestCSVRowsIsPythonQuoteAllWithBackslashEscape(t *testing.T) {
	// Python: csv.writer(out, quoting=csv.QUOTE_ALL, escapechar="\\", quotechar='"',
	// lineterminator="\n").writerows([["id","d"],[0,'say "hi" C:\\x\nnext, ok']])
	// writes '"id","d"\n"0","say ""hi"" C:\\\\x\nnext, ok"\n'.
	got := csvRows([][]string{{"id", "d"}, {"0", "say \"hi\" C:\\x\nnext, ok"}})
	want := "\"id\",\"d\"\n\"0\",\"say \"\"hi\"\" C:\\\\x\nnext, ok\"\n"
	if got != want {
		t.Errorf("csvRows = %q, want %q", got, want)
	}
}

func TestSplitByMarkers(t *testing.T) {
	got := splitByMarkers(" a ##b<|COMPLETE|>##  ## c\n", []string{"##", "<|COMPLETE|>"})
	if strings.Join(got, "|") != "a|b|c" {
		t.Errorf("got %q", got)
	}
	if got := splitByMarkers("", []string{"##"}); len(got) != 0 {
		t.Errorf("empty input gave %q", got)
	}
}

func TestParenContentIsGreedyWithinOneLine(t *testing.T) {
	tests := []struct{ in, want string }{
		{`Output: ("entity"<|>"A"<|>"t"<|>"d (x)") trailing`, `"entity"<|>"A"<|>"t"<|>"d (x)"`},
		{"(no close\n(\"a\")", `"a"`}, // "." does not cross the newline
		{"x (a) y (b) z", "a) y (b"},
		{"none here", ""},
	}
	for _, tt := range tests {
		got, _ := parenContent(tt.in)
		if got != tt.want {
			t.Errorf("parenContent(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCleanAndNormalize(t *testing.T) {
	// clean_str: strip, html.unescape, control characters removed.
	if got := cleanStr("  \"A &amp; B\tC\x7f\"\n"); got != `"A & BC"` {
		t.Errorf("cleanStr = %q", got)
	}
	tests := []struct {
		in       string
		isEntity bool
		want     string
	}{
		{`"Structure"`, true, "Structure"},
		{`""`, true, ""},
		{`"`, true, `"`},
		{"Alice’s “Lab”", true, "Alices Lab"},
		{"Alice’s", false, "Alice’s"},
		{"（化学） 结构 A", false, "(化学) 结构A"}, // the space after ")" stays
		{"中\"文", true, "中文"},
		{"a — b", false, "a - b"},
	}
	for _, tt := range tests {
		if got := normalizeExtractedInfo(tt.in, tt.isEntity); got != tt.want {
			t.Errorf("normalizeExtractedInfo(%q, %v) = %q, want %q", tt.in, tt.isEntity, got, tt.want)
		}
	}
}

func TestIsFloatRegex(t *testing.T) {
	for s, want := range map[string]bool{"8": true, "-1.5": true, ".5": true, "+3": true, `"7"`: false, "7.": false, "1e3": false, "": false, "7\n": true} {
		if got := isFloatRegex(s); got != want {
			t.Errorf("isFloatRegex(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestSafeUnicodeDecode(t *testing.T) {
	tests := []struct{ in, want string }{
		{`caf\u00e9`, "café"},
		{`\ud83d\ude00!`, "😀!"},
		{`lone \ud83d`, "lone \uFFFD"},
		{`no escape \x`, `no escape \x`},
		{`\u00E9\u00e9`, "éé"},
	}
	for _, tt := range tests {
		if got := safeUnicodeDecode(tt.in); got != tt.want {
			t.Errorf("safeUnicodeDecode(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPyTimeFloorsAndUsesTheLocation(t *testing.T) {
	ts := float64(time.Date(2025, 4, 26, 12, 0, 5, 0, time.UTC).Unix()) + 0.99
	if got := pyTime(ts, time.UTC); got != "2025-04-26 12:00:05" {
		t.Errorf("pyTime = %q", got)
	}
	cet := time.FixedZone("CET", 3600)
	if got := pyTime(ts, cet); got != "2025-04-26 13:00:05" {
		t.Errorf("pyTime in CET = %q", got)
	}
}

func TestMajorityTiesGoToTheFirstSeen(t *testing.T) {
	if got := majority([]string{"b", "a", "a", "b", "c"}); got != "b" {
		t.Errorf("majority = %q, want b", got)
	}
	if got := majority([]string{"x", "y", "y"}); got != "y" {
		t.Errorf("majority = %q, want y", got)
	}
}

// TestParserKeepsAndDropsRecordsAsLightRAG is docs/graphrag.md §8 case 4: a record
// whose first field is neither "entity" nor "relationship", an entity of 3
// fields, text outside the parentheses, content_keywords and a record
// written over two lines are dropped without failing; an entity named "" is kept (emptiness is checked before
// the quotes go); a relation's quoted strength "7" counts 1.0.
func TestParserKeepsAndDropsRecordsAsLightRAG(t *testing.T) {
	answer := strings.Join([]string{
		`Output: ("entity"<|>"Structure"<|>"category"<|>"A crystal structure.")`,
		`("thing"<|>"X"<|>"category"<|>"dropped")`,
		`("entity"<|>"ThreeFields"<|>"category")`,
		`no parentheses here`,
		`("entity"<|>""<|>"category"<|>"empty name kept")`,
		`("entity"<|>"NoDesc"<|>"category"<|>"")`,
		`("entity"<|>"BadType"<|>""<|>"x")`,
		`("relationship"<|>"Structure"<|>"Lattice"<|>"has a lattice"<|>"geometry"<|>"7")`,
		`("relationship"<|>"Structure"<|>"Site"<|>"has sites"<|>"composition"<|>9.5)`,
		`("content_keywords"<|>"crystals")`,
		"(\"relationship\"<|>\"A\"<|>\"B\"<|>\"over\ntwo lines\"<|>\"k\"<|>2)",
	}, "##\n") + "<|COMPLETE|>"
	got := parseAnswer(answer, delims, "chunk-1", "a.py")
	if strings.Join(got.nodes.keys, "|") != "Structure|" {
		t.Errorf("entities %q, want Structure and the empty name", got.nodes.keys)
	}
	e := got.nodes.m["Structure"][0]
	if e.Type != "category" || e.Description != "A crystal structure." || e.SourceID != "chunk-1" || e.FilePath != "a.py" {
		t.Errorf("Structure = %+v", e)
	}
	if got.edges.len() != 2 {
		t.Fatalf("relations %v", got.edges.keys)
	}
	if w := got.edges.m[pair{"Structure", "Lattice"}][0].Weight; w != 1.0 {
		t.Errorf("quoted strength gave weight %v, want 1.0", w)
	}
	r := got.edges.m[pair{"Structure", "Site"}][0]
	if r.Weight != 9.5 || r.Keywords != "composition" || r.Description != "has sites" {
		t.Errorf("Structure–Site = %+v", r)
	}
}

func TestChunkWindowsByHand(t *testing.T) {
	// 25 characters, windows of 10 every 8 (overlap 2): starts 0, 8, 16, 24.
	text := "abcdefghijklmnopqrstuvwxy"
	got := chunkWindows(Chars(), text, 10, 2)
	want := []struct {
		content string
		tokens  int
	}{{"abcdefghij", 10}, {"ijklmnopqr", 10}, {"qrstuvwxy", 9}, {"y", 1}}
	if len(got) != len(want) {
		t.Fatalf("%d windows, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		if got[i].Content != w.content || got[i].Tokens != w.tokens || got[i].OrderIndex != i {
			t.Errorf("window %d = %+v, want %q (%d tokens)", i, got[i], w.content, w.tokens)
		}
	}
	// Each window is stripped; an all-space window becomes "".
	got = chunkWindows(Chars(), "ab  \n   ", 4, 0)
	if len(got) != 2 || got[0].Content != "ab" || got[1].Content != "" {
		t.Errorf("stripped windows %+v", got)
	}
}

func TestTruncateKeepsTheLongestPrefixWithinTheBudget(t *testing.T) {
	items := []string{"aaa", "bb", "cccc", "d"}
	id := func(s string) string { return s }
	check := func(max int, want string) {
		t.Helper()
		if got := strings.Join(truncate(Chars(), items, id, max), ","); got != want {
			t.Errorf("truncate(max %d) = %q, want %q", max, got, want)
		}
	}
	check(5, "aaa,bb")          // 3+2 = 5 ≤ 5; +4 = 9 > 5
	check(4, "aaa")             // 3 ≤ 4; 5 > 4
	check(2, "")                // 3 > 2
	check(0, "")                // LightRAG returns [] for max ≤ 0
	check(100, "aaa,bb,cccc,d") // all 10
}

func TestCombineContextsIsProcessCombineContexts(t *testing.T) {
	hdr := []string{"id", "entity", "created_at"}
	hl := [][]string{hdr, {"0", "A", "Unknown"}, {"1", "B", "Unknown"}}
	ll := [][]string{hdr, {"0", "A", "UNKNOWN"}, {"1", "B", "Unknown"}, {"2", "C, \"x\"", "UNKNOWN"}}
	// Rows lose their id, fields are joined by a bare ","; "B,Unknown" is
	// a duplicate; A's two rows differ in created_at and both stay.
	want := "id,\tentity,\tcreated_at\n1,\tA,Unknown\n2,\tB,Unknown\n3,\tA,UNKNOWN\n4,\tC, \"x\",UNKNOWN"
	if got := combineContexts(hl, ll); got != want {
		t.Errorf("combineContexts =\n%q\nwant\n%q", got, want)
	}
	if got := combineContexts(nil, nil); got != "" {
		t.Errorf("two empty tables gave %q", got)
	}
}

func TestVectorStoreQueryOrderThresholdAndTies(t *testing.T) {
	v := newVectorStore()
	v.upsert([]vectorRow{
		{ID: "a", Vector: []float32{1, 0}},
		{ID: "b", Vector: []float32{3, 4}}, // normalised to (0.6, 0.8)
		{ID: "c", Vector: []float32{0, 1}},
		{ID: "d", Vector: []float32{2, 0}}, // same direction as a: a tie
	})
	ids := func(hits []scored) string {
		var s []string
		for _, h := range hits {
			s = append(s, h.row.ID)
		}
		return strings.Join(s, ",")
	}
	// Scores against (1, 0): a 1, b 0.6, c 0, d 1. The tie a/d goes to the
	// later row first (numpy's argsort reversed); c is below 0.2.
	if got := ids(v.query([]float32{1, 0}, 60, 0.2)); got != "d,a,b" {
		t.Errorf("query = %s, want d,a,b", got)
	}
	if got := ids(v.query([]float32{1, 0}, 2, 0.2)); got != "d,a" {
		t.Errorf("top 2 = %s", got)
	}
	// Upserting a known id replaces it in place.
	v.upsert([]vectorRow{{ID: "a", Vector: []float32{0, 5}}})
	if got := ids(v.query([]float32{0, 1}, 60, 0.2)); got != "c,a,b" { // a and c tie: the later row first
		t.Errorf("after upsert = %s, want c,a,b", got)
	}
	if v.rows[0].ID != "a" || v.rows[0].Vector[1] != 1 {
		t.Errorf("row 0 = %+v, want a normalised in place", v.rows[0])
	}
}
