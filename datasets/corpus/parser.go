package corpus

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
)

// ParserEnv is the whole environment of the Python parsers (RunParser):
// nothing of the caller's (API keys included), only a fixed PATH and a
// UTF-8 locale.
var ParserEnv = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LC_ALL=C.UTF-8", "PYTHONIOENCODING=utf-8"}

// RunParser runs script with python -I (isolated: no user site, no
// PYTHON* variables) and the environment ParserEnv, feeds it in as JSON on
// stdin and decodes its stdout, JSON, into out. The scripts parse trusted
// upstream source with the ast module and never execute it. Errors name
// python and carry the script's stderr; who says which parser (e.g.
// "corpus", "docgen").
func RunParser(who, python, script string, in, out any) error {
	data, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("%s: encoding the input of the Python parser %s: %w", who, python, err)
	}
	cmd := exec.Command(python, "-I", "-c", script)
	cmd.Env = ParserEnv
	cmd.Stdin = bytes.NewReader(data)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: running the Python parser %s: %w: %s", who, python, err, strings.TrimSpace(stderr.String()))
	}
	if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
		return fmt.Errorf("%s: reading the output of the Python parser %s: %w", who, python, err)
	}
	return nil
}
