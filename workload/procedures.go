package workload

import (
	"fmt"
	"strings"

	"github.com/ftlsim/ftlsim/internal/units"
)

// The review procedures that prepare a drive (see the reviews' methodology):
// a sequential fill writes every user LBA once with 128 KiB writes at
// queue depth 1; torture follows it with 4 KiB random writes over every LBA
// at queue depth 32; seasoning follows it with a disk image restored over
// every LBA (SeasonJobs).

// FillJob returns the reviews' sequential fill of a drive: 128 KiB
// sequential writes at QD 1 over the whole user capacity, once.
func FillJob() *Job {
	j := NewJob("fill")
	j.Pattern = SeqWrite
	j.BS = []BlockSize{{128 << 10, 100}}
	j.IODepth = 1
	return j
}

// RandomWriteJob returns 4 KiB random writes at QD 32 over the whole user
// capacity for runtimeNs, with independent uniform offsets (norandommap),
// as Iometer issues them: the reviews' torture and consistency workload.
func RandomWriteJob(name string, runtimeNs int64) *Job {
	j := NewJob(name)
	j.Pattern = RandWrite
	j.IODepth = 32
	j.RuntimeNs = runtimeNs
	j.TimeBased = true
	j.NoRandomMap = true
	return j
}

// PreconditionKind is the preparation a Precondition runs. The zero value
// is PreconditionNone.
type PreconditionKind uint8

// Precondition kinds.
const (
	PreconditionNone    PreconditionKind = iota // no preparation
	PreconditionFill                            // a sequential fill (FillJob)
	PreconditionTorture                         // a fill, then random writes (RandomWriteJob)
	PreconditionSeason                          // a fill, then an image restored over it (SeasonJobs)
)

// preconditionKinds are the kinds' names, by kind.
var preconditionKinds = [...]string{PreconditionNone: "none", PreconditionFill: "fill", PreconditionTorture: "torture", PreconditionSeason: "season"}

// String returns "none", "fill", "torture" or "season"
// ("PreconditionKind(N)" for a value that is none of them).
func (k PreconditionKind) String() string {
	if int(k) < len(preconditionKinds) {
		return preconditionKinds[k]
	}
	return fmt.Sprintf("PreconditionKind(%d)", uint8(k))
}

// ParsePreconditionKind parses "none", "fill", "torture" (without a
// duration: see ParsePrecondition) or "season".
func ParsePreconditionKind(s string) (PreconditionKind, error) {
	for k, name := range preconditionKinds {
		if s == name {
			return PreconditionKind(k), nil
		}
	}
	return 0, fmt.Errorf("%w: precondition kind %q, allowed none, fill, torture, season", ErrOption, s)
}

// valid reports whether k is one of the kinds.
func (k PreconditionKind) valid() bool { return int(k) < len(preconditionKinds) }

// MarshalText implements encoding.TextMarshaler; a value that is not a
// kind is an error.
func (k PreconditionKind) MarshalText() ([]byte, error) {
	if !k.valid() {
		return nil, fmt.Errorf("%w: precondition kind %d, allowed none, fill, torture, season", ErrOption, uint8(k))
	}
	return []byte(k.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler with
// ParsePreconditionKind.
func (k *PreconditionKind) UnmarshalText(b []byte) error {
	v, err := ParsePreconditionKind(string(b))
	if err != nil {
		return err
	}
	*k = v
	return nil
}

// Precondition names a preparation run before a measured job.
type Precondition struct {
	Kind      PreconditionKind
	TortureNs int64 // random-write time after the fill, for torture
	// Offset and Size limit the preparation to a range, in fio's syntax
	// ("75%", "16g"); empty means the whole drive. Spare area made by
	// partitioning prepares only the partition.
	Offset, Size string
}

// DefaultTortureNs is the reviews' shorter torture: 30 minutes.
const DefaultTortureNs = 1800 * 1e9

// ParsePrecondition parses none, fill, torture, torture:DURATION or
// season.
func ParsePrecondition(s string) (Precondition, error) {
	name, dur, hasDur := strings.Cut(s, ":")
	kind, err := ParsePreconditionKind(name)
	if err != nil {
		return Precondition{}, fmt.Errorf("%w: precondition=%s: allowed none, fill, torture[:DURATION], season", ErrOption, s)
	}
	if kind != PreconditionTorture {
		if hasDur {
			return Precondition{}, fmt.Errorf("%w: precondition=%s: only torture takes a duration", ErrOption, s)
		}
		return Precondition{Kind: kind}, nil
	}
	p := Precondition{Kind: kind, TortureNs: DefaultTortureNs}
	if hasDur {
		ns, err := units.ParseDuration(dur)
		if err != nil || ns <= 0 {
			return Precondition{}, fmt.Errorf("%w: precondition=%s: duration must be positive (e.g. torture:30m)", ErrOption, s)
		}
		p.TortureNs = ns
	}
	return p, nil
}

// Jobs returns the jobs the precondition runs, in order (none for
// PreconditionNone). A Kind that is not one of the kinds is an error.
func (p Precondition) Jobs() ([]*Job, error) {
	var jobs []*Job
	switch p.Kind {
	case PreconditionNone:
	case PreconditionFill:
		jobs = []*Job{FillJob()}
	case PreconditionTorture:
		jobs = []*Job{FillJob(), RandomWriteJob("torture", p.TortureNs)}
	case PreconditionSeason:
		jobs = SeasonJobs()
	default:
		return nil, fmt.Errorf("%w: precondition kind %d, allowed none, fill, torture, season", ErrOption, uint8(p.Kind))
	}
	for _, j := range jobs {
		for _, kv := range [][2]string{{"offset", p.Offset}, {"size", p.Size}} {
			if kv[1] == "" {
				continue
			}
			if err := j.Set(kv[0], kv[1]); err != nil {
				return nil, fmt.Errorf("precondition %s: %w", j.Name, err)
			}
		}
	}
	return jobs, nil
}
