//go:build !race

package clitest

// Race is whether the race detector is on.
const Race = false
