package sandbox

import (
	"flag"
	"os"
	"regexp"
	"strings"
	"testing"
)

// BothModesEnv marks the children of TestSameChecksBothModes (bothmodes_test.go)
// with the mode they run in.
const BothModesEnv = "MATTOOLS_SANDBOX_MODE_CHILD"

// InBothModes skips t as root when TestSameChecksBothModes runs in this
// test process (its name matches -test.run): the harness runs t in a child
// as root and in a child as an unprivileged uid instead. Run alone (go test
// -run TestWarmMatchesCold), or as another uid, t runs here.
func InBothModes(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 || os.Getenv(BothModesEnv) != "" {
		return
	}
	pattern := ""
	if f := flag.Lookup("test.run"); f != nil {
		pattern, _, _ = strings.Cut(f.Value.String(), "/")
	}
	if re, err := regexp.Compile(pattern); err == nil && re.MatchString("TestSameChecksBothModes") {
		t.Skip("run as root and as an unprivileged uid by TestSameChecksBothModes")
	}
}
