package sandbox_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/mattools-leaderboard/leaderboard/sandbox"
)

// keyringEnv names the secret the helper process finds in its session
// keyring (set only for the re-executed test binary).
const keyringEnv = "MATTOOLS_KEYRING_SECRET"

// joinAndExec is run by /usr/bin/python3: a new session keyring holding the
// secret (description "mattools-secret"), checked readable, then the test
// binary re-executed in it. A runner started from a pam_keyinit login or a
// systemd service sits in such a keyring.
const joinAndExec = `import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
secret = os.environ["` + keyringEnv + `"].encode()
if libc.syscall(250, 1, b"mattools-keyring-test") < 0:  # keyctl(JOIN_SESSION_KEYRING)
    sys.exit("join: errno %d" % ctypes.get_errno())
key = libc.syscall(248, b"user", b"mattools-secret", secret, len(secret), -3)  # add_key(..., KEY_SPEC_SESSION_KEYRING)
if key < 0:
    sys.exit("add_key: errno %d" % ctypes.get_errno())
os.execv(sys.argv[1], sys.argv[1:])
`

// TestRunnerKeyringSecretUnreadable plants a secret in the session keyring
// of a process that runs the sandbox (the kernel keyrings are not
// namespaced), checks that the process itself reads it, and that sandboxed
// code, warm and cold, can neither find nor read it nor add a key.
func TestRunnerKeyringSecretUnreadable(t *testing.T) {
	if os.Getenv(keyringEnv) != "" {
		keyringHelper(t)
		return
	}
	sandbox.InBothModes(t)
	b := make([]byte, 12)
	rand.Read(b)
	secret := "mattools-keyring-" + hex.EncodeToString(b)
	cmd := exec.Command("/usr/bin/python3", "-c", joinAndExec, os.Args[0], "-test.run=^TestRunnerKeyringSecretUnreadable$", "-test.v")
	cmd.Env = append(os.Environ(), keyringEnv+"="+secret)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the helper in a session keyring failed: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--- PASS: TestRunnerKeyringSecretUnreadable") || strings.Contains(string(out), "SKIP") {
		t.Fatalf("the helper did not pass:\n%s", out)
	}
}

func keyringHelper(t *testing.T) {
	secret := os.Getenv(keyringEnv)
	// The control: this process reads the key (keyctl SEARCH in the session
	// keyring, then READ).
	desc := append([]byte("mattools-secret"), 0)
	typ := append([]byte("user"), 0)
	id, _, e := syscall.Syscall6(syscall.SYS_KEYCTL, 10 /* KEYCTL_SEARCH */, ^uintptr(2) /* -3: session */, uintptr(unsafe.Pointer(&typ[0])),
		uintptr(unsafe.Pointer(&desc[0])), 0, 0)
	if e != 0 {
		t.Fatalf("the runner's own session keyring holds no secret: keyctl SEARCH: %v", e)
	}
	buf := make([]byte, 256)
	n, _, e := syscall.Syscall6(syscall.SYS_KEYCTL, 11 /* KEYCTL_READ */, id, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), 0, 0)
	if e != 0 || string(buf[:n]) != secret {
		t.Fatalf("the runner cannot read its own key: %v %q", e, buf[:n])
	}
	probe := `import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def call(name, *args):
    ctypes.set_errno(0)
    r = libc.syscall(*args)
    print(name, r, ctypes.get_errno())
    return r
key = call("search", 250, 10, -3, b"user", b"mattools-secret", 0)
buf = ctypes.create_string_buffer(256)
if key > 0:
    call("read-key", 250, 11, key, buf, 256)
    print("key", buf.raw.rstrip(b"\0").decode(errors="replace"))
call("read-session", 250, 11, -3, buf, 256)
print("data", buf.raw.rstrip(b"\0"))
call("add", 248, b"user", b"planted", b"x", 1, -3)
`
	for _, cold := range []bool{false, true} {
		sb, err := sandbox.Open(context.Background(), "local", sandbox.Options{Slots: 1, Cold: cold})
		if err != nil {
			t.Fatalf("sandbox: %v", err)
		}
		res, err := sb.Run(context.Background(), sandbox.Spec{Files: map[string][]byte{"p.py": []byte(probe)}, Argv: []string{"python3", "-I", "/sbx/p.py"}})
		sb.Close()
		if err != nil {
			t.Fatal(err)
		}
		out := string(res.Stdout) + string(res.Stderr) + string(res.Side)
		for _, want := range []string{"search -1 1\n", "read-session -1 1\n", "add -1 1\n"} {
			if !strings.Contains(out, want) {
				t.Errorf("cold=%v: want %q (EPERM) in %q", cold, want, out)
			}
		}
		if strings.Contains(out, secret) {
			t.Errorf("cold=%v: the sandboxed code read the runner's secret: %q", cold, out)
		}
	}
	// No key was planted in the runner's keyring by the code.
	pl := append([]byte("planted"), 0)
	if _, _, e := syscall.Syscall6(syscall.SYS_KEYCTL, 10, ^uintptr(2), uintptr(unsafe.Pointer(&typ[0])), uintptr(unsafe.Pointer(&pl[0])), 0, 0); e == 0 {
		t.Errorf("a key planted by sandboxed code is in the runner's session keyring")
	}
}
