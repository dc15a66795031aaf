package workload

// The options of zoned block devices (fio's zonemode=zbd and its zone
// options) and of data placement (fio's fdp, dataplacement, plids,
// plid_select), and their checks against what the drive reports.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ZoneLayout is a zoned drive's namespace as a host sees it (Identify
// Namespace and Report Zones): what zonemode=zbd jobs are checked
// against and lay their zones out by.
type ZoneLayout struct {
	// ZoneBytes is the zone size (ZSZE), CapacityBytes the writable part
	// of each zone from its start (ZCAP).
	ZoneBytes, CapacityBytes int64
	// Zones is how many there are, from offset 0.
	Zones int
	// MaxOpen and MaxActive are the open and active zone limits (MOR+1,
	// MAR+1); 0: no limit.
	MaxOpen, MaxActive int
}

// PlacementMode is the directive a job's writes carry (fio's
// dataplacement).
type PlacementMode uint8

// Placement modes; the device side sends FDP's as NVMe's DTYPE 2h
// (Data Placement) and streams' as DTYPE 1h.
const (
	PlacementNone PlacementMode = iota
	PlacementFDP
	PlacementStreams
)

// ZBD is how a zonemode=zbd job uses a zoned drive, as fio's zbd.c does:
// sequential writes within each zone at its write pointer, random across
// zones; reads below the write pointer; a trim resets a zone.
type ZBD struct {
	// On is zonemode=zbd.
	On bool
	// ZoneCapacity is fio's zonecapacity: the writable part of a zone
	// when the drive does not report one (ignored on a zoned drive,
	// which does, as in fio); 0: the zone size.
	ZoneCapacity int64
	// ReadBeyondWP lets reads go past the write pointer (fio's
	// read_beyond_wp); by default reads stay in written data.
	ReadBeyondWP bool
	// MaxOpenZones limits the zones all jobs write at once (fio's
	// max_open_zones; 0: the drive's limit), JobMaxOpenZones those this
	// job writes at once (0: none). IgnoreZoneLimits lets MaxOpenZones
	// exceed the drive's limit (fio's ignore_zone_limits).
	MaxOpenZones, JobMaxOpenZones int
	IgnoreZoneLimits              bool
	// ResetThreshold and ResetFrequency are fio's zone_reset_threshold
	// and zone_reset_frequency: once the valid data in the write zones of
	// the range passes ResetThreshold of its size, one write in every
	// 1/ResetFrequency resets its zone first.
	ResetThreshold, ResetFrequency float64
	// Host is the host's view of the drive's zones, shared by the zbd
	// jobs of a run (NewZoneHost); set once the drive is known.
	Host       *ZoneHost
	maxOpenSet bool
}

// Placement is how a job's writes carry placement identifiers (fio's
// dataplacement, plids, plid_select), as fio's dataplacement.c gives
// them: each write (never a read or a trim) carries the next of PIDs in
// turn, or one of them at random.
type Placement struct {
	// Mode is the directive writes carry (fio's dataplacement: fdp,
	// streams; none by default).
	Mode PlacementMode
	// IDs are indices into the placement identifiers the drive reports
	// (fio's plids, fdp_pli): for FDP, not the identifiers themselves;
	// nil: all the drive reports. With streams they are the stream
	// identifiers.
	IDs []int
	// Random picks one of IDs at random for each write (fio's
	// plid_select=random); else they are taken in turn (roundrobin).
	Random bool
	// PIDs are the identifiers the writes carry (the DSPEC of their
	// directive), set by CheckPlacement: for FDP those the drive reports
	// at IDs, for streams IDs themselves. Nil: writes carry no directive.
	PIDs []uint16
	// Scheme picks each write's identifier by its offset (fio's
	// plid_select=scheme): that of the first of SchemeRanges holding the
	// offset, 0 (the default handle) when none does; IDs are then not
	// used for the choice. SchemeFile is the file of the ranges (fio's
	// dp_scheme), which ReadPlacementScheme reads into SchemeRanges.
	Scheme       bool
	SchemeFile   string
	SchemeRanges []PlacementRange
}

// PlacementRange is one entry of fio's dp_scheme file: writes at offsets
// in [Start, End) carry placement identifier PID.
type PlacementRange struct {
	Start, End int64
	PID        uint16
}

// maxSchemeRanges is fio's DP_MAX_SCHEME_ENTRIES: the entries of a
// dp_scheme file it reads.
const maxSchemeRanges = 32

// maxPlacementIDs is fio's FIO_MAX_DP_IDS: the most identifiers a job
// uses.
const maxPlacementIDs = 128

var zoneOptions = []Option{
	{Name: "read_beyond_wp", Kind: KindBool, Values: "0|1", Field: "Target.ZBD.ReadBeyondWP", WorkloadOnly: true,
		Help:      "zonemode=zbd: let reads go past a zone's write pointer (default: reads stay in written data)",
		boolField: func(j *Job) *bool { return &j.ZBD.ReadBeyondWP }},
	{Name: "zonecapacity", Kind: KindSize, Field: "Target.ZBD.ZoneCapacity",
		Help: "zonemode=zbd: the writable part of each zone when the drive reports none (a zoned drive reports its own)",
		set:  func(j *Job, v string) error { return setPositiveSize(&j.ZBD.ZoneCapacity, v) }},
	{Name: "max_open_zones", Kind: KindInt, Min: 0, Max: 4096, Field: "Target.ZBD.MaxOpenZones",
		Help: "zonemode=zbd: zones written at once by all jobs (default the drive's limit, at most it unless ignore_zone_limits; 0..4096)",
		set: func(j *Job, v string) error {
			j.ZBD.maxOpenSet = true
			return setInt(&j.ZBD.MaxOpenZones, v, 0, 4096)
		}},
	{Name: "job_max_open_zones", Kind: KindInt, Min: 0, Max: 4096, Field: "Target.ZBD.JobMaxOpenZones",
		Help:     "zonemode=zbd: zones this job writes at once (0: no limit of its own; needs a global limit)",
		intField: func(j *Job) *int { return &j.ZBD.JobMaxOpenZones }},
	{Name: "ignore_zone_limits", Kind: KindBool, Values: "0|1", Field: "Target.ZBD.IgnoreZoneLimits",
		Help:      "zonemode=zbd: let max_open_zones exceed the drive's open-zone limit",
		boolField: func(j *Job) *bool { return &j.ZBD.IgnoreZoneLimits }},
	{Name: "zone_reset_threshold", Kind: KindText, Values: "a ratio in [0, 1]", Field: "Target.ZBD.ResetThreshold", WorkloadOnly: true,
		Help: "zonemode=zbd: the share of the range's size the valid data of its write zones must pass before zone_reset_frequency resets zones",
		set:  func(j *Job, v string) error { return setRatio(&j.ZBD.ResetThreshold, v) }},
	{Name: "zone_reset_frequency", Kind: KindText, Values: "a ratio in [0, 1]", Field: "Target.ZBD.ResetFrequency", WorkloadOnly: true,
		Help: "zonemode=zbd: past zone_reset_threshold, reset the zone of one write in every 1/f first",
		set:  func(j *Job, v string) error { return setRatio(&j.ZBD.ResetFrequency, v) }},
}

var placementOptions = []Option{
	{Name: "dataplacement", Aliases: []string{"data_placement"}, Kind: KindChoice, Values: "none|fdp|streams", Field: "Target.Placement.Mode",
		Help: "none, fdp (writes carry FDP placement identifiers) or streams (stream identifiers)",
		set: func(j *Job, v string) error {
			switch strings.ToLower(strings.TrimSpace(v)) {
			case "none":
				j.Placement.Mode = PlacementNone
			case "fdp":
				j.Placement.Mode = PlacementFDP
			case "streams":
				j.Placement.Mode = PlacementStreams
			default:
				return fmt.Errorf("%q: allowed none, fdp, streams", v)
			}
			return nil
		}},
	{Name: "fdp", Kind: KindBool, Values: "0|1", Field: "Target.Placement.Mode",
		Help: "1: dataplacement=fdp", set: func(j *Job, v string) error {
			var on bool
			if err := setBool(&on, v); err != nil {
				return err
			}
			j.Placement.Mode = PlacementNone
			if on {
				j.Placement.Mode = PlacementFDP
			}
			return nil
		}},
	{Name: "plids", Aliases: []string{"fdp_pli"}, Kind: KindList, Values: "indices and ranges: 0,2-4,7", Field: "Target.Placement.IDs",
		Help: "the placement identifiers writes use, as indices into those the drive reports (default all, at most 128)",
		set: func(j *Job, v string) (err error) {
			j.Placement.IDs, err = parseIndexList(v, maxPlacementIDs)
			return
		}},
	{Name: "plid_select", Aliases: []string{"fdp_pli_select"}, Kind: KindChoice, Values: "roundrobin|random|scheme", Field: "Target.Placement.Random",
		Help: "which of plids each write takes: in turn (roundrobin, the default), at random, or by its offset from the dp_scheme file (scheme)", set: func(j *Job, v string) error {
			switch strings.ToLower(strings.TrimSpace(v)) {
			case "roundrobin":
				j.Placement.Random, j.Placement.Scheme = false, false
			case "random":
				j.Placement.Random, j.Placement.Scheme = true, false
			case "scheme":
				j.Placement.Random, j.Placement.Scheme = false, true
			default:
				return fmt.Errorf("%q: allowed roundrobin, random, scheme", v)
			}
			return nil
		}},
	{Name: "dp_scheme", Kind: KindText, Values: "a file of 'start, end, pid' lines", Field: "Target.Placement.SchemeFile", WorkloadOnly: true,
		Help: "plid_select=scheme: the file of offset ranges and the placement identifier writes in each carry (the first 32 lines)",
		set: func(j *Job, v string) error {
			j.Placement.SchemeFile, j.Placement.SchemeRanges = strings.TrimSpace(v), nil
			return nil
		}},
}

// ReadPlacementScheme reads the job's dp_scheme file with read
// (os.ReadFile, or ReadIncludedFile), as fio's init_ruh_scheme does: up
// to 32 lines of "start, end, pid" (offsets in bytes), stopping at the
// first line that is not one. A job not selecting by scheme reads
// nothing.
func (j *Job) ReadPlacementScheme(read func(string) ([]byte, error)) error {
	p := &j.Placement
	if !p.Scheme || p.Mode == PlacementNone {
		return nil
	}
	if p.SchemeFile == "" {
		return fmt.Errorf("%w: plid_select=scheme: needs dp_scheme=FILE", ErrOption)
	}
	b, err := read(p.SchemeFile)
	if err != nil {
		return fmt.Errorf("%w: dp_scheme=%s: %w", ErrOption, p.SchemeFile, err)
	}
	p.SchemeRanges = p.SchemeRanges[:0]
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Split(line, ",")
		if len(f) != 3 {
			break
		}
		start, e1 := strconv.ParseUint(strings.TrimSpace(f[0]), 10, 63)
		end, e2 := strconv.ParseUint(strings.TrimSpace(f[1]), 10, 63)
		pid, e3 := strconv.ParseUint(strings.TrimSpace(f[2]), 10, 16)
		if e1 != nil || e2 != nil || e3 != nil {
			break
		}
		if len(p.SchemeRanges) == maxSchemeRanges {
			j.Notes = append(j.Notes, fmt.Sprintf("dp_scheme=%s: too many scheme entries; only the first %d are applied (as fio)", p.SchemeFile, maxSchemeRanges))
			break
		}
		p.SchemeRanges = append(p.SchemeRanges, PlacementRange{Start: int64(start), End: int64(end), PID: uint16(pid)})
	}
	if len(p.SchemeRanges) == 0 {
		return fmt.Errorf("%w: dp_scheme=%s: no 'start, end, pid' line", ErrOption, p.SchemeFile)
	}
	return nil
}

// setRatio sets a ratio in [0, 1].
func setRatio(p *float64, v string) error {
	x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || x < 0 || x > 1 {
		return fmt.Errorf("%q: must be a number in [0, 1]", v)
	}
	*p = x
	return nil
}

// parseIndexList reads fio's list of indices and ranges (1,2-4,5), each
// below limit; at most limit entries.
func parseIndexList(v string, limit int) ([]int, error) {
	var out []int
	for _, p := range strings.Split(v, ",") {
		p = strings.TrimSpace(p)
		lo, hi, isRange := strings.Cut(p, "-")
		a, err := strconv.Atoi(strings.TrimSpace(lo))
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(strings.TrimSpace(hi))
		}
		if err != nil || a < 0 || b < a {
			return nil, fmt.Errorf("%q: want indices and ranges such as 0,2-4", p)
		}
		for i := a; i <= b; i++ {
			if i >= limit || len(out) >= limit {
				return nil, fmt.Errorf("%q: at most %d identifiers, each below %d", v, limit, limit)
			}
			out = append(out, i)
		}
	}
	return out, nil
}

// CheckZones checks a zonemode=zbd job against the zones the drive
// reports (nil: a conventional drive), as fio's zbd.c checks them, and
// fixes the job's open-zone limit. The errors are fio's.
func (j *Job) CheckZones(z *ZoneLayout) error {
	if !j.ZBD.On {
		return nil
	}
	if z == nil {
		return fmt.Errorf("%w: zonemode=zbd: the drive is conventional, not a zoned block device", ErrOption)
	}
	if j.set["zonesize"] && j.ZoneSize != z.ZoneBytes {
		return fmt.Errorf("%w: zonesize=%d: does not match the device zone size %d", ErrOption, j.ZoneSize, z.ZoneBytes)
	}
	j.ZoneSize = z.ZoneBytes
	if j.ZoneSkip%z.ZoneBytes != 0 {
		return fmt.Errorf("%w: zoneskip=%d: must be a multiple of the zone size %d in zonemode=zbd", ErrOption, j.ZoneSkip, z.ZoneBytes)
	}
	switch {
	case !j.ZBD.maxOpenSet:
		j.ZBD.MaxOpenZones = z.MaxOpen
	case z.MaxOpen > 0 && !j.ZBD.IgnoreZoneLimits && j.ZBD.MaxOpenZones > z.MaxOpen:
		return fmt.Errorf("%w: max_open_zones=%d: larger than the device's %d open zones (fio: Specified --max_open_zones (%d) is larger than max (%d)); ignore_zone_limits=1 allows it",
			ErrOption, j.ZBD.MaxOpenZones, z.MaxOpen, j.ZBD.MaxOpenZones, z.MaxOpen)
	case j.ZBD.MaxOpenZones == 0 && z.MaxOpen > 0 && !j.ZBD.IgnoreZoneLimits:
		j.ZBD.MaxOpenZones = z.MaxOpen
	}
	if j.Pattern == SeqTrim || j.Pattern == RandTrim || j.Pattern == TrimWrite {
		if ts := j.Sizes(2); len(ts) != 1 {
			return fmt.Errorf("%w: bssplit: bsrange and bssplit are not allowed for trim with zonemode=zbd", ErrOption)
		} else if ts[0].Bytes != z.ZoneBytes {
			return fmt.Errorf("%w: bs=%d: trim block size %d is not the zone size %d (zonemode=zbd: a trim resets a zone)", ErrOption, ts[0].Bytes, ts[0].Bytes, z.ZoneBytes)
		}
	}
	if j.ZBD.JobMaxOpenZones > 0 && j.ZBD.MaxOpenZones == 0 {
		return fmt.Errorf("%w: job_max_open_zones=%d: cannot be used without a global open zones limit (max_open_zones)", ErrOption, j.ZBD.JobMaxOpenZones)
	}
	return nil
}

// CheckPlacement checks a job's placement identifiers against those the
// drive reports (pids, from its reclaim unit handle status; nil on a
// drive without FDP) and sets the identifiers its writes carry
// (Placement.PIDs), as fio's dp_init does: plids index pids ("PID index
// must be smaller than"), no plids take all of them (at most 128). On a
// drive with none the job runs without, with a note saying so. Streams'
// identifiers are the plids themselves, which fio requires.
func (j *Job) CheckPlacement(pids []uint16) error {
	p := &j.Placement
	p.PIDs = nil
	switch {
	case p.Mode == PlacementNone:
		return nil
	case p.Scheme && len(p.SchemeRanges) == 0:
		return fmt.Errorf("%w: plid_select=scheme: the dp_scheme file %q is not read (Job.ReadPlacementScheme)", ErrOption, p.SchemeFile)
	case p.Mode == PlacementStreams:
		if len(p.IDs) == 0 {
			return fmt.Errorf("%w: dataplacement=streams: stream IDs must be provided (plids)", ErrOption)
		}
		for _, id := range p.IDs {
			p.PIDs = append(p.PIDs, uint16(id))
		}
		j.Notes = append(j.Notes, "dataplacement=streams: the writes carry their stream identifiers, but the drive models no Streams directive and places them as any other")
		return nil
	case len(pids) == 0:
		j.Notes = append(j.Notes, "dataplacement: the drive reports no placement identifiers (it has no FDP): the writes carry none")
		j.Placement = Placement{}
		return nil
	}
	for _, i := range p.IDs {
		if i >= len(pids) {
			return fmt.Errorf("%w: plids: PID index %d must be smaller than %d, the identifiers the drive reports", ErrOption, i, len(pids))
		}
	}
	if p.IDs == nil {
		p.PIDs = slices.Clone(pids[:min(len(pids), maxPlacementIDs)]) // fio: all the drive reports
		return nil
	}
	for _, i := range p.IDs {
		p.PIDs = append(p.PIDs, pids[i])
	}
	return nil
}
