package ftl

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/nand"
)

// TestVictimDataDriven runs the victim-choice cases of
// testdata/victim_*.txt, in the style of pebble's compaction-picker tests:
// each case describes the groups of a die as a policy sees them and asks
// policies for their victim. After changing a policy or a case, regenerate
// the expected output and review the diff:
//
//	go test -run TestVictimDataDriven ./ftl -rewrite
//
// Commands:
//
//	die [dies=N] [groups=N] [pages=N] [planes=N] [clock=N] [seed=N] [slc=1] [spread=N]
//	gN STATE [pages=N] [valid=N] [closed=N] [erases=N] [queued=1]
//	...
//
// describes a device (defaults: 1 die of 8 groups, 4 pages of 4 units on 1
// plane, so a group holds 16 units; clock 0; seed 1) and one line per group
// that is not free, by global group number (die d has groups d×groups to
// (d+1)×groups−1). STATE is free, open (pages programmed, default half of
// them, and busy being written: the host's open group), full (every page
// programmed, a candidate) or cleaning (full and busy being cleaned);
// for victim selection also gc (the die's open GC group, as open),
// retired (retired for a failed program, default half programmed, and in
// the die's retire queue, in the order of the lines), bad (retired for
// good; queued=1: still in the retire queue) and, with slc=1 (an SLC
// cache: on MLC flash an SLC group holds half the pages), slc (a full SLC
// group). valid is the valid units (default every programmed unit),
// closed the write clock when the group was filled, erases its erase
// count; spread is Config.StaticWLSpread. The output is the die as View
// shows it to policies.
//
//	victim [die=N] [policy=(NAME, ...)] [seeds=N]
//
// asks each policy (ParsePolicy's names; default greedy, fifo,
// cost-benefit, random, d-choices:3) for die N's victim, each on a freshly
// built FTL so that randomised policies start from the seed. With seeds=N
// the randomised policies are asked once for each seed 1..N and the output
// counts their choices. A policy that returns a group that is not one of
// the die's candidates fails the test.
//
//	victim [die=N] path=(PATH, ...) [policy=NAME] [round=N]
//
// runs victim selection (chooseVictim) for each collection path —
// blocking, paced, background, fold, wear, reclaim — on a freshly built
// FTL whose policy is NAME (default greedy), round being blocking
// collection's rounds so far (default 0), and prints which stage chose
// which group and why (see pipelineCase).
func TestVictimDataDriven(t *testing.T) {
	files, err := filepath.Glob("testdata/victim_*.txt")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			var s *victimCase
			datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
				switch td.Cmd {
				case "die":
					c, err := parseVictimCase(td)
					if err != nil {
						td.Fatalf(t, "%v", err)
					}
					s = c
					return s.view(t)
				case "victim":
					if s == nil {
						td.Fatalf(t, "victim before die")
					}
					return s.victims(t, td)
				}
				td.Fatalf(t, "unknown command %q", td.Cmd)
				return ""
			})
		})
	}
}

// groupCase is one group of a victimCase.
type groupCase struct {
	state  string // free, open, full, cleaning, gc, retired, bad or slc
	pages  int    // pages programmed
	valid  int    // valid units
	closed uint64 // write clock when filled
	erases int
	queued bool // bad: still in the retire queue
}

// victimCase is a device and the state of its groups.
type victimCase struct {
	dies, groups, pages, planes int
	clock, seed                 uint64
	slc                         bool        // an SLC cache
	spread                      int         // Config.StaticWLSpread
	g                           []groupCase // by global group number
	queue                       []int       // the retire queue's groups, in the lines' order
}

const victimUnitsPerPage = 4 // geometry's 16 KiB pages of 4 KiB units

func parseVictimCase(td *datadriven.TestData) (*victimCase, error) {
	c := &victimCase{dies: 1, groups: 8, pages: 4, planes: 1, seed: 1}
	for _, a := range td.CmdArgs {
		if len(a.Vals) != 1 {
			return nil, fmt.Errorf("die %s: want one number", a)
		}
		v, err := strconv.ParseUint(a.Vals[0], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("die %s: not a number", a)
		}
		switch a.Key {
		case "dies":
			c.dies = int(v)
		case "groups":
			c.groups = int(v)
		case "pages":
			c.pages = int(v)
		case "planes":
			c.planes = int(v)
		case "clock":
			c.clock = v
		case "seed":
			c.seed = v
		case "slc":
			c.slc = v != 0
		case "spread":
			c.spread = int(v)
		default:
			return nil, fmt.Errorf("die: unknown argument %q (allowed dies, groups, pages, planes, clock, seed, slc, spread)", a.Key)
		}
	}
	c.g = make([]groupCase, c.dies*c.groups)
	for i := range c.g {
		c.g[i].state = "free"
	}
	for _, line := range strings.Split(strings.TrimSpace(td.Input), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		n, err := strconv.Atoi(strings.TrimPrefix(f[0], "g"))
		if err != nil || !strings.HasPrefix(f[0], "g") || n < 0 || n >= len(c.g) {
			return nil, fmt.Errorf("%q: a group is g0..g%d", line, len(c.g)-1)
		}
		if len(f) < 2 {
			return nil, fmt.Errorf("%q: no state (free, open, full, cleaning)", line)
		}
		g := groupCase{state: f[1]}
		switch g.state {
		case "free":
		case "open", "gc", "retired":
			g.pages = c.pages / 2
		case "full", "cleaning", "bad":
			g.pages = c.pages
		case "slc":
			if !c.slc {
				return nil, fmt.Errorf("%q: an slc group needs die slc=1", line)
			}
			g.pages = c.pages / 2
		default:
			return nil, fmt.Errorf("%q: state %q, allowed free, open, full, cleaning, gc, retired, bad, slc", line, g.state)
		}
		g.valid = -1
		for _, kv := range f[2:] {
			k, val, ok := strings.Cut(kv, "=")
			v, err := strconv.ParseUint(val, 10, 64)
			if !ok || err != nil {
				return nil, fmt.Errorf("%q: %q is not key=number", line, kv)
			}
			switch k {
			case "pages":
				g.pages = int(v)
			case "valid":
				g.valid = int(v)
			case "closed":
				g.closed = v
			case "erases":
				g.erases = int(v)
			case "queued":
				g.queued = v != 0 && g.state == "bad"
			default:
				return nil, fmt.Errorf("%q: unknown key %q (allowed pages, valid, closed, erases, queued)", line, k)
			}
		}
		if g.state == "retired" || g.queued {
			c.queue = append(c.queue, n)
		}
		units := g.pages * c.planes * victimUnitsPerPage
		if g.valid < 0 {
			g.valid = units
		}
		full := c.pages
		if g.state == "slc" {
			full = c.pages / 2
		}
		if g.valid > units || g.pages > full || g.closed > c.clock ||
			((g.state == "open" || g.state == "gc") && (g.pages == 0 || g.pages == c.pages)) {
			return nil, fmt.Errorf("%q: inconsistent (pages ≤ %d, open groups partly programmed, valid ≤ programmed units, closed ≤ clock %d)", line, c.pages, c.clock)
		}
		c.g[n] = g
	}
	return c, nil
}

// build returns an FTL in the case's state, its random source seeded
// with seed.
func (c *victimCase) build(t *testing.T, seed uint64) *FTL { return c.buildWith(t, seed, nil) }

// victimSLCTiming is the harness's flash with an SLC mode: MLC, so an SLC
// group holds half a native group's pages.
var victimSLCTiming = func() nand.Timing {
	tm := timing
	tm.SLCReadNs, tm.SLCProgNs, tm.SLCRatedCycles = 25_000, 200_000, 30_000
	return tm
}()

// buildWith is build with victim policy p (nil: greedy).
func (c *victimCase) buildWith(t *testing.T, seed uint64, p VictimPolicy) *FTL {
	t.Helper()
	g := geometry(c.dies, c.planes, c.groups, c.pages)
	require.Equal(t, victimUnitsPerPage, g.UnitsPerPage())
	// The FTL's own configuration does not matter to the policies; the
	// smallest that validates on a few groups.
	cfg := Config{UserUnits: 1, GCHighWater: 1, Seed: seed, Victim: p, StaticWLSpread: c.spread}
	tm := timing
	if c.slc {
		cfg.SLCDynamicGroups, tm = 1, victimSLCTiming
	}
	f := newFTLOn(t, g, tm, false, cfg)
	dev := f.Device()
	closedAt := make([]uint64, len(c.g))
	busy := make([]bool, len(c.g))
	tags := make([]uint32, g.UnitsPerPage())
	for n, gc := range c.g {
		for p := range c.planes {
			pb := dev.Block(n, p)
			for range gc.erases {
				require.NoError(t, dev.Erase(pb))
			}
			require.NoError(t, dev.SetSLC(pb, gc.state == "slc"))
			for page := range gc.pages {
				require.NoError(t, dev.Program(pb, page, tags, nil))
			}
		}
		// The group's programmed units come first; invalidate the first
		// of them until valid remain.
		base := int64(n) * int64(g.UnitsPerGroup())
		for u := range gc.pages*c.planes*victimUnitsPerPage - gc.valid {
			require.NoError(t, dev.Invalidate(base+int64(u)))
		}
		closedAt[n] = gc.closed
		busy[n] = gc.state == "open" || gc.state == "cleaning" || gc.state == "gc"
	}
	setVictimState(f, c.clock, closedAt, busy)
	c.setPipelineState(f)
	return f
}

// setPipelineState gives f the rest of the case's state that victim
// selection reads, beyond what policies see: the free lists, the open
// groups, the groups retired and queued, the SLC groups.
func (c *victimCase) setPipelineState(f *FTL) {
	f.nfree = 0
	for d := range f.free {
		f.free[d] = f.free[d][:0]
		for n := d * c.groups; n < (d+1)*c.groups; n++ {
			if c.g[n].state == "free" {
				f.free[d] = append(f.free[d], int32(n))
				f.nfree++
			}
		}
	}
	for n, gc := range c.g {
		d := n / c.groups
		switch gc.state {
		case "open":
			f.open[HostStream][d] = int32(n)
		case "gc":
			f.open[GCStream][d] = int32(n)
		case "bad":
			f.bad[n] = true
		case "slc":
			f.slc[n] = true
			f.slcCount[d]++
		}
	}
	if len(c.queue) > 0 {
		f.failing = make([]bool, len(c.g))
		f.retireQ = make([][]int32, c.dies)
		for _, n := range c.queue {
			f.failing[n] = c.g[n].state == "retired"
			d := n / c.groups
			f.retireQ[d] = append(f.retireQ[d], int32(n))
		}
	}
}

// setVictimState is the test's access to the FTL's internals that
// policies see (the rest of their state is made through the device): the
// write clock and, per group, the clock when it was filled and whether it
// is busy (open for writing or being cleaned).
func setVictimState(f *FTL, clock uint64, closedAt []uint64, busy []bool) {
	f.seq = clock
	copy(f.closedAt, closedAt)
	copy(f.busy, busy)
}

// view prints every die as View shows it to a policy.
func (c *victimCase) view(t *testing.T) string {
	f := c.build(t, c.seed)
	v := View{f}
	var b strings.Builder
	for d := range c.dies {
		first, n := v.Groups(d)
		fmt.Fprintf(&b, "die %d: groups g%d-g%d of %d units, clock %d\n", d, first, first+n-1, v.Capacity(), v.Clock())
		var free []string
		for g := first; g < first+n; g++ {
			st := v.State(g)
			if st == nand.Free && v.EraseCount(g) == 0 {
				free = append(free, "g"+strconv.Itoa(g))
				continue
			}
			fmt.Fprintf(&b, "  g%d %s valid=%d", g, st, v.Valid(g))
			if st == nand.Full {
				fmt.Fprintf(&b, " closed=%d age=%d", v.ClosedAt(g), v.Clock()-v.ClosedAt(g))
			}
			fmt.Fprintf(&b, " erases=%d", v.EraseCount(g))
			if st := c.g[g].state; st == "gc" || st == "retired" || st == "bad" || st == "slc" {
				b.WriteString(" " + st) // beyond what a policy sees
			}
			if v.Candidate(g) {
				b.WriteString(" candidate")
			} else {
				b.WriteString(" not-candidate")
			}
			b.WriteString("\n")
		}
		if len(free) > 0 {
			fmt.Fprintf(&b, "  free: %s\n", strings.Join(free, " "))
		}
	}
	return b.String()
}

var defaultVictimPolicies = []string{"greedy", "fifo", "cost-benefit", "random", "d-choices:3"}

// victims asks policies for a die's victim.
func (c *victimCase) victims(t *testing.T, td *datadriven.TestData) string {
	die, seeds := 0, 0
	td.MaybeScanArgs(t, "die", &die)
	td.MaybeScanArgs(t, "seeds", &seeds)
	if die < 0 || die >= c.dies {
		td.Fatalf(t, "die=%d: the case has dies 0..%d", die, c.dies-1)
	}
	if td.HasArg("path") {
		return c.pipeline(t, td, die)
	}
	names := defaultVictimPolicies
	if a, ok := td.Arg("policy"); ok {
		names = a.Vals
	}
	ask := func(name string, seed uint64) string {
		p, err := ParsePolicy(name)
		if err != nil {
			td.Fatalf(t, "%v", err)
		}
		f := c.build(t, seed)
		v := View{f}
		g := p.Victim(v, die)
		if g == -1 {
			return "none"
		}
		if first, n := v.Groups(die); g < first || g >= first+n || !v.Candidate(g) {
			td.Fatalf(t, "%s chose g%d, not a candidate of die %d", name, g, die)
		}
		return "g" + strconv.Itoa(g)
	}
	var b strings.Builder
	for _, name := range names {
		p, err := ParsePolicy(name)
		if err != nil {
			td.Fatalf(t, "%v", err)
		}
		if seeds == 0 {
			fmt.Fprintf(&b, "%s: %s\n", p.Name(), ask(name, c.seed))
			continue
		}
		count := map[string]int{}
		var order []string
		for s := 1; s <= seeds; s++ {
			g := ask(name, uint64(s))
			if count[g] == 0 {
				order = append(order, g)
			}
			count[g]++
		}
		slices.SortFunc(order, func(a, b string) int { return cmp.Compare(victimNumber(a), victimNumber(b)) })
		fmt.Fprintf(&b, "%s, seeds 1-%d:", p.Name(), seeds)
		for _, g := range order {
			fmt.Fprintf(&b, " %s×%d", g, count[g])
		}
		b.WriteString("\n")
	}
	return b.String()
}

// victimNumber returns N of "gN", -1 for "none".
func victimNumber(x string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(x, "g"))
	if err != nil {
		return -1
	}
	return n
}
