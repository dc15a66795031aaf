package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/ftl"
	"github.com/ftlsim/ftlsim/ftl/ftltest"
)

// TestWearGreedyKeepsTheFTLsInvariants checks the user's policy with the
// rapid kit, as a policy author would before using it.
func TestWearGreedyKeepsTheFTLsInvariants(t *testing.T) {
	ftltest.Check(t, func() ftl.VictimPolicy { return WearGreedy{Weight: 8} })
}

// TestExampleRuns runs the example as `go run` does, on a short run: both
// policies run the consistency scenario, and the command's Go entry point
// runs it with --gc naming the registered policy.
func TestExampleRuns(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(&out, "generic-mlc-small", "30s"))
	t.Log("\n" + out.String())
	s := out.String()
	require.Contains(t, s, "wear-greedy:8")
	require.Contains(t, s, "wear-greedy:8 GC", "the command names the policy it ran")
	require.Equal(t, 3, strings.Count(s, "wear-greedy:8"), "the table row, the command line and the drive line")
}

// TestRegisteredPolicyInADriveDescription: a description naming the
// policy loads and builds a drive with it when the registry is given, and
// is refused, naming the allowed policies, without it.
func TestRegisteredPolicyInADriveDescription(t *testing.T) {
	reg, err := Registry()
	require.NoError(t, err)
	cfg, err := controller.Preset("generic-mlc-small")
	require.NoError(t, err)
	cfg.Firmware.GCPolicy = "wear-greedy:2"
	text, err := cfg.Marshal()
	require.NoError(t, err)
	require.Contains(t, string(text), "gc_policy: wear-greedy:2")
	loaded, err := controller.ParseConfig("mydrive.yaml", text)
	require.NoError(t, err)
	_, err = controller.New(loaded)
	require.ErrorContains(t, err, "wear-greedy:2")
	loaded.Policies = reg
	d, err := controller.New(loaded)
	require.NoError(t, err)
	require.Equal(t, WearGreedy{Weight: 2}, d.FTL().Config().Victim)
}

// TestWearGreedyWithoutWeightIsGreedy: with weight 0 the policy chooses
// exactly as greedy does, so a consistency run gives the same result.
func TestWearGreedyWithoutWeightIsGreedy(t *testing.T) {
	reg, err := Registry()
	require.NoError(t, err)
	a, err := consistency("generic-mlc-small", "greedy", "20s", reg)
	require.NoError(t, err)
	b, err := consistency("generic-mlc-small", "wear-greedy:0", "20s", reg)
	require.NoError(t, err)
	require.Equal(t, a.summary, b.summary)
}
