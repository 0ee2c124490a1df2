// Package features is part of coloc; see DESIGN.md for its place in the pipeline.
package features
