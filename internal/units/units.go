// Package units parses and formats the sizes and durations that fio
// options, drive descriptions and the command share.
package units

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ErrSyntax is wrapped by every parse error.
var ErrSyntax = errors.New("malformed value")

// ParseSize parses a byte count in fio's notation: a number with an
// optional suffix k, m, g, t, p (powers of 1024, case-insensitive, an
// optional trailing "b" or "ib"). With decimal set, suffixes spelled with
// "B" but not "iB" (KB, MB, GB, TB) are powers of 1000, as drive makers
// count; fio's kb_base=1024 treats them as powers of 1024.
func ParseSize(s string, decimal bool) (int64, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, fmt.Errorf("%w: empty size", ErrSyntax)
	}
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, suf := t[:i], strings.TrimSpace(t[i:])
	if num == "" {
		return 0, fmt.Errorf("%w: size %q: no number", ErrSyntax, s)
	}
	v, err := ParseFloat(num)
	if err != nil {
		return 0, fmt.Errorf("%w: size %q", ErrSyntax, s)
	}
	mult := float64(1)
	if suf != "" {
		l := strings.ToLower(suf)
		base := float64(1024)
		unit := l
		switch {
		case strings.HasSuffix(l, "ib"):
			unit = l[:len(l)-2]
		case strings.HasSuffix(l, "b") && len(l) > 1:
			unit = l[:len(l)-1]
			if decimal {
				base = 1000
			}
		case l == "b":
			unit = ""
		}
		p := strings.Index("kmgtp", unit)
		if unit != "" && (len(unit) != 1 || p < 0) {
			return 0, fmt.Errorf("%w: size %q: unknown suffix %q (use k, m, g, t, p, KiB…, or KB… )", ErrSyntax, s, suf)
		}
		if unit != "" {
			mult = math.Pow(base, float64(p+1))
		}
	}
	b := v * mult
	if b > math.MaxInt64/2 || b != math.Trunc(b) {
		return 0, fmt.Errorf("%w: size %q is not a whole number of bytes in range", ErrSyntax, s)
	}
	return int64(b), nil
}

// ParseDuration parses a time in fio's notation: a number of seconds, or
// a number with suffix ns, us, ms, s, m, h or d. It returns nanoseconds.
func ParseDuration(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, suf := t[:i], t[i:]
	v, err := ParseFloat(num)
	if err != nil || num == "" {
		return 0, fmt.Errorf("%w: duration %q", ErrSyntax, s)
	}
	var mult float64
	switch suf {
	case "ns":
		mult = 1
	case "us", "usec":
		mult = 1e3
	case "ms", "msec":
		mult = 1e6
	case "", "s", "sec":
		mult = 1e9
	case "m", "min":
		mult = 60e9
	case "h":
		mult = 3600e9
	case "d":
		mult = 86400e9
	default:
		return 0, fmt.Errorf("%w: duration %q: unknown suffix %q (use ns, us, ms, s, m, h, d)", ErrSyntax, s, suf)
	}
	ns := v * mult
	if ns > float64(math.MaxInt64)/4 {
		return 0, fmt.Errorf("%w: duration %q is too long", ErrSyntax, s)
	}
	return int64(ns), nil
}

// FormatBytes renders n with a binary suffix, e.g. "256 GiB", "4 KiB".
func FormatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	f, exp := float64(n), 0
	for f >= unit && exp < 5 {
		f /= unit
		exp++
	}
	s := strconv.FormatFloat(f, 'f', 2, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s + " " + string("KMGTP"[exp-1]) + "iB"
}

// ErrNotFinite is the error ParseFloat returns for NaN and infinities.
var ErrNotFinite = errors.New("not a finite number")

// ParseFloat parses a decimal number as strconv.ParseFloat does, but
// refuses NaN and ±Inf (spelled out, or a value beyond float64's range):
// a user's number is always finite, so that comparisons with a range,
// which a NaN passes, keep their meaning.
func ParseFloat(s string) (float64, error) {
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, err
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("%q: %w", s, ErrNotFinite)
	}
	return x, nil
}
