package nand

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// testReliability is a model with every term on.
func testReliability() Reliability {
	return Reliability{FreshRBER: 1e-8, RatedRBER: 1e-4, WearExponent: 2, RetentionRBER: 5e-4,
		DisturbRBER: 1e-4, RetrySteps: 5, RetryGain: 2}
}

func TestRetentionNorm(t *testing.T) {
	require.InDelta(t, math.Log1p(float64(RetentionYear)/float64(RetentionHour)), retentionNorm, 1e-12)
	require.Zero(t, RetentionFactor(0))
	require.Zero(t, RetentionFactor(-5))
	require.InDelta(t, 1, RetentionFactor(RetentionYear), 1e-12)
}

// The RBER follows its formula's terms, each at the point where the
// configuration states it.
func TestRBERAtItsParameters(t *testing.T) {
	r := testReliability()
	const rated = 3000
	cases := []struct {
		name   string
		erases int
		age    int64
		reads  uint32
		want   float64
	}{
		{"fresh", 0, 0, 0, r.FreshRBER},
		{"rated", rated, 0, 0, r.RatedRBER},
		{"half life: the power law", rated / 2, 0, 0, r.FreshRBER + (r.RatedRBER-r.FreshRBER)*0.25},
		{"rated, a year of retention", rated, RetentionYear, 0, r.RatedRBER + r.RetentionRBER},
		{"rated, disturbed", rated, 0, DisturbReads, r.RatedRBER + r.DisturbRBER},
		{"rated, both", rated, RetentionYear, 2 * DisturbReads, r.RatedRBER + r.RetentionRBER + 2*r.DisturbRBER},
		{"fresh, a year: scaled by wear", 0, RetentionYear, 0, r.FreshRBER * (1 + r.RetentionRBER/r.RatedRBER)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.InEpsilon(t, c.want, r.RBER(rated, c.erases, c.age, c.reads), 1e-12)
		})
	}
	require.Zero(t, Reliability{}.RBER(rated, rated, RetentionYear, 1e6), "no model: no errors")
	require.Equal(t, 0.5, Reliability{RatedRBER: 0.1, RetentionRBER: 0.1}.RBER(1, 10, RetentionYear*100, 0), "capped at 0.5")
}

func TestRBERIsMonotonic(t *testing.T) {
	r := testReliability()
	const rated = 3000
	prev := 0.0
	for e := 0; e <= 2*rated; e += 100 {
		v := r.RBER(rated, e, RetentionHour, 10)
		require.Greater(t, v, prev, "erases %d", e)
		prev = v
	}
	prev = 0
	for age := RetentionHour / 60; age <= 10*RetentionYear; age *= 2 {
		v := r.RBER(rated, rated, age, 0)
		require.Greater(t, v, prev, "age %d", age)
		prev = v
	}
	prev = 0
	for reads := uint32(1); reads <= 1e7; reads *= 3 {
		v := r.RBER(rated, rated, 0, reads)
		require.Greater(t, v, prev, "reads %d", reads)
		prev = v
	}
}

func TestRBERParts(t *testing.T) {
	r := testReliability()
	wear, shift := r.Parts(3000, 3000, RetentionYear, 0)
	require.InEpsilon(t, r.RatedRBER, wear, 1e-12)
	require.InEpsilon(t, r.RetentionRBER, shift, 1e-12)
	require.Equal(t, 1.0, Reliability{RatedRBER: 1e-4}.Exponent())
	require.Equal(t, 2.0, Reliability{RatedRBER: 1e-4}.Gain())
	lin := Reliability{RatedRBER: 1e-4}
	require.InEpsilon(t, 0.5e-4, lin.RBER(100, 50, 0, 0), 1e-12, "exponent 0: linear")
	cube := Reliability{RatedRBER: 1e-4, WearExponent: 3}
	require.InEpsilon(t, 0.125e-4, cube.RBER(100, 50, 0, 0), 1e-12)
}

func TestReliabilityValidate(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(*Reliability)
		field string
	}{
		{"negative rate", func(r *Reliability) { r.RetentionRBER = -1 }, "reliability.retention_rber"},
		{"rate above 0.1", func(r *Reliability) { r.RatedRBER = 0.2 }, "reliability.rated_rber"},
		{"NaN", func(r *Reliability) { r.DisturbRBER = math.NaN() }, "reliability.read_disturb_rber"},
		{"fresh above rated", func(r *Reliability) { r.FreshRBER = 1e-3 }, "reliability.fresh_rber"},
		{"exponent", func(r *Reliability) { r.WearExponent = 11 }, "reliability.wear_exponent"},
		{"retry steps", func(r *Reliability) { r.RetrySteps = 65 }, "reliability.read_retry_steps"},
		{"retry gain", func(r *Reliability) { r.RetryGain = 0.5 }, "reliability.read_retry_gain"},
		{"fields without the model", func(r *Reliability) { r.RatedRBER, r.FreshRBER = 0, 0 }, "reliability.rated_rber"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := testReliability()
			c.edit(&r)
			err := r.Validate()
			require.ErrorIs(t, err, ErrConfig)
			require.Contains(t, err.Error(), c.field)
		})
	}
	require.NoError(t, testReliability().Validate())
	require.NoError(t, Reliability{}.Validate())
	cfg := testConfig()
	cfg.Reliability.RatedRBER = -1
	require.ErrorContains(t, cfg.Validate(), "reliability.rated_rber")
}

func TestAgeTracking(t *testing.T) {
	cfg := testConfig()
	d, err := New(cfg)
	require.NoError(t, err)
	d.NoteRead(0, 2)
	d.SetProgramTime(0, 2, 5)
	require.Zero(t, d.ReadsSinceErase(0), "not tracked without TrackAge")
	require.Zero(t, d.ProgramTime(0))

	cfg.TrackAge = true
	d, err = New(cfg)
	require.NoError(t, err)
	require.NoError(t, d.Program(0, 0, tags(1, 2, 3, 4), nil))
	d.SetProgramTime(0, 2, 1000)
	d.NoteRead(0, 2)
	d.NoteRead(1, 1)
	require.Equal(t, uint32(1), d.ReadsSinceErase(0))
	require.Equal(t, uint32(2), d.ReadsSinceErase(1))
	require.Equal(t, int64(1000), d.ProgramTime(1))
	d.Bake(400)
	require.Equal(t, int64(600), d.ProgramTime(0), "a programmed block ages")
	require.Equal(t, int64(1000), d.ProgramTime(1), "an erased one does not")
	require.NoError(t, d.Invalidate(0))
	require.NoError(t, d.Invalidate(1))
	require.NoError(t, d.Invalidate(2))
	require.NoError(t, d.Invalidate(3))
	require.NoError(t, d.Erase(0))
	require.Zero(t, d.ReadsSinceErase(0), "an erase resets read disturb")
	require.Equal(t, uint32(2), d.ReadsSinceErase(1))
}

func TestPreWear(t *testing.T) {
	d, err := New(testConfig())
	require.NoError(t, err)
	require.NoError(t, d.PreWear(1500))
	require.Equal(t, 0.5, d.Wear().Life)
	require.NoError(t, d.PreWear(100), "never lowers a count")
	require.Equal(t, 1500, d.Wear().Min)
	require.ErrorIs(t, d.PreWear(-1), ErrRange)
}
