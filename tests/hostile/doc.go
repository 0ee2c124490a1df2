// Package hostile is the suite of hostile inputs: for every reader of
// outside input coloc has, hundreds of generated files that are not what
// the reader expects (not files at all, empty, cut short, bits flipped,
// numbers no format allows, values the docs call invalid). Each must be
// read without a panic and within 10 seconds, and each invalid one must be
// refused. The suite writes the table of what it ran into docs/safety.md
// (go test ./tests/hostile -update) and fails when the table there is
// stale, so the page says what is true. `make test` runs it, as every
// package.
package hostile
