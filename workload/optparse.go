package workload

// Parsers of option values shared by the job options.

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ftlsim/ftlsim/internal/units"
)

// maxMicroseconds is the longest bare time microseconds takes: the
// longest units.ParseDuration does, so that both forms of an option agree.
const maxMicroseconds = math.MaxInt64 / 4 / 1000

// microseconds parses a time whose bare numbers are microseconds (fio's
// thinktime) or that carries a unit.
func microseconds(v string) (int64, error) {
	v = strings.TrimSpace(v)
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 || n > maxMicroseconds {
			return 0, fmt.Errorf("%q: must be 0 to %d microseconds", v, int64(maxMicroseconds))
		}
		return n * 1000, nil
	}
	return units.ParseDuration(v)
}

func setInt(dst *int, v string, lo, hi int) error {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < lo || n > hi {
		return fmt.Errorf("%q: must be an integer in %d..%d", v, lo, hi)
	}
	*dst = n
	return nil
}

func setSize(dst *int64, v string) error {
	b, err := units.ParseSize(v, false)
	if err != nil {
		return err
	}
	*dst = b
	return nil
}

func setPositiveSize(dst *int64, v string) error {
	b, err := units.ParseSize(v, false)
	if err == nil && b <= 0 {
		err = fmt.Errorf("%q: must be a positive size", v)
	}
	if err != nil {
		return err
	}
	*dst = b
	return nil
}

func setBool(dst *bool, v string) error {
	switch strings.ToLower(v) {
	case "", "1", "true", "yes", "on":
		*dst = true
	case "0", "false", "no", "off":
		*dst = false
	default:
		return fmt.Errorf("%q: must be 0 or 1", v)
	}
	return nil
}

// oneForAll reads fio's per-direction form "r,w,t" of an option ftlsim
// applies to every direction alike: the values given must agree.
func oneForAll(name, v string) (string, error) {
	parts := strings.Split(v, ",")
	for _, p := range parts[1:] {
		if strings.TrimSpace(p) != strings.TrimSpace(parts[0]) {
			return "", fmt.Errorf("%q: %s is one value for every direction here; per-direction values (r,w,t) must all be given and agree", v, name)
		}
	}
	return strings.TrimSpace(parts[0]), nil
}

// setSizes sets the block sizes from fio's per-direction form "r,w,t",
// each part parsed by parse: one part applies to every direction; with
// more, reads take the first (an empty one keeps the read sizes), writes
// the second, and trims the third or, when it is left out, the writes'.
func (j *Job) setSizes(v string, parse func(string) ([]BlockSize, error)) error {
	parts := strings.Split(v, ",")
	if len(parts) > 3 {
		return fmt.Errorf("%q: at most three sizes, for reads, writes and trims", v)
	}
	var dir [3][]BlockSize
	for i, p := range parts {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		bs, err := parse(p)
		if err != nil {
			return err
		}
		dir[i] = bs
	}
	if dir[0] == nil && dir[1] == nil && dir[2] == nil {
		return fmt.Errorf("%q: no size given", v)
	}
	if len(parts) == 1 {
		j.BS, j.BSDir = dir[0], [3][]BlockSize{}
		return nil
	}
	if dir[0] != nil {
		j.BS = dir[0]
	}
	if dir[2] == nil {
		dir[2] = dir[1]
	}
	j.BSDir = [3][]BlockSize{nil, dir[1], dir[2]}
	return nil
}

// ParseBSSplit parses fio's bssplit: size/percent pairs separated by
// colons. Percentages left out share what remains; the total must be 100.
func ParseBSSplit(s string) ([]BlockSize, error) {
	if strings.Contains(s, ",") {
		return nil, fmt.Errorf("%q: one list here (a job's bssplit takes r,w,t lists)", s)
	}
	var out []BlockSize
	var sum float64
	blank := 0
	for _, p := range strings.Split(s, ":") {
		sz, pc, hasPC := strings.Cut(p, "/")
		b, err := units.ParseSize(sz, false)
		if err != nil {
			return nil, err
		}
		bs := BlockSize{Bytes: b, Percent: -1}
		if hasPC && pc != "" {
			v, err := units.ParseFloat(pc)
			if err != nil || v < 0 || v > 100 {
				return nil, fmt.Errorf("%q: percentage %q must be in 0..100", s, pc)
			}
			bs.Percent = v
			sum += v
		} else {
			blank++
		}
		out = append(out, bs)
	}
	if sum > 100+1e-9 || (blank == 0 && sum < 100-1e-9) {
		return nil, fmt.Errorf("%q: percentages sum to %g, must be 100", s, sum)
	}
	for i := range out {
		if out[i].Percent < 0 {
			out[i].Percent = (100 - sum) / float64(blank)
		}
	}
	return out, nil
}

// bsRange is fio's bsrange=lo-hi: sizes drawn between lo and hi in
// multiples of lo (fio aligns a drawn size down to the smallest size),
// each equally likely here.
func bsRange(lo, hi string) ([]BlockSize, error) {
	a, err := units.ParseSize(strings.TrimSpace(lo), false)
	if err != nil {
		return nil, err
	}
	b, err := units.ParseSize(strings.TrimSpace(hi), false)
	if err != nil {
		return nil, err
	}
	if a <= 0 || b < a {
		return nil, fmt.Errorf("%s-%s: want 0 < lo <= hi", lo, hi)
	}
	n := b / a
	if n > 4096 {
		return nil, fmt.Errorf("%s-%s: at most 4096 sizes (multiples of lo)", lo, hi)
	}
	out := make([]BlockSize, 0, n)
	for k := int64(1); k <= n; k++ {
		out = append(out, BlockSize{Bytes: k * a, Percent: 100 / float64(n)})
	}
	return out, nil
}
