//go:build unix

package main

import capturekit "github.com/cairn-audit/cairn/scripts/capturekit/oldkit"

// What this harness shares with the other capture harnesses (package
// capturekit): the want.json model, the shape of a JSON value, the offline
// check and the demo project.
type (
	check   = capturekit.Check
	checks  = capturekit.Checks
	verdict = capturekit.Verdict
	verr    = capturekit.Error
)

var (
	invalidAt  = capturekit.InvalidAt
	updateWant = capturekit.UpdateWant
	shapeValue = capturekit.ShapeValue
	fatal      = capturekit.Fatal
	four       = capturekit.Four
)

func onlyLoopback() error { return capturekit.OnlyLoopback("scripts/opencode-real/run.sh") }

func layWorkDir() error { return capturekit.LayWorkDir(workDir) }
