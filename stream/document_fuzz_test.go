package stream

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-audit/cairn/audit"
)

// FuzzDocument streams arbitrary bytes as a trajectory document: no panic,
// every error an invalid-kind InputError (input-safety codes without a
// record), bounded events and bytes, every part's value accepted by the
// checker, and on a clean end the digest of the whole input.
func FuzzDocument(f *testing.F) {
	seeds, _ := filepath.Glob("../testdata/controls/*.json")
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(bytes.ReplaceAll(b, []byte(`"events": [`), []byte(`"events": [{"sequence":-1,"kind":"x","payload":{}},`)))
		f.Add(b[:len(b)/2])
	}
	f.Add([]byte(`{"events":[[[[[[]]]]]],"a":"\u00e9","a":1}`))
	f.Add([]byte("\xef\xbb\xbf{}"))
	f.Fuzz(func(t *testing.T, in []byte) {
		d := NewDocument(bytes.NewReader(in))
		var c Checker
		for {
			p, err := d.Next()
			if err != nil {
				var ie *audit.InputError
				if !errors.As(err, &ie) || ie.Code.Kind() != audit.KindInvalid {
					t.Fatalf("error %v is not an invalid-kind InputError", err)
				}
				if isInputSafety(ie.Code) && ie.Record != -1 {
					t.Fatalf("%s carries record %d, want none", ie.Code, ie.Record)
				}
				if ie.Record > MaxRecords {
					t.Fatalf("%s at record %d, past the bound", ie.Code, ie.Record)
				}
				if d.Sum() != nil {
					t.Fatal("a digest after an error")
				}
				if again, _ := d.Next(); again.Kind != 0 {
					t.Fatal("a part after an error")
				}
				return
			}
			if d.Bytes() > int64(len(in)) || d.Events() > MaxRecords {
				t.Fatalf("consumed %d bytes of %d, %d events", d.Bytes(), len(in), d.Events())
			}
			switch p.Kind {
			case Member, Event:
				base := 1
				if p.Kind == Event {
					base = 2
				}
				if code := c.checkValue(p.Value, base); code != 0 {
					t.Fatalf("part value rejected by the checker: %s", code)
				}
			case End:
				if sum := sha256.Sum256(in); !bytes.Equal(d.Sum(), sum[:]) || d.Bytes() != int64(len(in)) {
					t.Fatalf("end after %d of %d bytes, or a wrong digest", d.Bytes(), len(in))
				}
				return
			default:
				t.Fatalf("unknown part kind %d", p.Kind)
			}
		}
	})
}

func isInputSafety(c audit.Code) bool {
	switch c {
	case audit.InputNotFound, audit.InputSymlink, audit.InputNotRegular, audit.InputUnreadable,
		audit.InputTooLarge, audit.InputChanged, audit.EmptyInput, audit.InputBOM, audit.InputUTF16, audit.InputNotUTF8:
		return true
	}
	return false
}
