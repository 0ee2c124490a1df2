package datasets

// Hooks for the external test package of this directory (parquet_test.go,
// the tests of datasets/export): the fixtures and the interop harness of
// the datasets tests, under exported names.
var (
	SamplePairs = samplePairs
	SampleRuns  = sampleRuns
	InteropNode = interopNode
	SameValue   = sameValue
)
