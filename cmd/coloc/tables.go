package main

import (
	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/features"
	"github.com/coloc-dev/coloc/model/eval"
	"github.com/coloc-dev/coloc/profile/sampler"
)

// otherTables are the table files besides the five dataset tables that the
// datasets commands (inspect, validate, export) read: feature sets
// (coloc features build), evaluation results (coloc eval -o) and Nsight
// Compute kernels (coloc profile import-ncu). Each is checked by the
// package that writes it.
var otherTables = []datasets.OtherKind{
	{Kind: features.TableName, Version: features.Version, Check: func(p string) error { _, err := features.Read(p); return err }},
	{Kind: eval.TableName, Version: eval.TableVersion, Check: func(p string) error { _, err := eval.Read(p); return err }},
	{Kind: sampler.NCUTableName, Version: sampler.NCUVersion, Check: func(p string) error { _, err := sampler.ReadNCU(p); return err }},
}

// readTable reads and validates a table file of any kind coloc writes.
func readTable(path string) (*datasets.Table, error) { return datasets.ReadAny(path, otherTables...) }
