//go:build timeline

package stream

import (
	"fmt"
	"io"
	"sync/atomic"
	"time"
)

// A build with -tags timeline records when a run reaches each of its
// phases and each read-ahead stage starts and ends a batch, for
// scripts/timeline.sh; other builds compile Mark and WriteTimeline to
// nothing (timeline_off.go).

type mark struct {
	what string
	at   int64 // Unix nanoseconds
}

var (
	marks [1 << 13]mark
	next  atomic.Int64
)

// Mark notes that the run reaches what now; marks past the table's size
// are dropped.
func Mark(what string) {
	if i := next.Add(1) - 1; i < int64(len(marks)) {
		marks[i] = mark{what, time.Now().UnixNano()}
	}
}

// WriteTimeline writes the marks, one "timeline WHAT UNIXNANO" line each.
func WriteTimeline(w io.Writer) {
	n := min(next.Load(), int64(len(marks)))
	for _, m := range marks[:n] {
		fmt.Fprintln(w, "timeline", m.what, m.at)
	}
}
