// Package policy is part of coloc; see DESIGN.md for its place in the pipeline.
package policy
