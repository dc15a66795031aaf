package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/ftl"
)

// oldestFirst is a user's policy for the test: FIFO under another name.
type oldestFirst struct{}

func (oldestFirst) Name() string                      { return "oldest-first" }
func (oldestFirst) Victim(v ftl.View, die int) int    { return ftl.FIFO{}.Victim(v, die) }
func newOldestFirst(string) (ftl.VictimPolicy, error) { return oldestFirst{}, nil }

// TestRegisteredPolicyOnTheCommand: with the registry linked in through
// WithPolicies, --gc and a drive description's gc_policy name the user's
// policy, and the run matches the built-in policy it copies; without it
// the name is bad input (exit 2) naming the option.
func TestRegisteredPolicyOnTheCommand(t *testing.T) {
	reg := ftl.NewRegistry()
	require.NoError(t, reg.Register("oldest-first", newOldestFirst))
	run := func(opts []Option, args ...string) (int, string, string) {
		var o, e bytes.Buffer
		code := Main(append(append([]string{}, quick...), args...), &o, &e, opts...)
		return code, o.String(), e.String()
	}
	job := []string{"--precondition=fill", "--rw=randwrite", "--runtime=2", "--time_based", "--output-format=json"}
	code, mine, stderr := run([]Option{WithPolicies(reg)}, append(job, "--gc=oldest-first")...)
	require.Equal(t, exitOK, code, stderr)
	code, fifo, stderr := run(nil, append(job, "--gc=fifo")...)
	require.Equal(t, exitOK, code, stderr)
	require.Equal(t, fifo, mine, "the user's FIFO copy runs exactly as FIFO")

	code, _, stderr = run(nil, append(job, "--gc=oldest-first")...)
	require.Equal(t, exitUsage, code)
	require.Contains(t, stderr, "--gc")

	cfg, err := controller.Preset("generic-mlc-small")
	require.NoError(t, err)
	cfg.Firmware.GCPolicy = "oldest-first"
	text, err := cfg.Marshal()
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "mine.yaml")
	require.NoError(t, os.WriteFile(file, text, 0o644))
	var o, e bytes.Buffer
	code = Main([]string{"--drive=" + file, "--capacity=4GiB", "--op=25", "--rw=randwrite", "--runtime=1", "--time_based"}, &o, &e, WithPolicies(reg))
	require.Equal(t, exitOK, code, e.String())
	require.Contains(t, o.String(), "oldest-first")
	e.Reset()
	require.Equal(t, exitUsage, Main([]string{"--drive=" + file, "--rw=randwrite", "--runtime=1", "--time_based"}, &o, &e))
	require.Contains(t, e.String(), "gc_policy")
}
