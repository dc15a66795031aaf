package workload

import (
	"math/rand/v2"

	"github.com/ftlsim/ftlsim/blockio"
)

// placer gives a job's writes their placement directive, as fio's
// dp_fill_dspec_data does: the job's placement identifiers in turn
// (plid_select=roundrobin), one at random for each write (random), or
// the one its dp_scheme range gives the write's offset (scheme). The
// zero placer gives none.
type placer struct {
	pids   []uint16
	scheme []PlacementRange
	dir    blockio.DirectiveType
	loc    int        // roundrobin: the next identifier's index
	rng    *rand.Rand // random: a source of its own (fio's fdp_state), so that the job's offsets stay those it has without placement
}

// newPlacer returns the placer of a job whose identifiers CheckPlacement
// has set; without them, the zero placer.
func newPlacer(j *Job) placer {
	p := j.Placement
	if len(p.PIDs) == 0 || p.Mode == PlacementNone {
		return placer{}
	}
	pl := placer{pids: p.PIDs, dir: blockio.DirectivePlacement}
	if p.Scheme {
		pl.scheme = p.SchemeRanges
	}
	if p.Mode == PlacementStreams {
		pl.dir = blockio.DirectiveStreams
	}
	if p.Random {
		pl.rng = rand.New(rand.NewPCG(j.RandSeed^0x6664705f73746174, j.RandSeed+0x9e3779b97f4a7c15))
	}
	return pl
}

// next returns the directive and identifier of the next write, at
// offset off.
func (p *placer) next(off int64) (blockio.DirectiveType, uint16) {
	if p.scheme != nil {
		for _, r := range p.scheme {
			if off >= r.Start && off < r.End {
				return p.dir, r.PID
			}
		}
		return p.dir, 0 // no range holds it: the default handle, as fio
	}
	if p.rng != nil {
		return p.dir, p.pids[p.rng.IntN(len(p.pids))]
	}
	if p.loc >= len(p.pids) {
		p.loc = 0
	}
	id := p.pids[p.loc]
	p.loc++
	return p.dir, id
}
