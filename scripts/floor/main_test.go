package main

import (
	"bytes"
	"crypto/sha256"
	"strings"
	"testing"
)

// TestFloorCharacterAcrossReads: a character cut by the end of a 64 KiB
// read is valid UTF-8 (the floor before issue #38 refused it); one cut by
// the end of the input, or a byte never valid, is not.
func TestFloorCharacterAcrossReads(t *testing.T) {
	record := func(pad int, text string) string {
		return `{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"` +
			strings.Repeat("a", pad) + text + `"}}` + "\n"
	}
	prefix := len(record(0, "")) - len(`"}}`+"\n")
	for _, ch := range []string{"é", "€", "𝄞"} {
		for cut := 1; cut < len(ch); cut++ {
			// the character's first cut bytes end the first read
			in := record(blockSize-prefix-cut, ch) + record(3, "")
			n, sum, err := run(strings.NewReader(in))
			if err != nil || n != 2 {
				t.Errorf("%q cut after %d bytes: got %d records, %v; want 2, nil", ch, cut, n, err)
				continue
			}
			if want := sha256.Sum256([]byte(in)); !bytes.Equal(sum, want[:]) {
				t.Errorf("%q cut after %d bytes: digest %x, want %x", ch, cut, sum, want)
			}
		}
	}
	for _, in := range []string{
		record(10, "") + "\xe2\x82",                    // cut by the end of input
		record(blockSize, "") + record(10, "\xe2\x82"), // an incomplete character
		record(blockSize-prefix-1, "\xe2") + "\x82",    // cut by a read, never completed
		record(10, "\xff"),
		record(10, "\x00"),
		`{"a":1,"a":2}` + "\n", // one scan, with the audit's strictness
	} {
		if n, _, err := run(strings.NewReader(in)); err == nil {
			t.Errorf("input of %d bytes: got %d records and no error, want an error", len(in), n)
		}
	}
}
