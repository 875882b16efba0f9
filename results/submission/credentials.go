package submission

import (
	"reflect"
	"regexp"
)

// credentialPatterns are the shapes of API keys and other secrets that must
// never reach a submission (and so the site): provider API keys, cloud and
// forge tokens, private keys, and URLs or headers carrying credentials. A
// match is reported by kind, never echoed.
var credentialPatterns = []struct {
	kind string
	re   *regexp.Regexp
}{
	{"OpenAI-style API key (sk-…)", regexp.MustCompile(`\bsk-(?:proj-|svcacct-|admin-|ant-(?:api\d\d-)?)?[A-Za-z0-9_-]{20,}`)},
	{"AWS access key id", regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`)},
	{"GitHub token", regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})`)},
	{"Google API key", regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`)},
	{"Hugging Face token", regexp.MustCompile(`\bhf_[A-Za-z0-9]{30,}`)},
	{"Slack token", regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}`)},
	{"Groq/Replicate/Together-style key", regexp.MustCompile(`\b(?:gsk_|r8_|tgp_v1_)[A-Za-z0-9_-]{30,}`)},
	{"private key", regexp.MustCompile(`-----BEGIN (?:[A-Z ]+ )?PRIVATE KEY-----`)},
	{"bearer token", regexp.MustCompile(`(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{20,}`)},
	{"JSON Web Token", regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}`)},
	{"credentials in a URL", regexp.MustCompile(`\b[a-z][a-z0-9+.-]*://[^\s/:@"']+:[^\s/@"']+@`)},
	// A literal assigned to a name ending in api_key, token, secret or
	// password (MISTRAL_API_KEY = "…", {"api_key": "…"}, environ["X_TOKEN"] = "…").
	{"API key assignment", regexp.MustCompile(`(?i)(?:api[_-]?key|access[_-]?key|token|secret(?:[_-]?key)?|password)["']?\s*\]?\s*[:=]\s*[bru]?["'][A-Za-z0-9_\-./+=]{16,}["']`)},
}

// FindCredential returns the kind of the first credential-shaped string in
// s, or "" when there is none.
func FindCredential(s string) string {
	for _, p := range credentialPatterns {
		if p.re.MatchString(s) {
			return p.kind
		}
	}
	return ""
}

// scanStrings calls found(field, kind) for every string reachable from v
// (structs by their parquet or json field name, pointers, slices, maps)
// that holds a credential.
func scanStrings(v reflect.Value, field string, found func(field, kind string)) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			scanStrings(v.Elem(), field, found)
		}
	case reflect.String:
		if k := FindCredential(v.String()); k != "" {
			found(field, k)
		}
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			if !t.Field(i).IsExported() {
				continue
			}
			scanStrings(v.Field(i), join(field, fieldName(t.Field(i))), found)
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			scanStrings(v.Index(i), field, found)
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			key := field
			if it.Key().Kind() == reflect.String {
				key = join(field, it.Key().String())
				if k := FindCredential(it.Key().String()); k != "" {
					found(key, k)
				}
			}
			scanStrings(it.Value(), key, found)
		}
	}
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

// fieldName is a struct field's name as the file spells it: its parquet
// column or JSON field name, else the Go name.
func fieldName(f reflect.StructField) string {
	for _, tag := range []string{"parquet", "json", "toml"} {
		if v, ok := f.Tag.Lookup(tag); ok {
			name := v
			for i := 0; i < len(v); i++ {
				if v[i] == ',' {
					name = v[:i]
					break
				}
			}
			if name != "" && name != "-" {
				return name
			}
		}
	}
	return f.Name
}
