package datasets

import (
	"math"
	"strconv"
	"time"
)

// formatFloat prints a float in the shortest form that reads back exactly.
func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// formatTime prints ns since the epoch as RFC 3339 with nanoseconds, UTC.
func formatTime(ns int64) string { return time.Unix(0, ns).UTC().Format(time.RFC3339Nano) }

var nanValue = math.NaN()
