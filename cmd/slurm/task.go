package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// task runs one array task: its shard (and model) from $SLURM_ARRAY_TASK_ID
// (or -index), the model's server when -server-cmd is set, then the command,
// and stops the server. sigs delivers SIGINT/SIGTERM: the first stops the
// server's start-up or is passed on, once, to the running command (which
// journals what it finished and exits 130); later ones are ignored.
func task(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string, sigs <-chan os.Signal) int {
	fs := flag.NewFlagSet("slurm task", flag.ContinueOnError)
	fs.SetOutput(stderr)
	command := fs.String("command", cmdRun, "run-benchmark, rescore or validate-submission")
	bin := fs.String("bin", "", "the programs' folder")
	out := fs.String("out", "", "the work folder")
	shards := fs.Int("shards", 0, "shards per model (run-benchmark) or in all")
	models := fs.String("models", "", "run-benchmark: the task groups' models, comma-separated (task t: model t / shards)")
	planPath := fs.String("plan", "", "run-benchmark: the plan")
	data := fs.String("data", "", "run-benchmark: the data root")
	serverCmd := fs.String("server-cmd", "", "the model server to start ({model}, {port} replaced)")
	serverTimeout := fs.Duration("server-timeout", 30*time.Minute, "how long to wait for the server to list the model")
	stopTimeout := fs.Duration("stop-timeout", 30*time.Second, "how long the server has to exit after SIGTERM before SIGKILL")
	index := fs.Int("index", -1, "the task index (default $SLURM_ARRAY_TASK_ID)")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	r := &record{Command: *command, Out: *out, Shards: *shards, Bin: *bin}
	if *models != "" {
		r.Models = strings.Split(*models, ",")
	}
	t := *index
	if t < 0 {
		var err error
		if t, err = strconv.Atoi(getenv("SLURM_ARRAY_TASK_ID")); err != nil {
			fmt.Fprintln(stderr, "slurm task: not an array task: $SLURM_ARRAY_TASK_ID is unset (give -index)")
			return exitUsage
		}
	}
	if *shards < 1 || *out == "" || *bin == "" || t < 0 || t >= r.tasks() {
		fmt.Fprintf(stderr, "slurm task: task %d of %d (-shards %d, -out %q, -bin %q): want 0 ≤ index < tasks\n", t, r.tasks(), *shards, *out, *bin)
		return exitUsage
	}
	model, shard := r.taskOf(t)
	dir := r.taskDir(t)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(stderr, "slurm task:", err)
		return exitFailed
	}
	what := fmt.Sprintf("task %d: shard %d/%d", t, shard, r.Shards)
	if model != "" {
		what += " of model " + model
	}
	host, _ := os.Hostname()
	fmt.Fprintf(stderr, "slurm task: %s on %s (job %s, restart %s), output %s\n", what, host, getenv("SLURM_JOB_ID"), envOr(getenv("SLURM_RESTART_COUNT"), "0"), dir)

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var child *exec.Cmd
	childStarted := make(chan *exec.Cmd, 1)
	go func() {
		s, ok := <-sigs
		if !ok {
			return
		}
		cancel(fmt.Errorf("received %v", s))
		select {
		case c := <-childStarted:
			if c != nil {
				c.Process.Signal(syscall.SIGTERM) // once; the runner ignores a TERM again
			}
		default:
		}
		for range sigs { // later signals: already stopping
		}
	}()

	var baseURL string
	if *serverCmd != "" {
		srv, err := startServer(ctx, *serverCmd, model, dir, *serverTimeout, stderr)
		if srv != nil {
			defer srv.stop(*stopTimeout, stderr)
		}
		if err != nil {
			if ctx.Err() != nil {
				fmt.Fprintf(stderr, "slurm task: %s: interrupted (%v) while its server started; nothing was asked\n", what, context.Cause(ctx))
				return exitInterrupted
			}
			fmt.Fprintf(stderr, "slurm task: %s failed: %v\n", what, err)
			return exitFailed
		}
		baseURL = srv.url
	}

	var a []string
	switch *command {
	case cmdRun:
		a = []string{"-plan", *planPath, "-data", *data, "-out", dir, "-shard", fmt.Sprintf("%d/%d", shard, r.Shards), "-no-progress"}
		if model != "" {
			a = append(a, "-model", model)
		}
		if baseURL != "" {
			a = append(a, "-base-url", model+"="+baseURL)
		}
	case cmdRescore:
		a = []string{"-shard", fmt.Sprintf("%d/%d", shard, r.Shards), "-out", dir, "-quiet"}
	case cmdValidate:
		a = []string{"-reexecute", "-shard", fmt.Sprintf("%d/%d", shard, r.Shards), "-out", dir, "-quiet"}
	default:
		fmt.Fprintf(stderr, "slurm task: -command %q: want run-benchmark, rescore or validate-submission\n", *command)
		return exitUsage
	}
	extra := fs.Args()
	if *command == cmdValidate {
		// -record is the merge's: validate-submission refuses it with
		// -shard (a shard compares and records nothing).
		extra = withoutFlag(extra, "record")
	}
	a = append(a, extra...)
	child = exec.Command(filepath.Join(*bin, *command), a...)
	child.Stdout, child.Stderr = stdout, stderr
	if ctx.Err() != nil {
		return exitInterrupted
	}
	if err := child.Start(); err != nil {
		fmt.Fprintf(stderr, "slurm task: %s: %v\n", what, err)
		return exitFailed
	}
	childStarted <- child
	if ctx.Err() != nil { // a signal raced the start: pass it on
		child.Process.Signal(syscall.SIGTERM)
	}
	err := child.Wait()
	code := exitOK
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
		if code < 0 {
			code = exitFailed
		}
	case err != nil:
		code = exitFailed
	}
	switch {
	case code == exitOK:
		fmt.Fprintf(stderr, "slurm task: %s done\n", what)
	case ctx.Err() != nil:
		fmt.Fprintf(stderr, "slurm task: %s stopped (%v): its journal keeps every finished question; a requeue or slurm resubmit resumes it\n", what, context.Cause(ctx))
	default:
		fmt.Fprintf(stderr, "slurm task: %s failed: %s exited %d\n", what, *command, code)
	}
	return code
}

func envOr(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// server is a model server a task started.
type server struct {
	cmd    *exec.Cmd
	url    string
	log    string
	exited chan struct{}
	err    error // after exited
}

// startServer starts cmdText ({model} and {port} replaced; /bin/sh, its
// own process group, output appended to dir/server.log) on a free port of
// 127.0.0.1 and waits until it is ready: the process it started is alive,
// a socket of its process group listens on that port, and GET /v1/models
// there lists model. It fails, with the log's last lines, when the server
// exits or is not ready within timeout; the server returned (when not nil)
// must be stopped.
func startServer(ctx context.Context, cmdText, model, dir string, timeout time.Duration, stderr io.Writer) (*server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	logPath := filepath.Join(dir, "server.log")
	logf, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	text := strings.NewReplacer("{model}", model, "{port}", strconv.Itoa(port)).Replace(cmdText)
	fmt.Fprintf(logf, "--- slurm task: starting %s (%s)\n", text, time.Now().UTC().Format(time.RFC3339))
	s := &server{url: fmt.Sprintf("http://127.0.0.1:%d/v1", port), log: logPath, exited: make(chan struct{})}
	s.cmd = exec.Command("/bin/sh", "-c", text)
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	s.cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port), "MODEL="+model)
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the server (%s): %w", text, err)
	}
	go func() { s.err = s.cmd.Wait(); close(s.exited) }()
	fmt.Fprintf(stderr, "slurm task: server pid %d on port %d: %s (log %s)\n", s.cmd.Process.Pid, port, text, logPath)
	start := time.Now()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	client := &http.Client{Timeout: 5 * time.Second}
	for {
		if ok, why := s.ready(client, model, port); ok {
			fmt.Fprintf(stderr, "slurm task: server ready after %.1f s: %s lists %s\n", time.Since(start).Seconds(), s.url, model)
			return s, nil
		} else if why != "" {
			fmt.Fprintf(stderr, "slurm task: server not ready: %s\n", why)
		}
		select {
		case <-s.exited:
			return s, fmt.Errorf("the server exited (%v) before it listed %s on port %d; the end of %s:\n%s", s.err, model, port, logPath, tail(logPath, 20))
		case <-deadline.C:
			return s, fmt.Errorf("the server did not list %s on port %d within %v; the end of %s:\n%s", model, port, timeout, logPath, tail(logPath, 20))
		case <-ctx.Done():
			return s, context.Cause(ctx)
		case <-tick.C:
		}
	}
}

// ready reports whether s serves model on port; why, when not "", says
// what answered instead (a model list without it).
func (s *server) ready(client *http.Client, model string, port int) (ok bool, why string) {
	select {
	case <-s.exited:
		return false, ""
	default:
	}
	resp, err := client.Get(s.url + "/models")
	if err != nil {
		return false, ""
	}
	defer resp.Body.Close()
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&list) != nil {
		return false, ""
	}
	var ids []string
	for _, m := range list.Data {
		ids = append(ids, m.ID)
	}
	if !strings.Contains(","+strings.Join(ids, ",")+",", ","+model+",") {
		return false, fmt.Sprintf("%s/models lists %v, not %s", s.url, ids, model)
	}
	// The answer must come from this task's server, not another process
	// that took the port.
	if owns, known := groupListensOn(s.cmd.Process.Pid, port); known && !owns {
		return false, fmt.Sprintf("port %d is held by a process outside the server's (pid %d) process group", port, s.cmd.Process.Pid)
	}
	return true, ""
}

// stop sends SIGTERM to the server's process group, waits up to grace for
// it to exit, then sends SIGKILL.
func (s *server) stop(grace time.Duration, stderr io.Writer) {
	pgid := s.cmd.Process.Pid
	syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(grace):
		fmt.Fprintf(stderr, "slurm task: the server (pid %d) did not exit within %v of SIGTERM: SIGKILL\n", pgid, grace)
		syscall.Kill(-pgid, syscall.SIGKILL)
		<-s.exited
	}
	syscall.Kill(-pgid, syscall.SIGKILL) // what its children left
	fmt.Fprintf(stderr, "slurm task: server stopped (pid %d)\n", pgid)
}

// freePort returns a TCP port of 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// groupListensOn reports whether a process of process group pgid holds a
// listening TCP socket on port (from /proc/net/tcp{,6} and the processes'
// /proc/PID/fd); known is false where /proc cannot say.
func groupListensOn(pgid, port int) (owns, known bool) {
	inodes := map[string]bool{}
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		known = true
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Scan() // header
		for sc.Scan() {
			fl := strings.Fields(sc.Text())
			if len(fl) < 10 || fl[3] != "0A" { // LISTEN
				continue
			}
			_, hexPort, _ := strings.Cut(fl[1], ":")
			if p, err := strconv.ParseInt(hexPort, 16, 32); err == nil && int(p) == port {
				inodes[fl[9]] = true
			}
		}
	}
	if !known || len(inodes) == 0 {
		return false, known
	}
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return false, false
	}
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		if g, err := syscall.Getpgid(pid); err != nil || g != pgid {
			continue
		}
		fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
		for _, fd := range fds {
			l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
			if err == nil && strings.HasPrefix(l, "socket:[") && inodes[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] {
				return true, true
			}
		}
	}
	return false, true
}

// tail returns the last n lines of the file at path.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(" + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "  " + strings.Join(lines, "\n  ")
}
