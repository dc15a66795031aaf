package fioreport

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
)

// NumericKeyed is a JSON object whose keys are numbers — fio's percentile
// object ("99.900000": latency) and json+ bins ("1024": count). It
// encodes in numeric order, as fio writes them (a plain map would put
// "5.000000" after "40.000000").
type NumericKeyed map[string]int64

// keys returns p's keys in numeric order.
func (p NumericKeyed) keys() []string {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, errA := strconv.ParseFloat(keys[i], 64)
		b, errB := strconv.ParseFloat(keys[j], 64)
		if errA != nil || errB != nil || a == b {
			return keys[i] < keys[j]
		}
		return a < b
	})
	return keys
}

// MarshalJSON implements json.Marshaler.
func (p NumericKeyed) MarshalJSON() ([]byte, error) {
	keys := p.keys()
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		b.WriteString(strconv.FormatInt(p[k], 10))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
