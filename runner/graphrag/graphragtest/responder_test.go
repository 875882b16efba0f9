package graphragtest

import (
	"slices"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
)

func user(msgs ...string) llmtest.Request {
	r := llmtest.Request{Endpoint: "chat/completions"}
	roles := []string{"user", "assistant"}
	for i, m := range msgs {
		r.Messages = append(r.Messages, llmtest.Message{Role: roles[i%2], Content: m})
	}
	return r
}

const chunk = "import numpy as np\nfrom pymatgen.core import Structure\n\nclass Foo(Bar):\n    def __init__(self, a=\"x\"):\n        pass\n\nasync def go():\n    pass"

func extractionPrompt(text string) string {
	return "---Goal---\nGiven a text document that is ...\nText:\nexample text, not this\n######################\nOutput:\n" +
		"#############################\n---Real Data---\n######################\nEntity_types: [organization]\nText:\n" +
		text + "\n######################\nOutput:"
}

func TestResponder(t *testing.T) {
	ex := user(extractionPrompt(chunk))
	if k := Kind(ex); k != KindExtract {
		t.Fatalf("Kind = %s", k)
	}
	got := Responder(ex).Content
	want := `("entity"<|>"Foo"<|>"category"<|>"Python class Foo, definition 1 of this text, line 4: class Foo(Bar):")##
("entity"<|>"__init__"<|>"event"<|>"Python function __init__, definition 2 of this text, line 5: def __init__(self, a="x"):")##
("entity"<|>"go"<|>"event"<|>"Python function go, definition 3 of this text, line 8: async def go():")##
("relationship"<|>"Foo"<|>"__init__"<|>"Foo is defined before __init__."<|>"code order, definition"<|>` + Strength("Foo", "__init__") + `)##
("relationship"<|>"__init__"<|>"go"<|>"__init__ is defined before go."<|>"code order, definition"<|>` + Strength("__init__", "go") + `)##
("content_keywords"<|>"python code, definitions")<|COMPLETE|>`
	if got != want {
		t.Errorf("extraction reply:\n%s\nwant\n%s", got, want)
	}

	gl := user(extractionPrompt(chunk), got, "MANY entities and relationships were missed in the last extraction.\n...")
	if k := Kind(gl); k != KindGlean {
		t.Fatalf("Kind = %s", k)
	}
	g := Responder(gl).Content
	for _, s := range []string{`("entity"<|>"numpy"<|>"organization"`, `("entity"<|>"Foo"<|>"category"<|>"Gleaned again`, `("relationship"<|>"Foo"<|>"numpy"`} {
		if !strings.Contains(g, s) {
			t.Errorf("gleaning reply lacks %s:\n%s", s, g)
		}
	}
	if g := Responder(user(extractionPrompt("x = 1"), "<|COMPLETE|>", "MANY entities and relationships were missed in the last extraction.")).Content; g != "<|COMPLETE|>" {
		t.Errorf("gleaning without imports: %q", g)
	}

	sum := user("You are a helpful assistant responsible for generating a comprehensive summary of the data provided below.\n#######\n---Data---\nEntities: __init__\nDescription List: ['a', 'b']\n#######\nOutput:\n")
	if r := Responder(sum).Content; r != "__init__ is summarised here by the fake LLM." {
		t.Errorf("summary: %q", r)
	}
	kw := user("---Role---\n...\nCurrent Query: How does DefectEntry call get_freysoldt_correction for charged defects?\n######################\nThe `Output` ...")
	if r := Responder(kw).Content; r != `{"high_level_keywords":["charged","defects"],"low_level_keywords":["DefectEntry","get_freysoldt_correction"]}` {
		t.Errorf("keywords: %s", r)
	}
	ans := llmtest.Request{Endpoint: "chat/completions", Messages: []llmtest.Message{
		{Role: "system", Content: "---Role---\n\nYou are a helpful assistant responding to user query about Document Chunks provided below.\n"},
		{Role: "user", Content: "Why?"}}}
	if r := Responder(ans).Content; r != "Fake answer-naive answer to: Why?" {
		t.Errorf("answer: %q", r)
	}
	echo := llmtest.Request{Endpoint: "chat/completions", Messages: []llmtest.Message{ans.Messages[0], {Role: "user", Content: "Why " + EchoTag + "?"}}}
	if r := Responder(echo).Content; r != ans.Messages[0].Content+` \u00e9cho user model <system>Why [echo]?</system> done` {
		t.Errorf("echo answer: %q", r)
	}
	if k := Kind(user("hello")); k != KindUnknown {
		t.Errorf("Kind(hello) = %s", k)
	}
}

func TestKeywordsFallback(t *testing.T) {
	hl, ll := Keywords("what are vacancies?")
	if !slices.Equal(hl, []string{"vacancies"}) || !slices.Equal(ll, []string{"vacancies"}) {
		t.Errorf("Keywords = %q, %q", hl, ll)
	}
}
