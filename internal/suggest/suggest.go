// Package suggest finds the known names closest to a mistyped one, for
// "did you mean" answers to unknown options, scenarios and parameters.
package suggest

import (
	"slices"
	"strings"
)

// maxSuggestions bounds how many names Closest returns.
const maxSuggestions = 3

// Closest returns the names of known nearest to name by edit distance
// (insertions, deletions, substitutions and swaps of two neighbouring
// characters each count one; case is ignored), at most three, sorted. A
// name further than a third of its length (at least 1, at most 3 edits)
// from every known name has no suggestion; so has an empty name.
func Closest(name string, known []string) []string {
	name = strings.ToLower(name)
	if name == "" {
		return nil
	}
	limit := min(3, max(1, len([]rune(name))/3))
	best := limit + 1
	var out []string
	for _, k := range known {
		d := Distance(name, strings.ToLower(k))
		switch {
		case d < best:
			best, out = d, append(out[:0], k)
		case d == best && !slices.Contains(out, k):
			out = append(out, k)
		}
	}
	slices.Sort(out)
	if len(out) > maxSuggestions {
		out = out[:maxSuggestions]
	}
	return out
}

// DidYouMean returns " (did you mean A?)", " (did you mean A or B?)"
// or " (did you mean A, B or C?)" for the names closest to name, each
// written with prefix before it (such as "--"), or "" when none is close.
func DidYouMean(name string, known []string, prefix string) string {
	c := Closest(name, known)
	if len(c) == 0 {
		return ""
	}
	for i := range c {
		c[i] = prefix + c[i]
	}
	list := c[0]
	if len(c) > 1 {
		list = strings.Join(c[:len(c)-1], ", ") + " or " + c[len(c)-1]
	}
	return " (did you mean " + list + "?)"
}

// Distance is the optimal-string-alignment distance between a and b:
// the fewest insertions, deletions, substitutions and transpositions of
// neighbouring characters that turn a into b, no character edited twice.
func Distance(a, b string) int {
	s, t := []rune(a), []rune(b)
	// Three rows of the dynamic programme: i-2, i-1 and i.
	prev2 := make([]int, len(t)+1)
	prev := make([]int, len(t)+1)
	cur := make([]int, len(t)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(s); i++ {
		cur[0] = i
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(t)]
}
