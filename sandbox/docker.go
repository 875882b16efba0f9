package sandbox

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/client"
)

func init() { register("docker", openDocker) }

// The docker backend runs each Spec in a fresh container of Options.Image
// (built from sandbox-env/Dockerfile, which installs the same lock file as
// `make sandbox-env`): no network, a read-only root filesystem, tmpfs /tmp and
// /app, the data bind-mounted read-only, all capabilities dropped,
// no-new-privileges, memory/pids/CPU limits and ulimits, an init process that
// reaps; on timeout the container is killed and always force-removed with its
// volume. The Spec's files go into an anonymous volume at /sbx (a read-only
// root refuses archive uploads anywhere else), and the side
// channel (fd 3) is a file in that volume, read back after exit. Containers
// carry the label LabelKey and are swept at start and at Close.
type docker struct {
	cli      *client.Client
	opts     Options
	limits   Limits
	instance string
	slots    chan struct{}
	version  string
	seccomp  string // DockerSeccompProfile
}

// LabelKey labels every container of the docker backend; its value is the
// Sandbox instance. Open sweeps all containers carrying the key (left by a
// crashed runner), Close those of its instance.
const LabelKey = "mattools.sandbox"

// DefaultImage is the image the docker backend runs when Options.Image is "".
const DefaultImage = "mattools-sandbox:2025-05"

func openDocker(ctx context.Context, o Options) (Sandbox, error) {
	opts := []client.Opt{client.FromEnv}
	if o.DockerHost != "" {
		opts = append(opts, client.WithHost(o.DockerHost))
	}
	cli, err := client.New(opts...)
	if err != nil {
		return nil, fmt.Errorf("%w: docker client: %v", ErrUnavailable, err)
	}
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	ping, err := cli.Ping(pctx, client.PingOptions{})
	if err != nil {
		cli.Close()
		return nil, fmt.Errorf("%w: no Docker engine answers: %v", ErrUnavailable, err)
	}
	b := make([]byte, 8)
	rand.Read(b)
	profile, err := DockerSeccompProfile()
	if err != nil {
		return nil, fmt.Errorf("%w: docker: seccomp profile: %v", ErrUnavailable, err)
	}
	d := &docker{cli: cli, opts: o, limits: o.Limits.merge(DefaultLimits), instance: hex.EncodeToString(b), seccomp: profile,
		version: "docker engine API " + ping.APIVersion}
	if d.opts.Image == "" {
		d.opts.Image = DefaultImage
	}
	if d.opts.Slots <= 0 {
		d.opts.Slots = 2
	}
	d.slots = make(chan struct{}, d.opts.Slots)
	if err := d.sweep(ctx, ""); err != nil {
		cli.Close()
		return nil, fmt.Errorf("docker: sweeping containers labelled %s: %w", LabelKey, err)
	}
	return d, nil
}

// sweep force-removes containers labelled LabelKey (=instance when given).
func (d *docker) sweep(ctx context.Context, instance string) error {
	label := LabelKey
	if instance != "" {
		label += "=" + instance
	}
	list, err := d.cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: make(client.Filters).Add("label", label)})
	if err != nil {
		return err
	}
	var errs []error
	for _, c := range list.Items {
		if _, err := d.cli.ContainerRemove(ctx, c.ID, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true}); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (d *docker) Name() string { return "docker" }

func (d *docker) Info() Info {
	lim := limitsText(d.limits)
	lim["image"] = d.opts.Image
	lim["memory"] = fmt.Sprint(d.limits.Memory)
	lim["nano_cpus"] = fmt.Sprint(d.limits.NanoCPUs)
	lim["mode"] = "cold: a fresh container per execution (the docker backend has no warm workers)"
	return Info{Backend: "docker", Version: d.version, TimeoutSeconds: d.limits.Wall.Seconds(), Limits: lim, Slots: d.opts.Slots}
}

// Check pings the engine.
func (d *docker) Check(ctx context.Context) error {
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, err := d.cli.Ping(pctx, client.PingOptions{})
	return err
}

func (d *docker) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := d.sweep(ctx, d.instance)
	return errors.Join(err, d.cli.Close())
}

// createOptions is the container of one Spec (exported to tests through
// the fake engine, which asserts the JSON the client sends).
func (d *docker) createOptions(s Spec, lim Limits) client.ContainerCreateOptions {
	env := append(baseEnv(""), s.Env...)
	cmd := append([]string{"/bin/sh", "-c", `exec 3>/sbx/out/side; exec "$@"`, "sh"}, seededArgv(s.Argv)...)
	pids := int64(lim.PidsCgroup)
	hc := &container.HostConfig{
		NetworkMode:    "none",
		ReadonlyRootfs: true,
		Tmpfs: map[string]string{
			"/tmp": fmt.Sprintf("rw,nosuid,nodev,size=%d", lim.TmpBytes),
			"/app": fmt.Sprintf("rw,nosuid,nodev,size=%d,mode=1777", lim.WorkBytes),
		},
		Mounts:      []mount.Mount{{Type: mount.TypeVolume, Target: "/sbx"}},
		CapDrop:     []string{"ALL"},
		SecurityOpt: []string{"no-new-privileges", "seccomp=" + d.seccomp},
		Init:        ptrTo(true),
		Resources: container.Resources{
			Memory: lim.Memory, MemorySwap: lim.Memory, PidsLimit: &pids, NanoCPUs: lim.NanoCPUs,
			Ulimits: []*container.Ulimit{
				{Name: "nofile", Soft: int64(lim.NoFile), Hard: int64(lim.NoFile)},
				{Name: "fsize", Soft: lim.FileSize, Hard: lim.FileSize},
				{Name: "core", Soft: 0, Hard: 0},
			},
		},
		LogConfig: container.LogConfig{Type: "json-file", Config: map[string]string{"max-size": fmt.Sprint(lim.StdoutBytes + lim.StderrBytes)}},
	}
	if s.DataDir != "" {
		hc.Mounts = append(hc.Mounts, mount.Mount{Type: mount.TypeBind, Source: s.DataDir, Target: "/app/tool_source_code", ReadOnly: true})
	}
	return client.ContainerCreateOptions{
		Config: &container.Config{
			Image: d.opts.Image, Cmd: cmd, User: "65534:65534", WorkingDir: "/app", Env: env,
			NetworkDisabled: true, Labels: map[string]string{LabelKey: d.instance},
		},
		HostConfig: hc,
	}
}

func ptrTo[T any](v T) *T { return &v }

func (d *docker) Run(ctx context.Context, s Spec) (res *Result, err error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	if s.DataFiles != nil && s.DataDir != "" {
		// The task's own copy of its data files (Spec.DataFiles), bound instead of DataDir.
		dir, err := os.MkdirTemp("", "mattools-docker-data-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		if _, err := copyDataFiles(s.DataDir, s.DataFiles, filepath.Join(dir, "data")); err != nil {
			return nil, err
		}
		os.Chmod(dir, 0o755)
		s.DataDir = filepath.Join(dir, "data")
	}
	select {
	case d.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-d.slots }()
	lim := s.Limits.merge(d.limits)

	cr, err := d.cli.ContainerCreate(ctx, d.createOptions(s, lim))
	if err != nil {
		return nil, fmt.Errorf("docker: creating the container: %w", err)
	}
	defer func() {
		// Always remove, with a fresh context: the run's may be done.
		rctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, rerr := d.cli.ContainerRemove(rctx, cr.ID, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true}); rerr != nil && err == nil {
			res, err = nil, fmt.Errorf("docker: removing container %s: %w", cr.ID, rerr)
		}
	}()

	var tarBuf bytes.Buffer
	tw := tar.NewWriter(&tarBuf)
	now := time.Now()
	tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: "out/", Mode: 0o777, ModTime: now})
	for name, data := range s.Files {
		if name == "" || strings.ContainsAny(name, "/\x00") || name == "." || name == ".." {
			return nil, fmt.Errorf("sandbox: bad file name %q", name)
		}
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(data)), ModTime: now})
		tw.Write(data)
	}
	tw.Close()
	if _, err := d.cli.CopyToContainer(ctx, cr.ID, client.CopyToContainerOptions{DestinationPath: "/sbx", Content: &tarBuf}); err != nil {
		return nil, fmt.Errorf("docker: copying files: %w", err)
	}
	if len(s.Stdin) > 0 {
		return nil, errors.New("docker: Spec.Stdin is not supported by the docker backend")
	}
	start := time.Now()
	wctx, cancel := context.WithTimeout(ctx, lim.Wall)
	defer cancel()
	wait := d.cli.ContainerWait(wctx, cr.ID, client.ContainerWaitOptions{Condition: container.WaitConditionNextExit})
	if _, err := d.cli.ContainerStart(ctx, cr.ID, client.ContainerStartOptions{}); err != nil {
		return nil, fmt.Errorf("docker: starting: %w", err)
	}
	res = &Result{}
	select {
	case w := <-wait.Result:
		res.ExitCode = int(w.StatusCode)
	case werr := <-wait.Error:
		if ctx.Err() != nil {
			d.kill(cr.ID)
			return nil, ctx.Err()
		}
		if !errors.Is(werr, context.DeadlineExceeded) && wctx.Err() == nil {
			return nil, fmt.Errorf("docker: waiting: %w", werr)
		}
		res.TimedOut, res.ExitCode, res.Signal = true, -1, "killed"
		if err := d.kill(cr.ID); err != nil {
			return nil, fmt.Errorf("docker: killing after timeout: %w", err)
		}
	}
	res.Duration = time.Since(start)
	if res.ExitCode > 128 && res.ExitCode < 128+65 {
		res.Signal = signalName(syscall.Signal(res.ExitCode - 128))
	}

	lctx, lcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer lcancel()
	logs, err := d.cli.ContainerLogs(lctx, cr.ID, client.ContainerLogsOptions{ShowStdout: true, ShowStderr: true})
	if err != nil {
		return nil, fmt.Errorf("docker: logs: %w", err)
	}
	stdout, stderr := &capWriter{max: lim.StdoutBytes}, &capWriter{max: lim.StderrBytes}
	_, err = stdcopy.StdCopy(stdout, stderr, logs)
	logs.Close()
	if err != nil {
		return nil, fmt.Errorf("docker: reading logs: %w", err)
	}
	res.Stdout, res.Stderr, res.StdoutDropped, res.StderrDropped = nonNil(stdout.buf), nonNil(stderr.buf), stdout.dropped, stderr.dropped

	side := &capWriter{max: lim.ResultBytes}
	if cp, err := d.cli.CopyFromContainer(lctx, cr.ID, client.CopyFromContainerOptions{SourcePath: "/sbx/out/side"}); err == nil {
		tr := tar.NewReader(cp.Content)
		for {
			h, err := tr.Next()
			if err != nil {
				break
			}
			if h.Typeflag == tar.TypeReg && path.Base(h.Name) == "side" {
				io.Copy(side, tr)
			}
		}
		cp.Content.Close()
	}
	res.Side, res.SideDropped = side.buf, side.dropped
	return res, nil
}

func (d *docker) kill(id string) error {
	kctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := d.cli.ContainerKill(kctx, id, client.ContainerKillOptions{Signal: "KILL"})
	return err
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}
