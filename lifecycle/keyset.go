package lifecycle

import (
	"encoding/binary"

	"github.com/cairn-audit/cairn/stream"
)

// doneSet is the set of finished item ids: codex's own ids (item_0,
// item_1, …) as bits, so that a run of 50,000 items stays in a few KiB that
// the cache keeps, and any other id in a keySet.
type doneSet struct {
	bits  []uint64
	other keySet
}

func (s *doneSet) has(it *Item) bool {
	if it.Num < 0 {
		return s.other.has(it.Key)
	}
	w := it.Num / 64
	return w < len(s.bits) && s.bits[w]&(1<<(it.Num%64)) != 0
}

func (s *doneSet) add(it *Item) {
	if it.Num < 0 {
		s.other.add(it.Key)
		return
	}
	w := it.Num / 64
	if w >= len(s.bits) {
		s.bits = append(s.bits, make([]uint64, max(w+1, 2*len(s.bits))-len(s.bits))...)
	}
	s.bits[w] |= 1 << (it.Num % 64)
}

// keySet is a set of item ids. It may hold every item of a run
// (up to 50,000), so it is an open-addressed table of the 128-bit keys
// themselves: the keys are already seeded hashes, so their low bits place
// them, and linear probing keeps a look-up within a cache line or two.
// Against a Go map it saves the rehashing, the control bytes and, on a cold
// process, most of the cost of growing.
type keySet struct {
	slots   []stream.Key // the zero Key marks an empty slot
	n       int
	hasZero bool // whether the zero Key itself is in the set
}

const keySetMin = 1024

// slot is where the non-zero k is in the table, or the empty slot where it
// belongs, and whether it is there.
func (s *keySet) slot(k stream.Key) (int, bool) {
	mask := len(s.slots) - 1
	for i := int(binary.LittleEndian.Uint64(k[:8])) & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case k:
			return i, true
		case stream.Key{}:
			return i, false
		}
	}
}

// has reports whether k is in the set.
func (s *keySet) has(k stream.Key) bool {
	if k == (stream.Key{}) {
		return s.hasZero
	}
	if len(s.slots) == 0 {
		return false
	}
	_, ok := s.slot(k)
	return ok
}

// add puts k in the set.
func (s *keySet) add(k stream.Key) {
	if k == (stream.Key{}) {
		s.hasZero = true
		return
	}
	// At most 4/5 full, so that a probe ends soon.
	if (s.n+1)*5 > len(s.slots)*4 {
		s.grow()
	}
	if s.insert(k) {
		s.n++
	}
}

func (s *keySet) insert(k stream.Key) bool {
	i, ok := s.slot(k)
	if !ok {
		s.slots[i] = k
	}
	return !ok
}

func (s *keySet) grow() {
	old := s.slots
	s.slots = make([]stream.Key, max(keySetMin, 2*len(old)))
	for _, k := range old {
		if k != (stream.Key{}) {
			s.insert(k)
		}
	}
}
