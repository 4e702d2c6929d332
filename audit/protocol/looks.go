package protocol

import (
	"io"
	"maps"
	"slices"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/stream"
)

// headWords are every word of the rows' Looks, for a stream.Head: the
// hints are the table's, so a new row brings its own.
var headWords = func() []string {
	var words []string
	add := func(w string) {
		if w != "" && !slices.Contains(words, w) {
			words = append(words, w)
		}
	}
	for _, f := range formats {
		for _, m := range f.Looks.Members {
			add(m)
		}
		for _, m := range f.Looks.Without {
			add(m)
		}
		for _, m := range slices.Sorted(maps.Keys(f.Looks.Values)) {
			add(m)
			for _, v := range f.Looks.Values[m] {
				add(v)
			}
		}
		add(f.Looks.First)
	}
	return words
}()

// matches reports whether what h noted of an input is how l says the
// format's input begins.
func (l Looks) matches(h *stream.Head) bool {
	if l.First != "" && h.First() != l.First {
		return false
	}
	for _, m := range l.Members {
		if !h.Has(m) {
			return false
		}
	}
	for _, m := range l.Without {
		if h.Has(m) {
			return false
		}
	}
	for m, vs := range l.Values {
		if !slices.Contains(vs, h.Value(m)) {
			return false
		}
	}
	return len(l.Members) > 0 || len(l.Values) > 0 || l.First != ""
}

// looksLike is the format whose input h's looks like, when that is one
// format of the table; "" when it looks like none or like several.
func looksLike(h *stream.Head) string {
	found := ""
	for _, f := range formats {
		if f.Looks.matches(h) {
			if found != "" {
				return ""
			}
			found = f.Name
		}
	}
	return found
}

// hint tells rep, when its audit did not pass, which format its input
// looks like if that is another than the one it was read as (SPEC §14.3).
func hint(rep *audit.Report, h *stream.Head) {
	if rep.Status == audit.StatusPass {
		return
	}
	if f := looksLike(h); f != "" && f != rep.Input.Format {
		rep.SetLooksLike(f)
	}
}

// sniffed passes the reads of r to h on the way.
type sniffed struct {
	r io.Reader
	h *stream.Head
}

func (s sniffed) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if n > 0 && n <= len(p) {
		s.h.Write(p[:n])
	}
	return n, err
}

// sniffedFile is sniffed for a file, which keeps telling its size (the
// front ends read a small file on one goroutine).
type sniffedFile struct {
	sniffed
	f *stream.File
}

func (s sniffedFile) Size() int64 { return s.f.Size() }

// sniffedBytes is sniffed for an input in memory, which tells its size
// too.
type sniffedBytes struct {
	sniffed
	n int64
}

func (s sniffedBytes) Size() int64 { return s.n }
