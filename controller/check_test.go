package controller_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
)

// Check refuses exactly the descriptions New refuses (drives without
// factory bad blocks), without building them.
func TestCheckAgreesWithNew(t *testing.T) {
	base, err := controller.Preset("generic-mlc-small")
	require.NoError(t, err)
	refused, built := 0, 0
	for _, op := range []float64{3, 7, 10, 15, 28} {
		for _, dpt := range []int{1, 2, 4} {
			for _, low := range []int{1, 2, 8} {
				cfg := base.Resized(2<<30, op)
				cfg.NAND.Geometry.DiesPerTarget = dpt
				cfg.Firmware.GCLowWater = low
				cfg.Firmware.GCHighWater = max(cfg.Firmware.GCHighWater, low)
				t.Run(fmt.Sprintf("op%v-dpt%d-low%d", op, dpt, low), func(t *testing.T) {
					_, cerr := cfg.Check()
					_, nerr := controller.New(cfg)
					if nerr == nil {
						built++
						assert.NoError(t, cerr)
						return
					}
					refused++
					require.Error(t, cerr, "New refuses: %v", nerr)
					assert.Equal(t, nerr.Error(), cerr.Error())
				})
			}
		}
	}
	assert.Positive(t, refused, "the grid has descriptions New refuses")
	assert.Positive(t, built, "and descriptions it builds")
}
