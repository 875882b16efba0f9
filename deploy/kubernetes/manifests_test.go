package kubernetes

// Checks of the Kubernetes manifests: every document decodes
// strictly into its k8s.io/api type, and the Indexed Job's completion
// index reaches run-benchmark's -shard and -out so that completion index i
// runs shard i of n into its own directory, n = the Job's completions, and
// the merge Job reads exactly those n directories of the same volume, with
// the same plan, data and image. Also the sandbox settings the local
// backend needs (shards-job.yaml's header), and that the merge Job gets no
// API key.

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// docs decodes every YAML document of the manifests in this directory
// into the type its kind names, strictly (an unknown field is an error).
func docs(t *testing.T) map[string]any {
	t.Helper()
	files, err := filepath.Glob("*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("manifests: %v %v", files, err)
	}
	out := map[string]any{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(data), -1) {
			if strings.TrimSpace(regexp.MustCompile(`(?m)^#.*$`).ReplaceAllString(doc, "")) == "" {
				continue
			}
			var tm metav1.TypeMeta
			if err := yaml.Unmarshal([]byte(doc), &tm); err != nil {
				t.Fatalf("%s document %d: %v", f, i+1, err)
			}
			var obj any
			switch tm.APIVersion + " " + tm.Kind {
			case "batch/v1 Job":
				obj = &batchv1.Job{}
			case "v1 Secret":
				obj = &corev1.Secret{}
			case "v1 PersistentVolumeClaim":
				obj = &corev1.PersistentVolumeClaim{}
			case "v1 Namespace":
				obj = &corev1.Namespace{}
			default:
				t.Fatalf("%s document %d: unexpected %s %s", f, i+1, tm.APIVersion, tm.Kind)
			}
			if err := yaml.UnmarshalStrict([]byte(doc), obj); err != nil {
				t.Fatalf("%s document %d (%s): %v", f, i+1, tm.Kind, err)
			}
			name := obj.(metav1.Object).GetName()
			if ns := obj.(metav1.Object).GetNamespace(); tm.Kind != "Namespace" && ns != "mattools" {
				t.Errorf("%s %s: namespace %q, want mattools", tm.Kind, name, ns)
			}
			out[tm.Kind+"/"+name] = obj
		}
	}
	return out
}

// flag returns the value after name in argv.
func flag(t *testing.T, argv []string, name string) string {
	t.Helper()
	i := slices.Index(argv, name)
	if i < 0 || i+1 >= len(argv) {
		t.Fatalf("%q: no %s", argv, name)
	}
	return argv[i+1]
}

// expand replaces $(VAR) in s as the kubelet does, from vars.
func expand(s string, vars map[string]string) string {
	return regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`).ReplaceAllStringFunc(s, func(m string) string {
		if v, ok := vars[m[2:len(m)-1]]; ok {
			return v
		}
		return m
	})
}

// mountOf returns the volume mounted at the longest mount path that holds
// path, and the claim or config map behind it.
func mountOf(t *testing.T, spec corev1.PodSpec, c corev1.Container, path string) (mount corev1.VolumeMount, source string) {
	t.Helper()
	for _, m := range c.VolumeMounts {
		if (path == m.MountPath || strings.HasPrefix(path, m.MountPath+"/")) && len(m.MountPath) > len(mount.MountPath) {
			mount = m
		}
	}
	if mount.Name == "" {
		t.Fatalf("container %s: %s is on no volume", c.Name, path)
	}
	for _, v := range spec.Volumes {
		if v.Name == mount.Name {
			switch {
			case v.PersistentVolumeClaim != nil:
				return mount, "pvc:" + v.PersistentVolumeClaim.ClaimName
			case v.ConfigMap != nil:
				return mount, "configmap:" + v.ConfigMap.Name
			case v.EmptyDir != nil:
				return mount, "emptydir:" + v.Name
			}
		}
	}
	t.Fatalf("container %s: volume %s is not declared", c.Name, mount.Name)
	return
}

func TestIndexedJobWiring(t *testing.T) {
	all := docs(t)
	shards, ok := all["Job/mattools-shards"].(*batchv1.Job)
	merge, ok2 := all["Job/mattools-merge"].(*batchv1.Job)
	if !ok || !ok2 {
		t.Fatalf("want Jobs mattools-shards and mattools-merge, have %v", keys(all))
	}
	s := shards.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion || s.Completions == nil || s.Parallelism == nil ||
		*s.Parallelism > *s.Completions || *s.Completions < 2 {
		t.Fatalf("shards Job: completion mode %v, completions %v, parallelism %v; want Indexed, n ≥ 2, parallelism ≤ n",
			s.CompletionMode, s.Completions, s.Parallelism)
	}
	n := int(*s.Completions)
	if len(s.Template.Spec.Containers) != 1 {
		t.Fatalf("shards Job: %d containers, want 1", len(s.Template.Spec.Containers))
	}
	c := s.Template.Spec.Containers[0]
	if c.Command[0] != "run-benchmark" {
		t.Fatalf("shard command %q", c.Command)
	}

	// The completion index reaches the command through an environment
	// variable: the Job controller's annotation, or JOB_COMPLETION_INDEX
	// (which it sets itself).
	indexVar := map[string]bool{"JOB_COMPLETION_INDEX": true}
	for _, e := range c.Env {
		if e.ValueFrom != nil && e.ValueFrom.FieldRef != nil &&
			e.ValueFrom.FieldRef.FieldPath == "metadata.annotations['"+batchv1.JobCompletionIndexAnnotation+"']" {
			indexVar[e.Name] = true
		}
	}
	shardArg := flag(t, c.Command, "-shard")
	m := regexp.MustCompile(`^\$\((\w+)\)/(\d+)$`).FindStringSubmatch(shardArg)
	if m == nil || !indexVar[m[1]] {
		t.Fatalf("-shard %q: want $(INDEX)/n with INDEX the completion index (one of %v)", shardArg, keys(indexVar))
	}
	if got, _ := strconv.Atoi(m[2]); got != n {
		t.Fatalf("-shard %q: n = %d, but the Job has %d completions", shardArg, got, n)
	}

	// Each index runs its own shard into its own directory of the shared
	// volume; the merge Job reads exactly those directories.
	outs := map[string]bool{}
	for i := range n {
		vars := map[string]string{m[1]: strconv.Itoa(i)}
		argv := make([]string, len(c.Command))
		for k, a := range c.Command {
			argv[k] = expand(a, vars)
		}
		if got := flag(t, argv, "-shard"); got != strconv.Itoa(i)+"/"+strconv.Itoa(n) {
			t.Errorf("index %d runs -shard %s", i, got)
		}
		out := flag(t, argv, "-out")
		if outs[out] {
			t.Errorf("index %d writes into %s, as another index does", i, out)
		}
		outs[out] = true
	}
	shardOut := flag(t, c.Command, "-out")
	_, outVol := mountOf(t, s.Template.Spec, c, shardOut)
	if !strings.HasPrefix(outVol, "pvc:") {
		t.Errorf("shard outputs go to %s, not a persistent volume claim", outVol)
	}

	mc := merge.Spec.Template.Spec.Containers[0]
	if mc.Command[0] != "merge" {
		t.Fatalf("merge command %q", mc.Command)
	}
	var dirs []string // merge's positional arguments: the shard directories
	for k := 1; k < len(mc.Command); k++ {
		switch a := mc.Command[k]; {
		case a == "-unscored" || a == "-v":
		case strings.HasPrefix(a, "-"):
			k++ // a flag with a value
		default:
			dirs = append(dirs, a)
		}
	}
	slices.Sort(dirs)
	want := keys(outs)
	if strings.Join(dirs, " ") != strings.Join(want, " ") {
		t.Errorf("merge reads %q; the shards write %q", dirs, want)
	}
	if _, v := mountOf(t, merge.Spec.Template.Spec, mc, dirs[0]); v != outVol {
		t.Errorf("merge reads the shards from %s, they write to %s", v, outVol)
	}
	if _, v := mountOf(t, merge.Spec.Template.Spec, mc, flag(t, mc.Command, "-out")); v != outVol {
		t.Errorf("merge writes the results to %s, want the shards' volume %s", v, outVol)
	}

	// The same plan, data and image in both Jobs.
	for _, f := range []string{"-plan", "-data"} {
		a, b := flag(t, c.Command, f), flag(t, mc.Command, f)
		_, va := mountOf(t, s.Template.Spec, c, a)
		_, vb := mountOf(t, merge.Spec.Template.Spec, mc, b)
		if a != b || va != vb {
			t.Errorf("%s: shards %s (%s), merge %s (%s)", f, a, va, b, vb)
		}
	}
	if _, v := mountOf(t, s.Template.Spec, c, flag(t, c.Command, "-plan")); !strings.HasPrefix(v, "configmap:") {
		t.Errorf("the plan comes from %s, not a config map", v)
	}
	if mnt, _ := mountOf(t, s.Template.Spec, c, flag(t, c.Command, "-data")); !mnt.ReadOnly {
		t.Errorf("the data volume is mounted read-write in the shards")
	}
	if c.Image != mc.Image || c.Image == "" {
		t.Errorf("images: shards %q, merge %q; merge refuses shards of another build", c.Image, mc.Image)
	}
	if s.Template.Spec.RestartPolicy != corev1.RestartPolicyNever || s.BackoffLimitPerIndex == nil {
		t.Errorf("shards: restart policy %q, backoffLimitPerIndex %v; want Never and a per-index retry limit", s.Template.Spec.RestartPolicy, s.BackoffLimitPerIndex)
	}

	// API keys: the shards get them from the Secret; the merge gets none.
	secret, ok := all["Secret/mattools-api-keys"].(*corev1.Secret)
	if !ok {
		t.Fatalf("no Secret mattools-api-keys")
	}
	if len(c.EnvFrom) != 1 || c.EnvFrom[0].SecretRef == nil || c.EnvFrom[0].SecretRef.Name != secret.Name {
		t.Errorf("shards envFrom %+v; want the Secret %s", c.EnvFrom, secret.Name)
	}
	if _, ok := secret.StringData["OPENAI_API_KEY"]; !ok {
		t.Errorf("the Secret has no OPENAI_API_KEY (plans/paper.toml's api_key_env)")
	}
	if len(mc.EnvFrom) != 0 || len(mc.Env) != 0 {
		t.Errorf("the merge Job gets environment %v %v; it needs no key", mc.EnvFrom, mc.Env)
	}
	for _, ref := range []string{"mattools-data", "mattools-shards"} {
		if _, ok := all["PersistentVolumeClaim/"+ref]; !ok {
			t.Errorf("no PersistentVolumeClaim %s", ref)
		}
	}
}

// The local sandbox backend's needs (shards-job.yaml's header), and no
// more: root in a pod user namespace with few capabilities, seccomp and
// AppArmor unconfined for bubblewrap, an unmasked /proc, rlimits only.
func TestShardPodsSecurityForTheLocalSandbox(t *testing.T) {
	all := docs(t)
	job := all["Job/mattools-shards"].(*batchv1.Job)
	spec := job.Spec.Template.Spec
	c := spec.Containers[0]
	sc := c.SecurityContext
	if sc == nil || spec.HostUsers == nil || *spec.HostUsers {
		t.Fatalf("shard pod: hostUsers %v, securityContext %v; want a user namespace and a security context", spec.HostUsers, sc)
	}
	if flag(t, c.Command, "-sandbox") != "local" || !slices.Contains(c.Command, "-sandbox-no-cgroup") {
		t.Errorf("shard command %q: want -sandbox local -sandbox-no-cgroup", c.Command)
	}
	if sc.RunAsUser == nil || *sc.RunAsUser != 0 || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		sc.Privileged != nil && *sc.Privileged {
		t.Errorf("runAsUser %v, allowPrivilegeEscalation %v, privileged %v; want 0, false, not privileged", sc.RunAsUser, sc.AllowPrivilegeEscalation, sc.Privileged)
	}
	if sc.SeccompProfile == nil || sc.SeccompProfile.Type != corev1.SeccompProfileTypeUnconfined ||
		sc.AppArmorProfile == nil || sc.AppArmorProfile.Type != corev1.AppArmorProfileTypeUnconfined ||
		sc.ProcMount == nil || *sc.ProcMount != corev1.UnmaskedProcMount {
		t.Errorf("seccomp %v, AppArmor %v, procMount %v; bubblewrap needs Unconfined, Unconfined, Unmasked", sc.SeccompProfile, sc.AppArmorProfile, sc.ProcMount)
	}
	caps := sc.Capabilities
	var add []string
	for _, a := range caps.Add {
		add = append(add, string(a))
	}
	slices.Sort(add)
	if len(caps.Drop) != 1 || caps.Drop[0] != "ALL" || strings.Join(add, " ") != "CHOWN DAC_OVERRIDE FOWNER KILL SETGID SETUID" {
		t.Errorf("capabilities drop %v add %v", caps.Drop, add)
	}
	if c.Resources.Limits.Memory().IsZero() {
		t.Errorf("no memory limit: with -sandbox-no-cgroup it is what bounds the pod")
	}
	mspec := all["Job/mattools-merge"].(*batchv1.Job).Spec.Template.Spec
	msc := mspec.Containers[0].SecurityContext
	if msc == nil || msc.SeccompProfile == nil || msc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault ||
		msc.Capabilities == nil || len(msc.Capabilities.Add) != 0 || len(msc.Capabilities.Drop) != 1 {
		t.Errorf("merge security context %+v: want RuntimeDefault seccomp and every capability dropped", msc)
	}
	ns := all["Namespace/mattools"].(*corev1.Namespace)
	if ns.Labels["pod-security.kubernetes.io/enforce"] != "privileged" {
		t.Errorf("namespace labels %v: the shard pods exceed the baseline standard", ns.Labels)
	}
}

// The image is built from the sandbox image of sandbox-env/Dockerfile.
func TestImageBuildsOnTheSandboxImage(t *testing.T) {
	df, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	sandbox, err := os.ReadFile("../../sandbox-env/Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	tag := regexp.MustCompile(`-t (mattools-sandbox:\S+)`).FindSubmatch(sandbox)
	if tag == nil {
		t.Fatal("sandbox-env/Dockerfile names no image tag")
	}
	if !regexp.MustCompile(`(?m)^ARG SANDBOX_IMAGE=`+regexp.QuoteMeta(string(tag[1]))+`$`).Match(df) ||
		!regexp.MustCompile(`(?m)^FROM \$\{SANDBOX_IMAGE\}$`).Match(df) {
		t.Errorf("deploy/kubernetes/Dockerfile does not build FROM the sandbox image %s", tag[1])
	}
	for _, want := range []string{"./cmd/run-benchmark", "./cmd/merge", "bubblewrap", "util-linux", "/opt/mattools-sandbox"} {
		if !strings.Contains(string(df), want) {
			t.Errorf("Dockerfile lacks %s", want)
		}
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
