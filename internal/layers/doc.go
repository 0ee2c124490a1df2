// Package layers holds no code: its test checks the import rule of the
// whole module, written once in docs/architecture.md (every package imports
// only packages on lower layers; third-party modules only where listed).
// Run it with
//
//	go test ./internal/layers
package layers
