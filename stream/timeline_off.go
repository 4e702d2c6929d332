//go:build !timeline

package stream

import "io"

// Mark does nothing: see timeline.go.
func Mark(string) {}

// WriteTimeline does nothing: see timeline.go.
func WriteTimeline(io.Writer) {}
