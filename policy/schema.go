package policy

import (
	_ "embed"
)

//go:embed policy.schema.json
var schema []byte

// Schema returns the JSON Schema (draft 2020-12) of the policy file,
// policy.schema.json, as carried by this package: a copy, the caller's to
// keep. Package policy/schema validates files against it.
func Schema() []byte { return append([]byte(nil), schema...) }
