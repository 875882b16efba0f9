package sandbox_test

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	mobyseccomp "github.com/moby/profiles/seccomp"
	specs "github.com/opencontainers/runtime-spec/specs-go"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moby/moby/api/pkg/stdcopy"

	"github.com/mattools-leaderboard/leaderboard/sandbox"
)

// fakeEngine is a Docker Engine API served on a unix socket: enough of
// /_ping, /containers/{json,create,archive,start,wait,kill,logs} and DELETE
// for the docker backend, recording every call.
type fakeEngine struct {
	mu        sync.Mutex
	calls     []string          // "METHOD /path?query" without the version prefix
	create    []json.RawMessage // bodies of /containers/create
	uploads   map[string][]byte // container id → tar uploaded to /sbx
	live      map[string]bool   // containers that exist
	hang      bool              // /wait never answers (the timeout path)
	exitCode  int
	stdout    string
	stderr    string
	side      string
	nextID    int
	staleLeft []string // labelled containers present at start
}

var versionPrefix = regexp.MustCompile(`^/v[0-9.]+`)

func (f *fakeEngine) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := versionPrefix.ReplaceAllString(r.URL.Path, "")
	f.mu.Lock()
	f.calls = append(f.calls, r.Method+" "+p+"?"+r.URL.RawQuery)
	f.mu.Unlock()
	w.Header().Set("Api-Version", "1.47")
	seg := strings.Split(strings.Trim(p, "/"), "/")
	switch {
	case p == "/_ping":
		w.Write([]byte("OK"))
	case r.Method == "GET" && p == "/containers/json":
		f.mu.Lock()
		var list []map[string]any
		for _, id := range f.staleLeft {
			list = append(list, map[string]any{"Id": id, "Labels": map[string]string{sandbox.LabelKey: "crashed-runner"}})
		}
		f.mu.Unlock()
		json.NewEncoder(w).Encode(list)
	case r.Method == "POST" && p == "/containers/create":
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.nextID++
		id := "c" + string(rune('0'+f.nextID))
		f.create = append(f.create, body)
		f.live[id] = true
		f.mu.Unlock()
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(map[string]any{"Id": id, "Warnings": []string{}})
	case len(seg) == 3 && seg[2] == "archive" && r.Method == "PUT":
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.uploads[seg[1]] = body
		f.mu.Unlock()
	case len(seg) == 3 && seg[2] == "archive" && r.Method == "GET":
		stat, _ := json.Marshal(map[string]any{"name": "side", "size": len(f.side), "mode": 0o644})
		w.Header().Set("X-Docker-Container-Path-Stat", base64.StdEncoding.EncodeToString(stat))
		tw := tar.NewWriter(w)
		tw.WriteHeader(&tar.Header{Name: "side", Mode: 0o644, Size: int64(len(f.side)), Typeflag: tar.TypeReg})
		tw.Write([]byte(f.side))
		tw.Close()
	case len(seg) == 3 && seg[2] == "start":
		w.WriteHeader(http.StatusNoContent)
	case len(seg) == 3 && seg[2] == "wait":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		if f.hang {
			<-r.Context().Done()
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"StatusCode": f.exitCode})
	case len(seg) == 3 && seg[2] == "kill":
		w.WriteHeader(http.StatusNoContent)
	case len(seg) == 3 && seg[2] == "logs":
		w.Header().Set("Content-Type", "application/vnd.docker.multiplexed-stream")
		frame(w, stdcopy.Stdout, f.stdout)
		frame(w, stdcopy.Stderr, f.stderr)
	case r.Method == "DELETE" && len(seg) == 2:
		f.mu.Lock()
		delete(f.live, seg[1])
		f.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	default:
		http.Error(w, "fake engine: unexpected "+r.Method+" "+p, http.StatusNotFound)
	}
}

// frame writes one frame of the engine's multiplexed log stream.
func frame(w io.Writer, stream stdcopy.StdType, payload string) {
	h := []byte{byte(stream), 0, 0, 0, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(h[4:], uint32(len(payload)))
	w.Write(h)
	w.Write([]byte(payload))
}

func startFakeEngine(t *testing.T, f *fakeEngine) string {
	t.Helper()
	f.uploads, f.live = map[string][]byte{}, map[string]bool{}
	for _, id := range f.staleLeft {
		f.live[id] = true
	}
	sock := filepath.Join(t.TempDir(), "docker.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: f}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "unix://" + sock
}

func (f *fakeEngine) callsMatching(re string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	rx := regexp.MustCompile(re)
	for _, c := range f.calls {
		if rx.MatchString(c) {
			out = append(out, c)
		}
	}
	return out
}

// TestDockerCreateRequestAndResult asserts the exact isolation settings the
// backend asks the engine for, the files it uploads, and how the result
// comes back (logs demultiplexed, side channel from the volume), and that the
// start-up sweep removed a labelled container left by a crashed runner.
func TestDockerCreateRequestAndResult(t *testing.T) {
	f := &fakeEngine{exitCode: 3, stdout: "hi\n", stderr: "warn\n", side: `{"ok":1}`, staleLeft: []string{"stale1"}}
	host := startFakeEngine(t, f)
	sb, err := sandbox.Open(context.Background(), "docker", sandbox.Options{DockerHost: host, Image: "mattools-sandbox:test", Slots: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.callsMatching(`^DELETE /containers/stale1\?.*force=1`); len(got) != 1 {
		t.Errorf("start-up sweep: force-removals of stale1 = %q; want one", got)
	}
	res, err := sb.Run(context.Background(), sandbox.Spec{
		Files: map[string][]byte{"main.py": []byte("print('hi')")}, Argv: []string{"python3", "-I", "/sbx/main.py"},
		DataDir: "/data/tool_source_code", Limits: sandbox.Limits{Wall: 10 * time.Second},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 3 || string(res.Stdout) != "hi\n" || string(res.Stderr) != "warn\n" || string(res.Side) != `{"ok":1}` || res.TimedOut {
		t.Errorf("result = exit %d, stdout %q, stderr %q, side %q, timed out %v", res.ExitCode, res.Stdout, res.Stderr, res.Side, res.TimedOut)
	}
	if len(f.create) != 1 {
		t.Fatalf("%d create requests; want 1", len(f.create))
	}
	var req struct {
		Image, User, WorkingDir string
		Cmd, Env                []string
		NetworkDisabled         bool
		Labels                  map[string]string
		HostConfig              struct {
			NetworkMode    string
			ReadonlyRootfs bool
			Tmpfs          map[string]string
			CapDrop        []string
			SecurityOpt    []string
			Init           *bool
			Memory         int64
			MemorySwap     int64
			NanoCpus       int64
			PidsLimit      *int64
			Ulimits        []struct {
				Name       string
				Soft, Hard int64
			}
			Mounts []struct {
				Type, Source, Target string
				ReadOnly             bool
			}
		}
	}
	if err := json.Unmarshal(f.create[0], &req); err != nil {
		t.Fatal(err)
	}
	hc := req.HostConfig
	check := func(what string, ok bool) {
		t.Helper()
		if !ok {
			t.Errorf("create request: %s is wrong in %s", what, f.create[0])
		}
	}
	check("Image", req.Image == "mattools-sandbox:test")
	check("User 65534:65534", req.User == "65534:65534")
	check("WorkingDir /app", req.WorkingDir == "/app")
	check("NetworkDisabled", req.NetworkDisabled)
	check("NetworkMode none", hc.NetworkMode == "none")
	check("ReadonlyRootfs", hc.ReadonlyRootfs)
	check("CapDrop ALL", len(hc.CapDrop) == 1 && hc.CapDrop[0] == "ALL")
	check("SecurityOpt no-new-privileges and the seccomp profile", len(hc.SecurityOpt) == 2 && hc.SecurityOpt[0] == "no-new-privileges" &&
		checkDockerProfile(t, strings.TrimPrefix(hc.SecurityOpt[1], "seccomp=")))
	check("Init", hc.Init != nil && *hc.Init)
	check("Memory = MemorySwap = 4 GiB", hc.Memory == 4<<30 && hc.MemorySwap == 4<<30)
	check("NanoCpus 1e9", hc.NanoCpus == 1e9)
	check("PidsLimit 64", hc.PidsLimit != nil && *hc.PidsLimit == 64)
	check("Tmpfs /tmp", hc.Tmpfs["/tmp"] == "rw,nosuid,nodev,size=268435456")
	check("Tmpfs /app", hc.Tmpfs["/app"] == "rw,nosuid,nodev,size=268435456,mode=1777")
	check("label", req.Labels[sandbox.LabelKey] != "")
	// -I runs as -s -P, so that PYTHONHASHSEED applies (seededArgv).
	check("Cmd ends with the argv", strings.HasSuffix(strings.Join(req.Cmd, " "), "sh python3 -s -P /sbx/main.py"))
	ul := map[string][2]int64{}
	for _, u := range hc.Ulimits {
		ul[u.Name] = [2]int64{u.Soft, u.Hard}
	}
	check("ulimits", ul["nofile"] == [2]int64{1024, 1024} && ul["fsize"] == [2]int64{64 << 20, 64 << 20} && ul["core"] == [2]int64{0, 0})
	var ro, vol bool
	for _, m := range hc.Mounts {
		ro = ro || (m.Type == "bind" && m.Source == "/data/tool_source_code" && m.Target == "/app/tool_source_code" && m.ReadOnly)
		vol = vol || (m.Type == "volume" && m.Target == "/sbx")
	}
	check("data bind read-only at /app/tool_source_code", ro)
	check("volume at /sbx", vol)
	for _, e := range req.Env {
		if strings.HasPrefix(e, "OPENAI") || strings.HasPrefix(e, "HOME=/root") {
			t.Errorf("runner environment leaked into the container: %s", e)
		}
	}
	// The uploaded tar holds main.py and the side-channel directory.
	names := map[string]int64{}
	tr := tar.NewReader(bytes.NewReader(f.uploads["c1"]))
	for {
		h, err := tr.Next()
		if err != nil {
			break
		}
		names[h.Name] = h.Mode
	}
	if names["main.py"] != 0o644 || names["out/"] != 0o777 {
		t.Errorf("uploaded files %v; want main.py 0644 and out/ 0777", names)
	}
	if got := f.callsMatching(`^DELETE /containers/c1\?.*force=1`); len(got) != 1 {
		t.Errorf("force-removals of c1: %q; want one", got)
	}
	sb.Close()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.live) != 0 {
		t.Errorf("containers left: %v", f.live)
	}
}

// TestDockerTimeoutKillsThenForceRemoves: a container that never exits is
// killed (SIGKILL) when the wall-clock limit expires, then force-removed.
func TestDockerTimeoutKillsThenForceRemoves(t *testing.T) {
	f := &fakeEngine{hang: true}
	host := startFakeEngine(t, f)
	sb, err := sandbox.Open(context.Background(), "docker", sandbox.Options{DockerHost: host, Slots: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	res, err := sb.Run(context.Background(), sandbox.Spec{Argv: []string{"python3", "-c", "while True: pass"}, Limits: sandbox.Limits{Wall: 300 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || res.Signal != "killed" {
		t.Errorf("TimedOut %v, Signal %q; want a timeout and a kill", res.TimedOut, res.Signal)
	}
	kill := f.callsMatching(`^POST /containers/c1/kill\?signal=KILL`)
	rm := f.callsMatching(`^DELETE /containers/c1\?.*force=1`)
	if len(kill) != 1 || len(rm) != 1 {
		t.Fatalf("kill calls %q, remove calls %q; want one of each", kill, rm)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	ki, ri := -1, -1
	for i, c := range f.calls {
		if c == kill[0] {
			ki = i
		}
		if c == rm[0] {
			ri = i
		}
	}
	if ki > ri {
		t.Errorf("calls %q: remove came before kill", f.calls)
	}
	if len(f.live) != 0 {
		t.Errorf("containers left: %v", f.live)
	}
}

// TestDockerNoEngineIsUnavailable: with no engine listening, docker fails
// closed with ErrUnavailable.
func TestDockerNoEngineIsUnavailable(t *testing.T) {
	_, err := sandbox.Open(context.Background(), "docker", sandbox.Options{DockerHost: "unix://" + filepath.Join(t.TempDir(), "none.sock")})
	if err == nil || !strings.Contains(err.Error(), "no Docker engine answers") {
		t.Errorf("err = %v; want no Docker engine answers", err)
	}
}

// checkDockerProfile: the profile the fake engine received is one the
// daemon loads (moby/profiles' LoadProfile, as dockerd parses
// seccomp=<json>), an allow-list whose default action is EPERM, and no
// allow rule names a call of the local backend's two layers.
func checkDockerProfile(t *testing.T, body string) bool {
	t.Helper()
	if body == "" {
		return false
	}
	loaded, err := mobyseccomp.LoadProfile(body, &specs.Spec{Process: &specs.Process{Capabilities: &specs.LinuxCapabilities{}}})
	if err != nil {
		t.Errorf("the daemon would refuse the profile: %v", err)
		return false
	}
	if loaded.DefaultAction != specs.ActErrno {
		t.Errorf("default action %s", loaded.DefaultAction)
		return false
	}
	allowed := map[string]bool{}
	for _, sc := range loaded.Syscalls {
		if sc.Action == specs.ActAllow {
			for _, n := range sc.Names {
				allowed[n] = true
			}
		}
	}
	for _, n := range append(append([]string{}, sandbox.BaseDenied...), sandbox.UntrustedDenied...) {
		if allowed[n] {
			t.Errorf("the Docker profile allows %s", n)
			return false
		}
	}
	return allowed["read"] && allowed["clone"] && allowed["socket"] // the usual calls still run
}
