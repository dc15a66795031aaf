package fit

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
)

// plateau is a procedure whose figure, stalls, is 0 while paced
// collection keeps up (gc_pace_percent at least 100) and grows with the
// restore mark below that: a start on the plateau sees no parameter
// move it.
type plateau struct{}

func (plateau) Key() string { return "plateau" }

func (plateau) Run(_ context.Context, cfg controller.Config) (map[string]float64, error) {
	fw := cfg.Firmware
	return map[string]float64{"stall s": math.Max(0, 100-float64(fw.GCPacePercent)) * float64(fw.GCRestoreTo) / 10}, nil
}

// A search that starts on a plateau, where the targets' figures do not
// move, leaves it through the design over the bounds and reaches the
// target.
func TestSearchLeavesAPlateau(t *testing.T) {
	cfg, err := controller.Preset("bp3-256")
	require.NoError(t, err)
	cfg.Firmware.GCPacePercent, cfg.Firmware.GCRestoreTo = 141, 6
	var ps []Param
	for _, s := range []string{"firmware.gc_pace_percent=50..400", "firmware.gc_restore_to=3..12"} {
		p, err := ParseParam(cfg, s)
		require.NoError(t, err)
		ps = append(ps, p)
	}
	ts := &Targets{List: []Target{{Procedure: "plateau", Figure: "stall s", Value: 15, Lo: 10, Hi: 20, Weight: 1}},
		Procedures: map[string]Procedure{"plateau": plateau{}}}
	res, err := Fit(context.Background(), Options{Base: cfg, Params: ps, Targets: ts, Jobs: 2})
	require.NoError(t, err)
	require.Zero(t, res.Errors[0], "stalls %g at %v", res.After[0], res.Fitted)
	require.Less(t, res.Fitted[0], 100.0)
}
