package sandbox

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sync"
	"syscall"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
)

// The local backend's seccomp filters, in two layers (the warm
// workers install the second one themselves, after their
// trusted set-up). Both are deny-lists over an allowed default, assembled
// by github.com/elastic/go-seccomp-bpf, so that the Python stack runs as
// it does without them; a system call of another architecture's ABI (i386
// through int 0x80, x32) fails with ENOSYS, so the lists cannot be
// bypassed by number.
//
// BaseDenied applies to everything in the sandbox; a denied call fails
// with EPERM. The reasons:
//   - keyctl, add_key, request_key: the kernel keyrings are not namespaced:
//     a session keyring inherited from the runner (pam_keyinit logins,
//     systemd services, container runtimes) would let code read its
//     secrets or plant a key a later task reads;
//   - ptrace, process_vm_readv, process_vm_writev, kcmp: reading or
//     steering another process through those calls (the sandbox's own
//     processes stay reachable through /proc/<pid>/mem, which seccomp
//     cannot filter by path; they are all the task's own);
//   - bpf, perf_event_open, userfaultfd, io_uring_setup, io_uring_enter,
//     io_uring_register: large kernel attack surface no benchmark code
//     needs (userfaultfd and io_uring are the usual exploit primitives);
//   - init_module, finit_module, delete_module, kexec_load,
//     kexec_file_load, reboot, swapon, swapoff, acct, quotactl,
//     open_by_handle_at, name_to_handle_at, lookup_dcookie: host
//     administration, and the classic file-handle escape;
//   - socket(AF_VSOCK, …): vsock is not network-namespaced, so on a VM
//     host it would reach the host's services.
//
// UntrustedDenied is stacked on top for the process that runs untrusted
// code, after the sandbox is set up (bubblewrap installs both right
// before it executes the code): the mount and namespace calls (mount,
// umount2, pivot_root, chroot, the new mount API, unshare, setns) fail
// with EPERM, clone with a namespace flag with EPERM, and clone3 with
// ENOSYS (its flags sit behind a pointer a filter cannot read, and glibc
// falls back to clone on ENOSYS).
var (
	BaseDenied = []string{
		"keyctl", "add_key", "request_key",
		"ptrace", "process_vm_readv", "process_vm_writev", "kcmp",
		"bpf", "perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register",
		"init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load", "reboot",
		"swapon", "swapoff", "acct", "quotactl", "open_by_handle_at", "name_to_handle_at", "lookup_dcookie",
	}
	UntrustedDenied = []string{
		"mount", "umount2", "pivot_root", "chroot", "unshare", "setns",
		"fsopen", "fsconfig", "fsmount", "fspick", "move_mount", "open_tree", "mount_setattr",
	}
)

// cloneNamespaceFlags are the CLONE_NEW* flags clone may not carry in the
// untrusted layer.
var cloneNamespaceFlags = []uint64{syscall.CLONE_NEWNS, syscall.CLONE_NEWUTS, syscall.CLONE_NEWIPC, syscall.CLONE_NEWUSER,
	syscall.CLONE_NEWPID, syscall.CLONE_NEWNET, 0x02000000 /* CLONE_NEWCGROUP */}

func errnoAction(e syscall.Errno) seccomp.Action {
	return seccomp.Action(uint32(seccomp.ActionErrno) | uint32(e))
}

var (
	workerOnce    sync.Once
	workerProgram []byte
	workerErr     error
)

// WorkerProgram returns the filter a warm worker (warm.go) runs under
// beside the base layer, in bubblewrap's format: the worker is not started
// with --disable-userns (its zygote must setns back to its own pid
// namespace after each execution's unshare, which the nested user
// namespace of --disable-userns forbids), so this takes its place: no
// process of the worker may create a user namespace (clone or unshare with
// CLONE_NEWUSER: EPERM; clone3: ENOSYS, as in the untrusted layer, which
// every execution's code runs under too).
func WorkerProgram() ([]byte, error) {
	workerOnce.Do(func() {
		newUser := func(name string) seccomp.NameWithConditions {
			return seccomp.NameWithConditions{Name: name,
				Conditions: seccomp.ArgumentConditions{{Argument: 0, Operation: seccomp.BitsSet, Value: syscall.CLONE_NEWUSER}}}
		}
		workerProgram, workerErr = assemble(seccomp.Policy{DefaultAction: seccomp.ActionAllow, Syscalls: []seccomp.SyscallGroup{
			{NamesWithCondtions: []seccomp.NameWithConditions{newUser("clone"), newUser("unshare")}, Action: errnoAction(syscall.EPERM)},
			{Names: []string{"clone3"}, Action: errnoAction(syscall.ENOSYS)},
		}})
	})
	return workerProgram, workerErr
}

var (
	rootlessWorkerOnce    sync.Once
	rootlessWorkerProgram []byte
	rootlessWorkerErr     error
)

// RootlessWorkerProgram is WorkerProgram for a rootless worker (rootless.go):
// there each execution's code process unshares a user namespace of its own
// before it installs the untrusted layer (which denies unshare altogether),
// so unshare may carry CLONE_NEWUSER; clone still may not (EPERM), and
// clone3 fails with ENOSYS.
func RootlessWorkerProgram() ([]byte, error) {
	rootlessWorkerOnce.Do(func() {
		rootlessWorkerProgram, rootlessWorkerErr = assemble(seccomp.Policy{DefaultAction: seccomp.ActionAllow, Syscalls: []seccomp.SyscallGroup{
			{NamesWithCondtions: []seccomp.NameWithConditions{{Name: "clone",
				Conditions: seccomp.ArgumentConditions{{Argument: 0, Operation: seccomp.BitsSet, Value: syscall.CLONE_NEWUSER}}}},
				Action: errnoAction(syscall.EPERM)},
			{Names: []string{"clone3"}, Action: errnoAction(syscall.ENOSYS)},
		}})
	})
	return rootlessWorkerProgram, rootlessWorkerErr
}

var (
	filterOnce                 sync.Once
	baseProgram, untrustedProg []byte
	filterErr                  error
)

// SeccompPrograms returns the two filters as bubblewrap's --add-seccomp-fd
// reads them (struct sock_filter, 8 bytes per instruction, native byte
// order): the base layer and the untrusted layer.
func SeccompPrograms() (base, untrusted []byte, err error) {
	filterOnce.Do(func() {
		// AF_VSOCK sockets reach the host's (or hypervisor's) services
		// past the network namespace, which does not cover vsock.
		vsock := []seccomp.NameWithConditions{{Name: "socket",
			Conditions: seccomp.ArgumentConditions{{Argument: 0, Operation: seccomp.Equal, Value: 40 /* AF_VSOCK */}}}}
		baseProgram, filterErr = assemble(seccomp.Policy{DefaultAction: seccomp.ActionAllow, Syscalls: []seccomp.SyscallGroup{
			{Names: BaseDenied, Action: errnoAction(syscall.EPERM)},
			{NamesWithCondtions: vsock, Action: errnoAction(syscall.EPERM)}}})
		if filterErr != nil {
			return
		}
		var clone []seccomp.NameWithConditions
		for _, f := range cloneNamespaceFlags {
			clone = append(clone, seccomp.NameWithConditions{Name: "clone",
				Conditions: seccomp.ArgumentConditions{{Argument: 0, Operation: seccomp.BitsSet, Value: f}}})
		}
		untrustedProg, filterErr = assemble(seccomp.Policy{DefaultAction: seccomp.ActionAllow, Syscalls: []seccomp.SyscallGroup{
			{Names: UntrustedDenied, Action: errnoAction(syscall.EPERM)},
			{NamesWithCondtions: clone, Action: errnoAction(syscall.EPERM)},
			{Names: []string{"clone3"}, Action: errnoAction(syscall.ENOSYS)},
		}})
	})
	return baseProgram, untrustedProg, filterErr
}

// assemble builds p for the running architecture, preceded by a check that
// sends every call of another architecture's ABI to ENOSYS (the library's
// own check would let them through to the allowed default).
func assemble(p seccomp.Policy) ([]byte, error) {
	info, err := arch.GetInfo("")
	if err != nil {
		return nil, fmt.Errorf("seccomp: %w", err)
	}
	ins, err := p.Assemble()
	if err != nil {
		return nil, fmt.Errorf("seccomp: %w", err)
	}
	prog := append([]bpf.Instruction{
		bpf.LoadAbsolute{Off: 4, Size: 4}, // seccomp_data.arch
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(info.ID), SkipTrue: 1},
		bpf.RetConstant{Val: uint32(errnoAction(syscall.ENOSYS))},
	}, ins...)
	raw, err := bpf.Assemble(prog)
	if err != nil {
		return nil, fmt.Errorf("seccomp: %w", err)
	}
	var b bytes.Buffer
	for _, r := range raw {
		binary.Write(&b, binary.NativeEndian, struct {
			Op     uint16
			Jt, Jf uint8
			K      uint32
		}{r.Op, r.Jt, r.Jf, r.K})
	}
	return b.Bytes(), nil
}
