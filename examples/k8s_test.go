package examples

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// shardArg finds the shard argument of a pod's command, with the completion
// index as a shell variable or as Kubernetes' $(VAR) reference.
var shardArg = regexp.MustCompile(`--shard[= ]"?(?:\$\{JOB_COMPLETION_INDEX\}|\$JOB_COMPLETION_INDEX|\$\(JOB_COMPLETION_INDEX\))/(\d+)"?(?:\s|$)`)

// outArg finds the output directory of a pod's command.
var outArg = regexp.MustCompile(`--out[= ]"?([^"\s]+)"?`)

// TestK8sIndexedJob decodes k8s-indexed-job.yaml strictly (an unknown or
// misspelt field is an error) into the upstream Job type and checks that it
// runs one shard per completion index: an Indexed Job whose completions and
// parallelism equal the N of --shard INDEX/N, with the privileges testbeds
// need, writing each shard into its own directory on a shared volume.
func TestK8sIndexedJob(t *testing.T) {
	src, err := os.ReadFile("k8s-indexed-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var job batchv1.Job
	if err := yaml.UnmarshalStrict(src, &job); err != nil {
		t.Fatalf("k8s-indexed-job.yaml is not a valid Job: %v", err)
	}
	if job.APIVersion != "batch/v1" || job.Kind != "Job" {
		t.Errorf("apiVersion %q kind %q, want batch/v1 Job", job.APIVersion, job.Kind)
	}
	js := job.Spec
	if js.CompletionMode == nil || *js.CompletionMode != batchv1.IndexedCompletion {
		t.Fatalf("completionMode %v, want Indexed (JOB_COMPLETION_INDEX selects the shard)", js.CompletionMode)
	}
	if js.Completions == nil || js.Parallelism == nil {
		t.Fatalf("completions %v, parallelism %v: both must be set", js.Completions, js.Parallelism)
	}
	if *js.Completions != *js.Parallelism {
		t.Errorf("completions %d != parallelism %d: every shard should run at once on its own node", *js.Completions, *js.Parallelism)
	}
	if p := js.Template.Spec.RestartPolicy; p != corev1.RestartPolicyNever && p != corev1.RestartPolicyOnFailure {
		t.Errorf("restartPolicy %q: a Job's pods need Never or OnFailure", p)
	}

	cs := js.Template.Spec.Containers
	if len(cs) != 1 {
		t.Fatalf("%d containers, want 1", len(cs))
	}
	ct := cs[0]
	cmd := strings.Join(append(slices.Clone(ct.Command), ct.Args...), " ")
	if !strings.Contains(cmd, "spdylab run ") {
		t.Errorf("command %q does not run spdylab run", cmd)
	}
	m := shardArg.FindAllStringSubmatch(cmd, -1)
	if len(m) != 1 {
		t.Fatalf("command %q: want one --shard $JOB_COMPLETION_INDEX/N, found %d", cmd, len(m))
	}
	n, _ := strconv.Atoi(m[0][1])
	if int32(n) != *js.Completions {
		t.Errorf("--shard .../%d but completions %d: the shards would not cover the study exactly", n, *js.Completions)
	}

	sc := ct.SecurityContext
	privileged := sc != nil && sc.Privileged != nil && *sc.Privileged
	if !privileged {
		var caps []corev1.Capability
		if sc != nil && sc.Capabilities != nil {
			caps = sc.Capabilities.Add
		}
		if !slices.Contains(caps, "NET_ADMIN") || !slices.Contains(caps, "SYS_ADMIN") {
			t.Errorf("container is neither privileged nor adds NET_ADMIN and SYS_ADMIN (has %v): testbeds need network namespaces", caps)
		}
	}

	// Each shard writes its own directory (named by the index) on a volume
	// every pod mounts and that outlives them.
	om := outArg.FindStringSubmatch(cmd)
	if om == nil {
		t.Fatalf("command %q has no --out", cmd)
	}
	out := om[1]
	if !strings.Contains(out, "JOB_COMPLETION_INDEX") {
		t.Errorf("--out %s is the same for every index: shards would share one store", out)
	}
	var mount *corev1.VolumeMount
	for i, vm := range ct.VolumeMounts {
		if strings.HasPrefix(out, strings.TrimSuffix(vm.MountPath, "/")+"/") {
			mount = &ct.VolumeMounts[i]
		}
	}
	if mount == nil {
		t.Fatalf("--out %s is on no mounted volume: the results would go with the pod", out)
	}
	if mount.ReadOnly {
		t.Errorf("results volume %s is mounted read-only", mount.Name)
	}
	var vol *corev1.Volume
	for i, v := range js.Template.Spec.Volumes {
		if v.Name == mount.Name {
			vol = &js.Template.Spec.Volumes[i]
		}
	}
	switch {
	case vol == nil:
		t.Errorf("volume %s is mounted but not defined", mount.Name)
	case vol.PersistentVolumeClaim == nil && vol.NFS == nil && vol.CephFS == nil:
		t.Errorf("results volume %s is not shared storage (want a ReadWriteMany PersistentVolumeClaim or NFS)", mount.Name)
	}
}
