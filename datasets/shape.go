package datasets

import (
	"fmt"
	"strconv"
	"strings"
)

// spreadSuffix marks a device type whose measurements were taken with a
// job's GPUs spread over servers rather than on one (Gavel's
// "v100_unconsolidated"): the one textual form of a spread placement
// shape in the tables. SpreadType writes it and BaseType reads it; no
// other code spells it.
const spreadSuffix = "_unconsolidated"

// SpreadType is the device type of a placement of gpuType's GPUs spread
// over more than one server ("v100" -> "v100_unconsolidated").
func SpreadType(gpuType string) string { return gpuType + spreadSuffix }

// BaseType returns the GPU type of a device type and whether the device
// type is a spread one ("v100_unconsolidated" -> "v100", true).
func BaseType(deviceType string) (gpuType string, spread bool) {
	return strings.CutSuffix(deviceType, spreadSuffix)
}

// Shape is where a job runs: how many GPUs of which type, and whether
// they span more than one server. It is the key every stage shares: the
// tables spell it as a device type (Device) and a degree, the simulator
// and the placement read rates by it, a model's slots are shapes.
//
// Its one textual form (String, read back by ParseShape) is the device
// type alone for one GPU and the device type, "x" and the degree for more
// ("v100", "v100x2", "v100_unconsolidatedx4"). A device type that itself
// ends in "x" and digits ("rtx3090") or holds an "@" would read back as
// another shape, so such a type is written with "@" before the degree at
// every degree ("rtx3090@1", "rtx3090@2"). Every shape has one name, read
// back without knowing the device types; ParseShape also takes the "@"
// form for any device type ("v100@2" is v100x2).
type Shape struct {
	GPUType string
	GPUs    int
	Spread  bool // the GPUs are on more than one server
}

// ShapeOf is the shape a table's device type and degree name
// ("v100_unconsolidated", 4 -> 4 v100 GPUs spread).
func ShapeOf(device string, degree int) Shape {
	t, spread := BaseType(device)
	return Shape{GPUType: t, GPUs: degree, Spread: spread}
}

// Device is the shape's device type as the tables spell it: SpreadType of
// its GPU type when spread, else its GPU type. A reader of rates treats a
// single GPU as never spread (rates.Device); the name keeps what the
// shape says.
func (s Shape) Device() string {
	if s.Spread {
		return SpreadType(s.GPUType)
	}
	return s.GPUType
}

// String is the shape's name (see Shape).
func (s Shape) String() string {
	dev := s.Device()
	switch {
	case explicitDegree(dev):
		return dev + "@" + strconv.Itoa(s.GPUs)
	case s.GPUs == 1:
		return dev
	}
	return dev + "x" + strconv.Itoa(s.GPUs)
}

// explicitDegree reports whether a device type must be written with "@"
// before the degree: it ends in "x" and a degree ("rtx3090"), or holds
// an "@".
func explicitDegree(dev string) bool {
	_, _, ok := cutDegree(dev, 'x')
	return ok || strings.Contains(dev, "@")
}

// cutDegree splits name at its last sep into a non-empty prefix and a
// positive degree without leading zeros.
func cutDegree(name string, sep byte) (string, int, bool) {
	i := strings.LastIndexByte(name, sep)
	if i <= 0 || i+1 >= len(name) || name[i+1] == '0' {
		return "", 0, false
	}
	d, err := strconv.Atoi(name[i+1:])
	if err != nil || d < 1 {
		return "", 0, false
	}
	return name[:i], d, true
}

// ParseShape reads a shape's textual form (String): "<device>@<degree>",
// else "<device>x<degree>", else a device type at one GPU.
func ParseShape(name string) (Shape, error) {
	if name == "" {
		return Shape{}, fmt.Errorf("empty shape name: want a device type, e.g. v100, v100x2 or rtx3090@2")
	}
	if strings.Contains(name, "@") {
		dev, d, ok := cutDegree(name, '@')
		if !ok {
			return Shape{}, fmt.Errorf("shape %q: want <device type>@<degree>, the degree a positive integer", name)
		}
		return ShapeOf(dev, d), nil
	}
	if dev, d, ok := cutDegree(name, 'x'); ok {
		return ShapeOf(dev, d), nil
	}
	return ShapeOf(name, 1), nil
}
