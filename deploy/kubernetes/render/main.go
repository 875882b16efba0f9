// Command render prints the command of a Job's container in the manifests
// of deploy/kubernetes as the kubelet would run it, one argument per line:
// the shards Job's for completion index -index ($(VAR) references to the
// completion index expanded), or the merge Job's. -map rewrites path
// prefixes (mount paths) to local directories, so that scripts/shards-local.sh
// runs each completion index's command on this machine.
//
//	go run ./render -job shards -index 2 -map /plan=/tmp/p,/data/mattools=$MATTOOLS_DATA,/shards=/tmp/s
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/yaml"
)

func main() {
	dir := flag.String("dir", ".", "the directory of the manifests")
	job := flag.String("job", "shards", "shards or merge")
	index := flag.Int("index", 0, "the completion index (shards)")
	maps := flag.String("map", "", "comma-separated FROM=TO path prefixes")
	flag.Parse()
	var j batchv1.Job
	data, err := os.ReadFile(filepath.Join(*dir, *job+"-job.yaml"))
	if err == nil {
		err = yaml.UnmarshalStrict(data, &j)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "render:", err)
		os.Exit(1)
	}
	if j.Spec.Completions != nil && *index >= int(*j.Spec.Completions) {
		fmt.Fprintf(os.Stderr, "render: index %d: the Job has %d completions\n", *index, *j.Spec.Completions)
		os.Exit(1)
	}
	c := j.Spec.Template.Spec.Containers[0]
	vars := map[string]string{"JOB_COMPLETION_INDEX": strconv.Itoa(*index)}
	for _, e := range c.Env {
		if e.ValueFrom != nil && e.ValueFrom.FieldRef != nil &&
			e.ValueFrom.FieldRef.FieldPath == "metadata.annotations['"+batchv1.JobCompletionIndexAnnotation+"']" {
			vars[e.Name] = strconv.Itoa(*index)
		}
	}
	var pairs [][2]string
	for _, m := range strings.Split(*maps, ",") {
		if from, to, ok := strings.Cut(m, "="); ok {
			pairs = append(pairs, [2]string{from, to})
		}
	}
	ref := regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)
	for _, a := range append(c.Command, c.Args...) {
		a = ref.ReplaceAllStringFunc(a, func(m string) string {
			if v, ok := vars[m[2:len(m)-1]]; ok {
				return v
			}
			return m
		})
		for _, p := range pairs {
			if a == p[0] || strings.HasPrefix(a, p[0]+"/") {
				a = p[1] + a[len(p[0]):]
				break
			}
		}
		fmt.Println(a)
	}
}
