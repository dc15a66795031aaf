package cmdline

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTable(t *testing.T) {
	seen := map[string]bool{}
	for _, o := range Options() {
		assert.False(t, seen[o.Name], "%s twice", o.Name)
		seen[o.Name] = true
		assert.NotEmpty(t, o.Help, o.Name)
		assert.NotZero(t, o.Modes, o.Name)
		assert.Equal(t, o.Study, o.Study&o.Modes, "%s: a study sets it only on commands that take it", o.Name)
		assert.Equal(t, o.Flag, o.Value == "", "%s: a switch has no value form, an option has one", o.Name)
	}
	assert.Equal(t, []string{"capacity", "op", "gc", "faults", "randseed"}, StudyOptions(Scenario))
	assert.Contains(t, StudyOptions(Job), "precondition")
	assert.NotContains(t, StudyOptions(Job), "drive", "a study sets the drive itself")
	assert.True(t, IsWorkloadOnly("device_log_msec"))
	assert.False(t, IsWorkloadOnly("capacity"))
	_, ok := Lookup("nope")
	assert.False(t, ok)
}
