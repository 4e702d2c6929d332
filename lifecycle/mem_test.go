package lifecycle

import (
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-audit/cairn/stream"
	"github.com/cairn-audit/cairn/stream/streamtest"
)

// TestDecodeHostileCallAllocations: decoding an MCP call whose arguments
// fill a 16 MiB record digests them without copying them or holding their
// canonical form whole (SPEC §1): a few hundred KiB allocated, where
// building both cost twice the record and more.
func TestDecodeHostileCallAllocations(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 16 MiB records")
	}
	const size = stream.MaxBytes - 1024
	shapes := map[string]string{
		"string":  `{"scope":"project","query":"` + strings.Repeat("ledger validation conventions ", size/30) + `"}`,
		"escaped": `{"scope":"project","query":"` + strings.Repeat(`\n\"\u00e9\\`, size/14) + `"}`,
		"nestobj": `{"scope":"project","deep":[` + strings.TrimSuffix(strings.Repeat(strings.Repeat(`{"a":`, 120)+"0"+strings.Repeat("}", 120)+",", size/846), ",") + `]}`,
	}
	for shape, args := range shapes {
		line := []byte(`{"type":"item.completed","item":{"id":"item_0","type":"mcp_tool_call","server":"cairn-memory","tool":"memory_search","arguments":` +
			args + `,"result":null,"error":null,"status":"completed"}}`)
		c := stream.Checker{Locate: Locate}
		if code := c.Check(line); code != 0 {
			t.Fatalf("%s: the record is refused: %v", shape, code)
		}
		var d Decoder
		var rec Record
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		code := d.DecodeChecked(line, &c.Located, &rec)
		runtime.ReadMemStats(&after)
		if code != 0 || rec.Item.Type != McpToolCall {
			t.Fatalf("%s: Decode = %v", shape, code)
		}
		got := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s: %d KiB allocated to decode a record of %d MiB", shape, got>>10, len(line)>>20)
		if got > 1<<20 {
			t.Errorf("%s: %d KiB allocated to decode a record of %d MiB, want at most 1024", shape, got>>10, len(line)>>20)
		}
	}
}

// TestDecodeHostileNamesAllocations: a 16 MiB record of about two million
// distinct short member names (SPEC §1), at its top level or as an MCP
// call's arguments, is decoded without a member a name: nothing grows with
// the names at the top level (the checker locates the contract's names
// and one other), and the arguments' canonical form costs their sorted
// offsets, four bytes a name.
func TestDecodeHostileNamesAllocations(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 16 MiB records")
	}
	const item = `"item":{"id":"item_0","type":"mcp_tool_call","server":"cairn-memory","tool":"memory_search","arguments":`
	const itemEnd = `,"result":null,"error":null,"status":"completed"}`
	names, n := streamtest.Names(nil, stream.MaxBytes-1024, "type", "item", "scope")
	for _, tc := range []struct {
		shape string
		line  []byte
		limit uint64
	}{
		{"top level", slices.Concat([]byte(`{"type":"item.completed",`+item+`{"scope":"project"}`+itemEnd), names, []byte(`}`)), 64 << 10},
		{"arguments", slices.Concat([]byte(`{"type":"item.completed",`+item+`{"scope":"project"`), names, []byte(`}`+itemEnd+`}`)), uint64(4*n + 1<<20)},
	} {
		c := stream.Checker{Locate: Locate}
		if code := c.Check(tc.line); code != 0 {
			t.Fatalf("%s: the record is refused: %v", tc.shape, code)
		}
		var d Decoder
		var rec Record
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		code := d.DecodeChecked(tc.line, &c.Located, &rec)
		runtime.ReadMemStats(&after)
		if code != 0 || rec.Item.Type != McpToolCall {
			t.Fatalf("%s: Decode = %v", tc.shape, code)
		}
		got := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s: %d names, %d located: %d KiB allocated to decode", tc.shape, n, len(c.Root), got>>10)
		if got > tc.limit {
			t.Errorf("%s: %d KiB allocated to decode %d names, want at most %d", tc.shape, got>>10, n, tc.limit>>10)
		}
	}
}
