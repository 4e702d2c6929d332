//go:build race

package clitest

// Race is whether the race detector is on: it changes what escapes to the
// heap, so allocation counts mean nothing under it, and it slows the
// largest tests past their worth.
const Race = true
