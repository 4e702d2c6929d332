package stream

import (
	"bytes"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/stream/streamtest"
)

// hostileRecord is a codex record of about size bytes whose MCP call
// arguments have one of the hostile shapes of SPEC §1 (scripts/mem.sh
// writes the same): one long string, one of escapes, sibling arrays or
// objects nested 124 deep, or an object of as many members as fit.
func hostileRecord(shape string, size int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"type":"item.completed","item":{"id":"item_0","type":"mcp_tool_call","server":"cairn-memory","tool":"memory_search","arguments":`)
	fill := func(prefix, unit, sep, suffix string) {
		b.WriteString(prefix)
		for k := 0; b.Len() < size; k++ {
			if k > 0 {
				b.WriteString(sep)
			}
			b.WriteString(unit)
		}
		b.WriteString(suffix)
	}
	switch shape {
	case "string":
		fill(`{"scope":"project","query":"`, "ledger validation conventions ", "", `"}`)
	case "escaped":
		fill(`{"scope":"project","query":"`, `\n\"\u00e9\\`, "", `"}`)
	case "nested":
		fill(`{"scope":"project","deep":[`, strings.Repeat("[", 120)+strings.Repeat("]", 120), ",", `]}`)
	case "nestobj":
		fill(`{"scope":"project","deep":[`, strings.Repeat(`{"a":`, 120)+"0"+strings.Repeat("}", 120), ",", `]}`)
	case "members":
		b.WriteString(`{"scope":"project"`)
		for k := 0; b.Len() < size; k++ {
			b.WriteString(`,"k`)
			b.WriteString(strconv.Itoa(k))
			b.WriteString(`":0`)
		}
		b.WriteString(`}`)
	default:
		panic(shape)
	}
	b.WriteString(`,"result":null,"error":null,"status":"completed"}}`)
	return b.Bytes()
}

var hostileShapes = []string{"string", "escaped", "nested", "nestobj", "members"}

// arguments is the arguments value of a hostile record.
func arguments(t testing.TB, c *Checker, rec []byte) []byte {
	if code := c.Check(rec); code != 0 {
		t.Fatalf("hostile record: %s", codeName(code))
	}
	for _, sp := range c.Child {
		if name, value := sp.In(rec); string(name) == "arguments" {
			return value
		}
	}
	t.Fatal("no arguments")
	return nil
}

// TestHostileRecordAllocations: checking a hostile record and writing
// its arguments' canonical form allocate a number of times that does not
// grow with the record (a large object's names go in chunks that double
// up to 256 KiB: a few dozen allocations), and bytes within a small
// multiple of the record, never a string or an entry per member. Counts
// and bytes, not times.
func TestHostileRecordAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	if testing.Short() {
		t.Skip("builds 16 MiB records")
	}
	for _, shape := range hostileShapes {
		t.Run(shape, func(t *testing.T) {
			measure := func(size int) (allocs float64, bytes uint64) {
				rec := hostileRecord(shape, size)
				c := Checker{Locate: codexLocate}
				args := arguments(t, &c, rec)
				dst := make([]byte, 0, 3*len(args))
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				allocs = testing.AllocsPerRun(2, func() {
					var fresh Checker // its scratch grows as a first record's would
					if code := fresh.Check(rec); code != 0 {
						t.Fatal(codeName(code))
					}
					dst = AppendCanonical(dst[:0], args)
				})
				runtime.ReadMemStats(&after)
				return allocs, (after.TotalAlloc - before.TotalAlloc) / 3
			}
			const large = 4 << 20
			smallA, smallB := measure(1 << 20)
			largeA, largeB := measure(large)
			t.Logf("1 MiB: %.0f allocations, %d bytes; 4 MiB: %.0f allocations, %d bytes", smallA, smallB, largeA, largeB)
			// Growth only: a few more chunks of names, the member offsets grow
			// by append (a quarter at a time): a dozen more for 4 times the size.
			if largeA > 96 || largeA > smallA+12 {
				t.Errorf("4 MiB record: %.0f allocations (1 MiB: %.0f), want at most 96 and no more than 12 more: allocations grow with the record", largeA, smallA)
			}
			// The names' entries (4 bytes, in chunks) and the table of a
			// class of them, an unsorted large object's member offsets (8
			// bytes, grown by append) and its buffer: for the members
			// shape (11 bytes a member) about 6 times the record; nothing
			// for the others.
			if limit := uint64(8 * large); largeB > limit {
				t.Errorf("4 MiB record: %d bytes allocated, want at most %d", largeB, limit)
			}
		})
	}
}

// BenchmarkHostileRecord checks a 16 MiB hostile record and writes its
// arguments' canonical form, as the decoder does for a new MCP call.
func BenchmarkHostileRecord(b *testing.B) {
	for _, shape := range hostileShapes {
		b.Run(shape, func(b *testing.B) {
			rec := hostileRecord(shape, MaxBytes-1024)
			c := Checker{Locate: codexLocate}
			args := arguments(b, &c, rec)
			var dst []byte
			b.SetBytes(int64(len(rec)))
			b.ReportAllocs()
			for b.Loop() {
				if code := c.Check(rec); code != 0 {
					b.Fatal(code)
				}
				dst = AppendCanonical(dst[:0], args)
			}
			b.ReportMetric(float64(len(dst)), "canonical-bytes")
		})
	}
}

// namesRecord is a record whose one large object has the members names
// (streamtest.Names, written without its own): the record's top level, the
// arguments of an MCP call, or a trajectory event's payload (a value the
// Document checks 2 deep).
func namesRecord(shape string, names []byte) []byte {
	var prefix, suffix string
	switch shape {
	case "record":
		prefix = `{"type":"item.completed","item":{"id":"item_0","type":"mcp_tool_call","server":"cairn-memory","tool":"memory_search","arguments":{"scope":"project"},"result":null,"error":null,"status":"completed"}`
		suffix = `}`
	case "arguments":
		prefix = `{"type":"item.completed","item":{"id":"item_0","type":"mcp_tool_call","server":"cairn-memory","tool":"memory_search","arguments":{"scope":"project"`
		suffix = `},"result":null,"error":null,"status":"completed"}}`
	case "payload":
		prefix = `{"sequence":0,"kind":"tool_invocation","payload":{"call_id":"c0","tool_name":"memory_search","input":{"scope":"project"}`
		suffix = `}}`
	default:
		panic(shape)
	}
	return append(append([]byte(prefix), names...), suffix...)
}

// TestHostileNamesMemory pins SPEC §1's object of two million distinct
// short member names: checking a 16 MiB record (or trajectory value) of
// one costs the checker a few bytes a name while it is checked (the
// names' offsets in chunks and a table of one class of them), never a
// span a member, and it keeps none of that memory afterwards. Bytes
// allocated and live, not times.
func TestHostileNamesMemory(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	if testing.Short() {
		t.Skip("builds 16 MiB records")
	}
	reads := func(name []byte) bool { return string(name) == "type" || string(name) == "item" }
	// no name of any shape's object: it has room for the rest of a record
	all, names := streamtest.Names(nil, MaxBytes-1024, "type", "item", "scope", "call_id", "tool_name", "input")
	for _, shape := range []string{"record", "arguments", "payload"} {
		t.Run(shape, func(t *testing.T) {
			rec := namesRecord(shape, all)
			c := Checker{Locate: Locate{Child: "item", Grandchild: "result", TwiceInChild: "id", Reads: reads}}
			base := liveHeap()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			var code audit.Code
			if shape == "payload" {
				code = c.checkValue(rec, 2, false)
			} else {
				code = c.Check(rec)
			}
			runtime.ReadMemStats(&after)
			if code != 0 {
				t.Fatalf("%s", codeName(code))
			}
			allocated := after.TotalAlloc - before.TotalAlloc
			kept := int64(liveHeap()) - int64(base)
			t.Logf("%d bytes, %d names: %d bytes allocated (%.1f a name), %d kept; %d members located", len(rec), names, allocated, float64(allocated)/float64(names), kept, len(c.Root))
			if names < 1_900_000 {
				t.Fatalf("%d names, want about two million (the test's premise)", names)
			}
			// Four bytes a name, the last chunk's slack (256 KiB) and
			// the table (512 KiB for 2M names): the hash set this
			// replaced grew to 24 MiB, and one span a member was 40 MB.
			if limit := uint64(4*names + 1<<20); allocated > limit {
				t.Errorf("%d bytes allocated to check %d names, want at most %d", allocated, names, limit)
			}
			if kept > 64<<10 {
				t.Errorf("the checker keeps %d bytes after the record, want at most 64 KiB", kept)
			}
			if len(c.Root) > 2*locateAll {
				t.Errorf("%d members located, want at most %d", len(c.Root), 2*locateAll)
			}
			runtime.KeepAlive(rec)
		})
	}
}
