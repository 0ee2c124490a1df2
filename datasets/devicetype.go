package datasets

import "strings"

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
