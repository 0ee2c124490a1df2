package model

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
)

// floats is a float slice whose JSON form writes a non-finite value
// (NaN: missing) as null and reads null back as NaN: encoding/json refuses
// NaN, and model files keep missing feature values.
type floats []float64

// MarshalJSON implements json.Marshaler.
func (f floats) MarshalJSON() ([]byte, error) {
	if f == nil {
		return []byte("null"), nil
	}
	var b bytes.Buffer
	b.WriteByte('[')
	for i, v := range f {
		if i > 0 {
			b.WriteByte(',')
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			b.WriteString("null")
		} else {
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		}
	}
	b.WriteByte(']')
	return b.Bytes(), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (f *floats) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*f = nil
		return nil
	}
	var raw []*float64
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	out := make(floats, len(raw))
	for i, p := range raw {
		if p == nil {
			out[i] = math.NaN()
		} else {
			out[i] = *p
		}
	}
	*f = out
	return nil
}
