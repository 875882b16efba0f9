package sandbox

import (
	"encoding/json"
	"slices"
	"sync"

	"github.com/moby/profiles/seccomp"
	specs "github.com/opencontainers/runtime-spec/specs-go"
)

var (
	dockerProfileOnce sync.Once
	dockerProfile     string
	dockerProfileErr  error
)

// DockerSeccompProfile returns the seccomp profile the Docker backend
// passes (HostConfig.SecurityOpt "seccomp=<profile>"): Docker's own default
// profile (github.com/moby/profiles/seccomp, an allow-list whose default
// action is EPERM) with every call of BaseDenied and UntrustedDenied taken
// out of its allow rules, so that those calls fail with EPERM whatever the
// kernel version or capabilities would let the default allow (ptrace on
// recent kernels, perf_event_open and bpf with capabilities). Passing the
// profile also keeps a daemon configured with seccomp=unconfined from
// running the code unfiltered. The local backend's AF_VSOCK rule has no
// Docker counterpart here (Docker's default allows socket whatever the
// family; a container's vsock access is the daemon's concern).
func DockerSeccompProfile() (string, error) {
	dockerProfileOnce.Do(func() {
		p := seccomp.DefaultProfile()
		denied := append(append([]string{}, BaseDenied...), UntrustedDenied...)
		var kept []*seccomp.Syscall
		for _, sc := range p.Syscalls {
			if sc.Action == specs.ActAllow {
				sc.Names = slices.DeleteFunc(slices.Clone(sc.Names), func(n string) bool { return slices.Contains(denied, n) })
				if len(sc.Names) == 0 {
					continue
				}
			}
			kept = append(kept, sc)
		}
		p.Syscalls = kept
		b, err := json.Marshal(p)
		dockerProfile, dockerProfileErr = string(b), err
	})
	return dockerProfile, dockerProfileErr
}
