package lifecycle

import (
	"runtime"
	"strings"
	"testing"

	"github.com/cairn-audit/cairn/stream"
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
		code := d.DecodeChecked(line, c.Located, &rec)
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
