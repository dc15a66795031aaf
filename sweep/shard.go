package sweep

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard is the part of a study one process runs: the points with
// Index % Count == Index.
type Shard struct {
	Index, Count int
	// From says where the shard came from: "--shard", "Slurm", "Kubernetes"
	// or "" (the whole study).
	From string
}

// String writes the shard as I/N.
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// ParseShard reads I/N (0 ≤ I < N).
func ParseShard(v string) (Shard, error) {
	a, b, ok := strings.Cut(v, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("%w: --shard=%s: allowed I/N with 0 ≤ I < N, such as 0/3", ErrStudy, v)
	}
	return Shard{Index: i, Count: n, From: "--shard"}, nil
}

// ShardFromEnv finds the shard a cluster scheduler gives this process:
// Slurm job arrays (SLURM_ARRAY_TASK_ID, less SLURM_ARRAY_TASK_MIN and
// divided by SLURM_ARRAY_TASK_STEP when set, of SLURM_ARRAY_TASK_COUNT)
// or a Kubernetes Indexed Job (JOB_COMPLETION_INDEX, of the study file's
// shards, which must then be given). Without either it returns the whole
// study (0/1).
func ShardFromEnv(getenv func(string) string, fileShards int) (Shard, error) {
	num := func(name string) (int, bool, error) {
		v := getenv(name)
		if v == "" {
			return 0, false, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return 0, true, fmt.Errorf("%w: %s=%q: allowed a whole number", ErrStudy, name, v)
		}
		return n, true, nil
	}
	if id, ok, err := num("SLURM_ARRAY_TASK_ID"); ok || err != nil {
		if err != nil {
			return Shard{}, err
		}
		count, ok, err := num("SLURM_ARRAY_TASK_COUNT")
		if err != nil {
			return Shard{}, err
		}
		if !ok || count < 1 {
			return Shard{}, fmt.Errorf("%w: SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not (Slurm sets both for a job array); give --shard=I/N", ErrStudy)
		}
		lo, _, err := num("SLURM_ARRAY_TASK_MIN")
		if err != nil {
			return Shard{}, err
		}
		step, ok, err := num("SLURM_ARRAY_TASK_STEP")
		if err != nil {
			return Shard{}, err
		}
		if !ok || step < 1 {
			step = 1
		}
		i := (id - lo) / step
		if id < lo || (id-lo)%step != 0 || i >= count {
			return Shard{}, fmt.Errorf("%w: SLURM_ARRAY_TASK_ID=%d is not one of the %d tasks from %d in steps of %d", ErrStudy, id, count, lo, step)
		}
		return Shard{Index: i, Count: count, From: "Slurm"}, nil
	}
	if i, ok, err := num("JOB_COMPLETION_INDEX"); ok || err != nil {
		if err != nil {
			return Shard{}, err
		}
		if fileShards < 1 {
			return Shard{}, fmt.Errorf("%w: JOB_COMPLETION_INDEX is set (a Kubernetes Indexed Job) but the study file gives no shards: (the Job's completions)", ErrStudy)
		}
		if i >= fileShards {
			return Shard{}, fmt.Errorf("%w: JOB_COMPLETION_INDEX=%d: the study file's shards: %d allows 0..%d", ErrStudy, i, fileShards, fileShards-1)
		}
		return Shard{Index: i, Count: fileShards, From: "Kubernetes"}, nil
	}
	return Shard{Index: 0, Count: 1}, nil
}
