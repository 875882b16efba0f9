package submission

import (
	"reflect"
	"strings"
	"testing"
)

// TestFindCredential: the key shapes providers issue are found (built here
// from their documented prefixes and lengths), and the look-alikes that
// generated pymatgen code and model answers are full of are not.
func TestFindCredential(t *testing.T) {
	long := strings.Repeat("aB3x", 12)
	found := map[string]string{
		"sk-" + long:                                                "OpenAI-style",
		"key = 'sk-proj-" + long + "'":                              "OpenAI-style",
		"sk-ant-api03-" + long:                                      "OpenAI-style",
		"AKIA" + strings.Repeat("Q", 16):                            "AWS",
		"ghp_" + strings.Repeat("a1", 18):                           "GitHub",
		"github_pat_" + strings.Repeat("A_", 21):                    "GitHub",
		"AIza" + strings.Repeat("x", 35):                            "Google",
		"hf_" + strings.Repeat("Z9", 16):                            "Hugging Face",
		"xoxb-1234567890-abcdef":                                    "Slack",
		"-----BEGIN OPENSSH PRIVATE KEY-----":                       "private key",
		"Authorization: Bearer " + long:                             "bearer",
		"https://user:hunter2@api.example.org/v1":                   "credentials in a URL",
		`{"api_key": "` + long + `"}`:                               "API key assignment",
		"client = OpenAI(api_key='" + long + "')":                   "API key assignment",
		"gsk_" + long:                                               "Groq",
		"OPENAI_API_KEY=sk-" + long + " python run_harness.py":      "OpenAI-style",
		`os.environ["MISTRAL_API_KEY"] = "Zx81` + long + `"`:        "API key assignment",
		`AZURE_OPENAI_API_KEY = "` + strings.Repeat("0f", 16) + `"`: "API key assignment",
		`headers = {"Authorization": "Bearer eyJ` + long + `"}`:     "bearer",
		"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U": "JSON Web Token",
	}
	for s, kind := range found {
		if got := FindCredential(s); !strings.Contains(got, kind) {
			t.Errorf("FindCredential(%q) = %q, want a %s", s, got, kind)
		}
	}
	for _, s := range []string{
		"from pymatgen.analysis.defects.core import Vacancy",
		"task-specific skill: sk-learn is not a key",
		"api_key = os.environ['OPENAI_API_KEY']",
		"https://api.openai.com/v1",
		"mask = np.array([...]) # desk-top",
		"ratio: 0.5, api_key: None",
		"Authorization: Bearer $TOKEN",
		"token = tokenizer(text)",
		"max_tokens = 1000",
		`sort_key = "properties_passed"`,
		"the bearer of the charge state",
	} {
		if got := FindCredential(s); got != "" {
			t.Errorf("FindCredential(%q) = %q, want none", s, got)
		}
	}
}

// TestScanStringsNamesTheField: a credential anywhere in a nested value is
// reported under its file field name.
func TestScanStringsNamesTheField(t *testing.T) {
	type inner struct {
		Endpoint string `json:"endpoint"`
	}
	type row struct {
		Code   string            `parquet:"code"`
		Nested *inner            `json:"nested"`
		Extra  map[string]string `json:"extra"`
		List   []string          `parquet:"failed_properties,list"`
	}
	v := row{Code: "x = 1", Nested: &inner{Endpoint: "https://a:b@host/"}, Extra: map[string]string{"k": "sk-" + strings.Repeat("q", 30)},
		List: []string{"ok", "ghp_" + strings.Repeat("b", 36)}}
	var got []string
	scanStrings(reflect.ValueOf(&v), "", func(field, kind string) { got = append(got, field) })
	want := map[string]bool{"nested.endpoint": true, "extra.k": true, "failed_properties": true}
	if len(got) != len(want) {
		t.Fatalf("found in %v, want %v", got, want)
	}
	for _, f := range got {
		if !want[f] {
			t.Errorf("found in %q, want one of %v", f, want)
		}
	}
}
