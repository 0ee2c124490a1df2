package model

import (
	"errors"
	"fmt"
	"testing"
)

func TestForEachOrderAndFirstError(t *testing.T) {
	for _, w := range []int{1, 2, 7} {
		out := make([]int, 50)
		if err := ForEach(len(out), w, func(i int) error { out[i] = i * i; return nil }); err != nil {
			t.Fatal(err)
		}
		for i, v := range out {
			if v != i*i {
				t.Fatalf("%d workers: out[%d] = %d", w, i, v)
			}
		}
		err := ForEach(50, w, func(i int) error {
			if i == 13 || i == 31 {
				return fmt.Errorf("index %d", i)
			}
			return nil
		})
		if err == nil || err.Error() != "index 13" {
			t.Fatalf("%d workers: error %v, want that of index 13", w, err)
		}
	}
	if err := ForEach(0, 4, func(int) error { return errors.New("called") }); err != nil {
		t.Fatal(err)
	}
}
