package sim_test

import (
	"testing"

	"github.com/ftlsim/ftlsim/sim"
)

func TestZZProfIdle(t *testing.T) {
	e := sim.New(smallDrive(t, nil))
	e.SecureErase()
	_, err := e.RunJob(job(t, "rw", "randwrite", "number_ios", "3", "thinktime", "2000000000000"), sim.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
}
