// Package sweeps holds the example study and the files that run it on
// cluster schedulers; its test checks that they parse and run the command
// the README documents.
package sweeps

import (
	"bytes"
	"encoding/csv"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/ftlsim/ftlsim/cli"
	"github.com/ftlsim/ftlsim/sweep"
)

// documented is the study's command as its README and docs/studies.md give it; every
// scheduler's file runs it, with its own shard and parallelism options
// after it.
const documented = "ftlsim sweep examples/sweeps/op-dies.yaml --out=results/op-dies"

func read(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	return string(b)
}

func TestReadmesDocumentTheCommand(t *testing.T) {
	assert.Contains(t, read(t, "../../docs/studies.md"), documented)
	assert.Contains(t, read(t, "README.md"), documented)
	assert.Contains(t, read(t, "op-dies.yaml"), documented)
}

func study(t *testing.T) *sweep.Sweep {
	s, err := sweep.Load("op-dies.yaml")
	require.NoError(t, err)
	return s
}

func TestStudyHasTheIssuesGrid(t *testing.T) {
	s := study(t)
	assert.Equal(t, 4*3*2, s.NumPoints())
	assert.Equal(t, []string{"op", "nand.geometry.dies", "gc_policy"}, s.AxisNames())
	var out, errb bytes.Buffer
	require.Equal(t, 0, cli.Main([]string{"sweep", "op-dies.yaml", "--list"}, &out, &errb), errb.String())
	assert.Equal(t, 24, strings.Count(out.String(), "\n"))
	assert.Contains(t, out.String(), "ftlsim scenario consistency --drive=drives/")
	assert.Contains(t, out.String(), "--capacity=64GiB --op=28")
}

func TestSlurmScript(t *testing.T) {
	src := read(t, "op-dies.sbatch")
	m := regexp.MustCompile(`(?m)^#SBATCH --array=(\d+)-(\d+)$`).FindStringSubmatch(src)
	require.NotNil(t, m, "a job array")
	lo, _ := strconv.Atoi(m[1])
	hi, _ := strconv.Atoi(m[2])
	assert.Equal(t, 3, hi-lo+1, "three tasks")
	cmd := regexp.MustCompile(`(?m)^ftlsim .*$`).FindString(src)
	assert.True(t, strings.HasPrefix(cmd, documented+" "), cmd)
	assert.NotContains(t, cmd, "--shard", "the shard comes from SLURM_ARRAY_TASK_ID")
	// The shard a task of that array finds.
	for id := lo; id <= hi; id++ {
		env := map[string]string{"SLURM_ARRAY_TASK_ID": strconv.Itoa(id), "SLURM_ARRAY_TASK_MIN": m[1], "SLURM_ARRAY_TASK_COUNT": "3"}
		sh, err := sweep.ShardFromEnv(func(k string) string { return env[k] }, 0)
		require.NoError(t, err)
		assert.Equal(t, sweep.Shard{Index: id - lo, Count: 3, From: "Slurm"}, sh)
	}
}

func TestKubernetesIndexedJob(t *testing.T) {
	var job struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Spec       struct {
			CompletionMode string `yaml:"completionMode"`
			Completions    int    `yaml:"completions"`
			Parallelism    int    `yaml:"parallelism"`
			Template       struct {
				Spec struct {
					Containers []struct {
						Image      string   `yaml:"image"`
						WorkingDir string   `yaml:"workingDir"`
						Command    []string `yaml:"command"`
					} `yaml:"containers"`
				} `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	require.NoError(t, yaml.Unmarshal([]byte(read(t, "k8s-indexed-job.yaml")), &job))
	assert.Equal(t, "batch/v1", job.APIVersion)
	assert.Equal(t, "Job", job.Kind)
	assert.Equal(t, "Indexed", job.Spec.CompletionMode)
	assert.Equal(t, study(t).Shards, job.Spec.Completions, "the study file's shards: is the Job's completions")
	require.Len(t, job.Spec.Template.Spec.Containers, 1)
	c := job.Spec.Template.Spec.Containers[0]
	cmd := strings.Join(c.Command, " ")
	assert.True(t, strings.HasPrefix(cmd, documented+" "), cmd)
	assert.NotContains(t, cmd, "--shard", "the shard comes from JOB_COMPLETION_INDEX")
	for i := range job.Spec.Completions {
		sh, err := sweep.ShardFromEnv(func(k string) string {
			if k == "JOB_COMPLETION_INDEX" {
				return strconv.Itoa(i)
			}
			return ""
		}, study(t).Shards)
		require.NoError(t, err)
		assert.Equal(t, sweep.Shard{Index: i, Count: 3, From: "Kubernetes"}, sh)
	}
	assert.Contains(t, read(t, "Dockerfile"), "WORKDIR "+c.WorkingDir, "the image's study files are where the Job runs")
}

func TestParallelAndHTCondor(t *testing.T) {
	par := read(t, "parallel.sh")
	assert.Contains(t, par, documented+" ")
	assert.Contains(t, par, "--shard={}/3 ::: 0 1 2")
	assert.Contains(t, par, "ftlsim sweep merge results/op-dies")
	sub := read(t, "op-dies.sub")
	args := regexp.MustCompile(`(?m)^arguments\s*=\s*(.*)$`).FindStringSubmatch(sub)
	require.NotNil(t, args)
	assert.True(t, strings.HasPrefix(args[1], documented+" "), args[1])
	assert.Contains(t, args[1], "--shard=$(Process)/3")
	assert.Regexp(t, `(?m)^queue 3$`, sub)
}

// The NVMe study forks its 16 points from one filled drive.
func TestNVMeQueuesStudyForksOneDrive(t *testing.T) {
	s, err := sweep.Load("nvme-queues.yaml")
	require.NoError(t, err)
	ps, err := s.Points()
	require.NoError(t, err)
	require.Len(t, ps, 16)
	for _, p := range ps {
		assert.Equal(t, ps[0].Group, p.Group, "one preparation group")
		assert.NotEmpty(t, p.Group)
	}
}

// The handle × tenant-mix study (fdp-tenants.yaml) runs the tenants
// scenario on the FDP preset at every point, the handles its tenants
// write through and their block sizes its axes.
func TestFDPTenantsStudy(t *testing.T) {
	const cmd = "ftlsim sweep examples/sweeps/fdp-tenants.yaml --out=results/fdp-tenants"
	assert.Contains(t, read(t, "README.md"), cmd)
	assert.Contains(t, read(t, "fdp-tenants.yaml"), cmd)
	s, err := sweep.Load("fdp-tenants.yaml")
	require.NoError(t, err)
	assert.Equal(t, []string{"handles", "bs"}, s.AxisNames())
	assert.Equal(t, 12, s.NumPoints())
	var out, errb bytes.Buffer
	require.Equal(t, 0, cli.Main([]string{"sweep", "fdp-tenants.yaml", "--list"}, &out, &errb), errb.String())
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 12)
	assert.Contains(t, lines[0], "ftlsim scenario tenants --drive=generic-nvme-fdp")
	assert.Contains(t, lines[0], "--handles=0")
	assert.Contains(t, lines[11], "--handles=4")
	assert.Contains(t, lines[11], "--bs=4k,4k,4k,256k")
}

// The zone size × open-zone limit study (zones.yaml): the documented
// command, its grid, and a small form of it run whole — 256 MiB zones on
// the 16 GiB drive, about two drive writes — where what theory says holds:
// zones that fill whole groups, one or two open at a time, each on its
// own write point, have blocks of their own and resets leave nothing to
// copy (WA at most 1.01); over sets of 8 dies, two open zones write on
// two sets, faster than one.
func TestZonesStudy(t *testing.T) {
	const cmd = "ftlsim sweep examples/sweeps/zones.yaml --out=results/zones"
	assert.Contains(t, read(t, "README.md"), cmd)
	assert.Contains(t, read(t, "zones.yaml"), cmd)
	s, err := sweep.Load("zones.yaml")
	require.NoError(t, err)
	assert.Equal(t, []string{"zone_size", "max_open", "zone_dies"}, s.AxisNames())
	assert.Equal(t, 40, s.NumPoints())
	var out, errb bytes.Buffer
	require.Equal(t, 0, cli.Main([]string{"sweep", "zones.yaml", "--list"}, &out, &errb), errb.String())
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 40)
	assert.Contains(t, lines[0], "--zonemode=zbd")

	small := strings.NewReplacer("runtime: 60", "runtime: 40",
		"zone_size: [32MiB, 64MiB, 256MiB, 1GiB]", "zone_size: [256MiB]", "max_open: [1, 2, 4, 8, 16]", "max_open: [1, 2]").Replace(read(t, "zones.yaml"))
	dir := t.TempDir()
	file := dir + "/zones.yaml"
	require.NoError(t, os.WriteFile(file, []byte(small), 0o644))
	out.Reset()
	errb.Reset()
	require.Equal(t, 0, cli.Main([]string{"sweep", file, "--out=" + dir + "/out"}, &out, &errb), errb.String())
	rows := readTable(t, dir+"/out/table.csv")
	require.Len(t, rows, 4)
	at := func(open, dies string) map[string]string {
		for _, r := range rows {
			if r["max_open"] == open && r["zone_dies"] == dies {
				return r
			}
		}
		t.Fatalf("no point max_open=%s zone_dies=%s", open, dies)
		return nil
	}
	num := func(r map[string]string, k string) float64 {
		v, err := strconv.ParseFloat(r[k], 64)
		require.NoError(t, err, k)
		return v
	}
	for _, dies := range []string{"0", "8"} {
		for _, open := range []string{"1", "2"} {
			assert.LessOrEqual(t, num(at(open, dies), "wa"), 1.01, "%s open zones over %s dies", open, dies)
		}
	}
	assert.Greater(t, num(at("2", "8"), "write_mbps"), 1.2*num(at("1", "8"), "write_mbps"), "two die sets write faster than one")
}

// readTable reads a study's table.csv as rows of column → value.
func readTable(t *testing.T, file string) []map[string]string {
	recs, err := csv.NewReader(strings.NewReader(read(t, file))).ReadAll()
	require.NoError(t, err)
	require.NotEmpty(t, recs)
	var rows []map[string]string
	for _, rec := range recs[1:] {
		r := map[string]string{}
		for i, k := range recs[0] {
			r[k] = rec[i]
		}
		rows = append(rows, r)
	}
	return rows
}
