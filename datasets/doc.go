// Package datasets is the data model of coloc: the five tables every stage
// reads and writes (runs, samples, solo, pairs, scaling), their versioned
// Arrow IPC files, validation, importers of public measurements, and merge.
// It depends on nothing else of coloc.
package datasets
