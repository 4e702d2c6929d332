package lifecycle

import (
	"encoding/binary"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/cairn-audit/cairn/stream"
)

// TestKeySetMatchesMap drives the set and a Go map with the same keys:
// random ones, the zero key, and keys that share their low bits, so that
// probes run long and wrap around the end of the table.
func TestKeySetMatchesMap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	key := func() stream.Key {
		var k stream.Key
		switch r.IntN(4) {
		case 0: // same low bits, different high bits
			binary.LittleEndian.PutUint64(k[:8], 0xfff|uint64(r.IntN(3))<<40)
			binary.LittleEndian.PutUint64(k[8:], uint64(r.IntN(64)))
		case 1:
			if r.IntN(50) == 0 {
				return stream.Key{}
			}
			fallthrough
		default:
			binary.LittleEndian.PutUint64(k[:8], r.Uint64())
			binary.LittleEndian.PutUint64(k[8:], r.Uint64())
		}
		return k
	}
	var s keySet
	m := map[stream.Key]bool{}
	var seen []stream.Key
	for i := range 60000 {
		k := key()
		if len(seen) > 0 && r.IntN(3) == 0 {
			k = seen[r.IntN(len(seen))]
		}
		if got, want := s.has(k), m[k]; got != want {
			t.Fatalf("step %d: has = %v, want %v", i, got, want)
		}
		s.add(k)
		m[k] = true
		seen = append(seen, k)
		if !s.has(k) {
			t.Fatalf("step %d: added key not found", i)
		}
	}
	n := len(m)
	if _, ok := m[stream.Key{}]; ok {
		n--
	}
	if s.n != n {
		t.Fatalf("size %d, want %d", s.n, n)
	}
	if s.n*5 > len(s.slots)*4 {
		t.Fatalf("load %d/%d above 4/5", s.n, len(s.slots))
	}
	for k := range m {
		if !s.has(k) {
			t.Fatal("key lost in growth")
		}
	}
}

// BenchmarkDoneSet adds 50,000 finished items, as a run at the record
// bound would: codex's own ids (bits) and other ids (the key table).
func BenchmarkDoneSet(b *testing.B) {
	for _, prefix := range []string{"item_", "call-"} {
		items := make([]Item, 50000)
		for i := range items {
			id := []byte(prefix + strconv.Itoa(i))
			items[i] = Item{Key: stream.KeyOf(id), Num: itemNum(id)}
		}
		b.Run(prefix, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var s doneSet
				for i := range items {
					if !s.has(&items[i]) {
						s.add(&items[i])
					}
				}
			}
		})
	}
}

func TestItemNum(t *testing.T) {
	for id, want := range map[string]int{
		"item_0": 0, "item_1": 1, "item_42": 42, "item_1048575": 1048575,
		"item_1048576": -1, "item_01": -1, "item_00": -1, "item_": -1,
		"item_-1": -1, "item_1a": -1, "ITEM_1": -1, "item_ 1": -1,
		"item_99999999": -1, "xitem_1": -1, "1": -1, "": -1,
	} {
		if got := itemNum([]byte(id)); got != want {
			t.Errorf("itemNum(%q) = %d, want %d", id, got, want)
		}
	}
}

// TestDoneSetMatchesMap drives the done set and a map of ids with codex's
// own ids, look-alikes that must stay apart (item_01 is not item_1) and
// other ids.
func TestDoneSetMatchesMap(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	id := func() string {
		switch r.IntN(5) {
		case 0:
			return "item_0" + strconv.Itoa(r.IntN(100))
		case 1:
			return "x" + strconv.Itoa(r.IntN(5000))
		case 2:
			return "item_" + strconv.Itoa(maxItemNum-50+r.IntN(100))
		}
		return "item_" + strconv.Itoa(r.IntN(5000))
	}
	var s doneSet
	m := map[string]bool{}
	for i := range 40000 {
		v := id()
		it := &Item{Key: stream.KeyOf([]byte(v)), Num: itemNum([]byte(v))}
		if got, want := s.has(it), m[v]; got != want {
			t.Fatalf("step %d: has(%q) = %v, want %v", i, v, got, want)
		}
		if r.IntN(2) == 0 {
			s.add(it)
			m[v] = true
		}
	}
	if len(s.bits) > maxItemNum/64 {
		t.Fatalf("bitset of %d words, more than %d", len(s.bits), maxItemNum/64)
	}
}

// TestItemKey: the same id always has the same key, and different ids,
// codex's own item_N among others of every shape, have different keys.
func TestItemKey(t *testing.T) {
	ids := []string{"", "item_", "item_0", "item_00", "item_1", "item_01", "item_10", "item_1048575", "item_1048576",
		"item_9999999", "item_-1", "Item_1", "item_1 ", "item_x", "1", "msg_1", "\x80", "item_2"}
	for i := range 300 {
		ids = append(ids, "item_"+strconv.Itoa(i), "call_"+strconv.Itoa(i))
	}
	seen := map[stream.Key]string{}
	for _, id := range ids {
		k := itemKey([]byte(id), itemNum([]byte(id)))
		if again := itemKey([]byte(id), itemNum([]byte(id))); again != k {
			t.Fatalf("%q: two keys", id)
		}
		if other, ok := seen[k]; ok && other != id {
			t.Fatalf("%q and %q have one key", id, other)
		}
		seen[k] = id
	}
}
