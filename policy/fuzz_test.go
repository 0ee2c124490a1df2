package policy

import (
	"bytes"
	"testing"
)

// FuzzDecode feeds arbitrary bytes to the policy reader. It must never
// panic; a policy it accepts must encode (Encode checks it as Decode does)
// and the encoding must decode again to the same bytes. Seeds: the test
// fixture, cut and edited, and the corpus under testdata/fuzz/FuzzDecode
// (run as a normal test by `go test`).
func FuzzDecode(f *testing.F) {
	data := readFixture(f)
	f.Add(data)
	f.Add(data[:len(data)/2])
	f.Add(bytes.Replace(data, []byte(`"version": 1,`), []byte(`"version": 1, "version": 1,`), 1))
	f.Add(bytes.Replace(data, []byte(`"max_per_gpu": 2`), []byte(`"max_per_gpu": 9223372036854775807`), 1))
	f.Add(bytes.Replace(data, []byte(`"min_normalized": 0.8`), []byte(`"min_normalized": 1e999`), 1))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Decode(bytes.NewReader(data), "fuzz.json")
		if err != nil {
			return
		}
		b, err := Encode(p.File)
		if err != nil {
			t.Fatalf("Decode accepted a policy Encode refuses: %v", err)
		}
		back, err := Decode(bytes.NewReader(b), "back.json")
		if err != nil {
			t.Fatalf("the encoding of an accepted policy does not decode: %v", err)
		}
		if b2, err := Encode(back.File); err != nil || !bytes.Equal(b, b2) {
			t.Fatalf("encode-decode-encode changed the bytes (%v)", err)
		}
	})
}
