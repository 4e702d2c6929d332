// Command floor measures, on the machine at hand, the least work an audit
// of a JSONL export has to do: read the file, take its SHA-256 (on a
// second core, as cairn does), check that it is UTF-8 without NUL, frame
// its lines, check each as JSON once and read the members of each record a
// front end reads (the record's type and its item's id, type and status)
// from what that one scan located. It prints the digest and the record
// count, so that none of it can be left out. scripts/bench.sh runs it
// beside cairn and jq, so that cairn's CPU time can be given as a ratio to
// this floor (docs/performance.md).
//
// The one scan is cairn's own stream.Checker, the cheapest scan at hand
// that validates a record and locates its members at once, with the
// strictness an audit owes (duplicate names, nesting): goccy/go-json's
// Valid checks syntax alone, faster, but then the members need a second
// walk (the floor before issue #38 did Valid, then Unmarshal, and cost more
// than the Checker alone). So the floor moves with the Checker, and cairn
// over the floor is what an audit does beyond the one scan: the decoding,
// the state machines, the engine, the report, the read-ahead's hand-overs.
//
//	go run ./scripts/floor FILE
package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"unicode/utf8"

	"github.com/cairn-audit/cairn/stream"
)

// blockSize is the read size, cairn's own (stream's readSize).
const blockSize = 64 << 10

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: floor FILE")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
	defer f.Close()
	n, sum, err := run(f)
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
	fmt.Printf("%x %d\n", sum, n)
}

// run reads r to its end and returns its record count and SHA-256.
func run(r io.Reader) (int, []byte, error) {
	// The digest runs on a second core, a block at a time, as cairn's does.
	blocks := make(chan []byte, 2)
	free := make(chan []byte, 3)
	for range 3 {
		free <- make([]byte, blockSize)
	}
	done := make(chan []byte)
	go func() {
		h := sha256.New()
		for b := range blocks {
			h.Write(b)
			free <- b[:cap(b)]
		}
		done <- h.Sum(nil)
	}()
	defer func() {
		if blocks != nil {
			close(blocks)
			<-done
		}
	}()
	var (
		carry   []byte // the start of a line that goes on in the next block
		records int
		types   int // records whose type the decode read: printed, so it is not left out
		text    utf8Text
		c       = stream.Checker{Locate: stream.Locate{Child: "item"}}
	)
	line := func(l []byte) error {
		records++
		if c.Check(l) != 0 {
			return fmt.Errorf("record %d is not a valid JSON object", records)
		}
		types += decode(l, &c.Located)
		return nil
	}
	for {
		b := <-free
		k, err := io.ReadFull(r, b)
		b = b[:k]
		if !text.valid(b, err != nil) || bytes.IndexByte(b, 0) >= 0 {
			return 0, nil, fmt.Errorf("not UTF-8 without NUL")
		}
		rest := b
		for {
			i := bytes.IndexByte(rest, '\n')
			if i < 0 {
				break
			}
			l := rest[:i]
			if len(carry) > 0 {
				carry = append(carry, l...)
				l = carry
			}
			if e := line(l); e != nil {
				return 0, nil, e
			}
			carry = carry[:0]
			rest = rest[i+1:]
		}
		carry = append(carry, rest...)
		blocks <- b
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		} else if err != nil {
			return 0, nil, err
		}
	}
	if len(carry) > 0 {
		if e := line(carry); e != nil {
			return 0, nil, e
		}
	}
	close(blocks)
	sum := <-done
	blocks = nil
	if types > records {
		panic("unreachable")
	}
	return records, sum, nil
}

// decode reads, from the members the checker located, the record's type
// and its item's id, type and status, as a codex front end does, and
// returns 1 when the record has a string type.
func decode(l []byte, loc *stream.Located) int {
	var typ, id, itemType, status []byte
	for i := range loc.Root {
		sp := &loc.Root[i]
		if name, _ := sp.In(l); string(name) == "type" {
			typ = sp.Text(l)
		}
	}
	for i := range loc.Child {
		sp := &loc.Child[i]
		name, _ := sp.In(l)
		switch string(name) {
		case "id":
			id = sp.Text(l)
		case "type":
			itemType = sp.Text(l)
		case "status":
			status = sp.Text(l)
		}
	}
	_, _, _ = id, itemType, status
	if typ == nil {
		return 0
	}
	return 1
}

// utf8Text checks UTF-8 a block at a time; a character cut by the end of
// a block is carried into the next one.
type utf8Text struct {
	carry [utf8.UTFMax]byte
	n     int // bytes in carry
}

// valid reports whether b, the next block, keeps the input valid UTF-8 so
// far; last says that no block follows it.
func (t *utf8Text) valid(b []byte, last bool) bool {
	if t.n > 0 {
		// The carried bytes and as many of b's as complete their character.
		k := copy(t.carry[t.n:], b)
		r, size := utf8.DecodeRune(t.carry[:t.n+k])
		if r == utf8.RuneError && size <= 1 {
			return false
		}
		b = b[size-t.n:]
		t.n = 0
	}
	// A character cut at the end of b: its leading byte is among the last
	// three, and the bytes from it are not a whole character.
	cut := len(b)
	for k := 1; k <= 3 && k <= len(b); k++ {
		if c := b[len(b)-k]; c >= 0xC0 {
			if !utf8.FullRune(b[len(b)-k:]) {
				cut = len(b) - k
			}
			break
		} else if c < 0x80 {
			break
		}
	}
	if !utf8.Valid(b[:cut]) {
		return false
	}
	if cut < len(b) {
		if last {
			return false
		}
		t.n = copy(t.carry[:], b[cut:])
	}
	return true
}
