// Command floor measures, on the machine at hand, the least work an audit
// of a JSONL export has to do: read the file, take its SHA-256, check that
// it is UTF-8, frame its lines and check each as JSON once, and decode the
// members of each record a front end reads (the record's type and its
// item's id, type and status). It prints the digest and the record count.
// scripts/bench.sh runs it beside cairn and jq, so that cairn's CPU time
// can be given as a ratio to this floor (docs/performance.md).
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

	json "github.com/goccy/go-json"
)

// record is what the decode reads of each record.
type record struct {
	Type string `json:"type"`
	Item *struct {
		ID     string `json:"id"`
		Type   string `json:"type"`
		Status string `json:"status"`
	} `json:"item"`
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: floor FILE")
		os.Exit(2)
	}
	n, sum, err := run(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
	fmt.Printf("%x %d\n", sum, n)
}

func run(path string) (int, []byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, nil, err
	}
	defer f.Close()
	// The digest runs on a second core, a block at a time, as cairn's does.
	blocks := make(chan []byte, 2)
	free := make(chan []byte, 3)
	for range 3 {
		free <- make([]byte, 64<<10)
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
	var (
		carry   []byte
		records int
		rec     record
	)
	line := func(l []byte) error {
		if !json.Valid(l) {
			return fmt.Errorf("record %d is not JSON", records+1)
		}
		records++
		rec = record{}
		return json.Unmarshal(l, &rec)
	}
	for {
		b := <-free
		k, err := io.ReadFull(f, b)
		b = b[:k]
		if !utf8.Valid(b) || bytes.IndexByte(b, 0) >= 0 {
			return 0, nil, fmt.Errorf("not UTF-8")
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
	return records, <-done, nil
}
