package workload

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// HostFacts are the values fio's keywords stand for in a job file:
// $pagesize (bytes), $mb_memory (MiB of memory) and $ncpus. Zero means
// unknown: a job file that uses that keyword is refused.
type HostFacts struct {
	PageSize int64
	MBMemory int64
	NCPUs    int64
}

// keywords are fio's reserved words in option values, in the order fio
// replaces them.
var keywords = []string{"$pagesize", "$mb_memory", "$ncpus"}

func (h HostFacts) value(kw string) int64 {
	switch kw {
	case "$pagesize":
		return h.PageSize
	case "$mb_memory":
		return h.MBMemory
	}
	return h.NCPUs
}

// expandValue rewrites an option value as fio does before parsing it: each
// keyword is replaced by its value, and a value that then holds + - * or /
// is computed in integers (fio hands it to bc); a value that starts with
// "(" is an arithmetic expression whose numbers may carry size suffixes
// (k, m, g, t, p: powers of 1024), computed to a number of bytes.
func expandValue(v string, h HostFacts) (string, error) {
	replaced := false
	for _, kw := range keywords {
		if !strings.Contains(v, kw) {
			continue
		}
		n := h.value(kw)
		if n <= 0 {
			return "", fmt.Errorf("%s: this machine's value is unknown", kw)
		}
		v = strings.ReplaceAll(v, kw, strconv.FormatInt(n, 10))
		replaced = true
	}
	switch {
	case replaced && strings.ContainsAny(v, "+-*/"):
		n, err := evalExpr(v, false)
		if err != nil {
			return "", err
		}
		return strconv.FormatInt(n, 10), nil
	case strings.HasPrefix(v, "("):
		n, err := evalExpr(v, true)
		if err != nil {
			return "", err
		}
		return strconv.FormatInt(n, 10), nil
	}
	return v, nil
}

// errExpr is wrapped by every arithmetic error.
var errExpr = errors.New("arithmetic")

// evalExpr computes an integer expression: + - * / % ^ (power), unary
// minus and parentheses, with the usual precedence; division truncates,
// as bc's does at scale 0. With suffixes, a number may end in a size
// suffix (k, m, g, t, p, with or without b; KiB… are powers of 1000, as
// fio's expression parser reads them).
func evalExpr(s string, suffixes bool) (int64, error) {
	p := exprParser{s: s, suffixes: suffixes}
	n, err := p.sum()
	if err == nil {
		p.space()
		if p.i < len(p.s) {
			err = fmt.Errorf("%w: %q: unexpected %q", errExpr, s, p.s[p.i:])
		}
	}
	return n, err
}

type exprParser struct {
	s        string
	i        int
	suffixes bool
}

func (p *exprParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *exprParser) peek() byte {
	p.space()
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *exprParser) fail(what string) error {
	return fmt.Errorf("%w: %q: %s at column %d", errExpr, p.s, what, p.i+1)
}

func (p *exprParser) sum() (int64, error) {
	a, err := p.product()
	for err == nil {
		op := p.peek()
		if op != '+' && op != '-' {
			break
		}
		p.i++
		var b int64
		if b, err = p.product(); err == nil {
			if op == '-' {
				b = -b
			}
			if (b > 0 && a > math.MaxInt64-b) || (b < 0 && a < math.MinInt64-b) {
				return 0, p.fail("overflow")
			}
			a += b
		}
	}
	return a, err
}

func (p *exprParser) product() (int64, error) {
	a, err := p.power()
	for err == nil {
		op := p.peek()
		if op != '*' && op != '/' && op != '%' {
			break
		}
		p.i++
		var b int64
		if b, err = p.power(); err != nil {
			break
		}
		switch op {
		case '*':
			if a != 0 && (a*b/a != b || (a == -1 && b == math.MinInt64)) {
				return 0, p.fail("overflow")
			}
			a *= b
		default:
			if b == 0 {
				return 0, p.fail("division by zero")
			}
			if op == '/' {
				a /= b
			} else {
				a %= b
			}
		}
	}
	return a, err
}

func (p *exprParser) power() (int64, error) {
	a, err := p.unary()
	if err != nil || p.peek() != '^' {
		return a, err
	}
	p.i++
	b, err := p.power() // right associative
	if err != nil {
		return 0, err
	}
	if b < 0 {
		return 0, p.fail("negative exponent")
	}
	r := int64(1)
	for range b {
		if a != 0 && (r*a/a != r) {
			return 0, p.fail("overflow")
		}
		r *= a
		if r == 0 || r == 1 {
			break
		}
	}
	return r, nil
}

func (p *exprParser) unary() (int64, error) {
	switch p.peek() {
	case '-':
		p.i++
		a, err := p.unary()
		return -a, err
	case '+':
		p.i++
		return p.unary()
	case '(':
		p.i++
		a, err := p.sum()
		if err != nil {
			return 0, err
		}
		if p.peek() != ')' {
			return 0, p.fail("missing )")
		}
		p.i++
		return a, nil
	}
	return p.number()
}

func (p *exprParser) number() (int64, error) {
	p.space()
	start := p.i
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
	if start == p.i {
		return 0, p.fail("a number expected")
	}
	n, err := strconv.ParseInt(p.s[start:p.i], 10, 64)
	if err != nil {
		return 0, p.fail("number out of range")
	}
	if !p.suffixes {
		return n, nil
	}
	j := p.i
	for j < len(p.s) && (p.s[j] >= 'a' && p.s[j] <= 'z' || p.s[j] >= 'A' && p.s[j] <= 'Z') {
		j++
	}
	suffix := strings.ToLower(p.s[p.i:j])
	if suffix == "" {
		return n, nil
	}
	mult := map[string]int64{"k": 1 << 10, "kb": 1 << 10, "m": 1 << 20, "mb": 1 << 20, "g": 1 << 30, "gb": 1 << 30,
		"t": 1 << 40, "tb": 1 << 40, "p": 1 << 50, "pb": 1 << 50, "kib": 1e3, "mib": 1e6, "gib": 1e9, "pib": 1e12}[suffix]
	if mult == 0 {
		return 0, p.fail(fmt.Sprintf("size suffix %q unknown (k, m, g, t, p; time suffixes are not read inside ( ))", suffix))
	}
	p.i = j
	if n > math.MaxInt64/mult {
		return 0, p.fail("overflow")
	}
	return n * mult, nil
}
