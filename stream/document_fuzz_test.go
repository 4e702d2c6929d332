package stream

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
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
	f.Add([]byte(`{"events":[{"items":[1, {"a":[2]} ,"x"],"payload":{"input":{}}},{"items":{}},{"items":[]}]}`))
	f.Add([]byte("\xef\xbb\xbf{}"))
	f.Fuzz(func(t *testing.T, in []byte) {
		d := NewDocument(bytes.NewReader(in))
		// The same document, its events' members located: the same parts,
		// and the located members those a plain walk finds.
		all := func([]byte) bool { return true }
		ld := NewDocumentLocating(bytes.NewReader(in), "events", Locate{Child: "payload", Grandchild: "input", Elements: "items", Reads: all})
		var c Checker
		for {
			lp, lerr := ld.Next()
			if lp.Kind == Event && lerr == nil {
				docSameLocated(t, lp.Value, ld.Located())
			} else if loc := ld.Located(); len(loc.Root)+len(loc.Child)+len(loc.Grandchild)+len(loc.Elements) > 0 {
				t.Fatalf("members located after a part of kind %d", lp.Kind)
			}
			p, err := d.Next()
			if lp.Kind != p.Kind || !bytes.Equal(lp.Value, p.Value) || !bytes.Equal(lp.Name, p.Name) || fmt.Sprint(lerr) != fmt.Sprint(err) {
				t.Fatalf("locating: part %d %q %v, want %d %q %v", lp.Kind, lp.Value, lerr, p.Kind, p.Value, err)
			}
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
				if code := c.checkValue(p.Value, base, false); code != 0 {
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

// docSameLocated checks that what a locating Document located in the
// event v is what walking it finds: its members, the members of its
// payload object and of that one's input object, and the elements of its
// items array.
func docSameLocated(t *testing.T, v []byte, loc Located) {
	t.Helper()
	fields := func(spans []Span) []Field {
		var fs []Field
		for i := range spans {
			name, value := spans[i].In(v)
			fs = append(fs, Field{name, value})
		}
		return fs
	}
	of := func(fs []Field, name string) []Field {
		for _, f := range fs {
			if string(f.Name) == name && TypeOf(f.Value) == Object {
				return appendMembers(nil, f.Value)
			}
		}
		return nil
	}
	root := appendMembers(nil, v)
	payload := of(root, "payload")
	for _, o := range []struct {
		name      string
		got, want []Field
	}{{"event", fields(loc.Root), root}, {"payload", fields(loc.Child), payload}, {"input", fields(loc.Grandchild), of(payload, "input")}} {
		if !sameFields(o.got, o.want) {
			t.Fatalf("located %s members %q, want %q", o.name, o.got, o.want)
		}
	}
	if got, want := spanValues(v, loc.Elements), elementsOf(root, "items"); fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
		t.Fatalf("located items elements %q, want %q", got, want)
	}
}

// spanValues is the values spans locate in b.
func spanValues(b []byte, spans []Span) [][]byte {
	var vs [][]byte
	for i := range spans {
		vs = append(vs, spans[i].Value(b))
	}
	return vs
}

// elementsOf is the elements, by a plain walk, of the array value of the
// member called name among fs; none when there is no such array.
func elementsOf(fs []Field, name string) [][]byte {
	var es [][]byte
	for _, f := range fs {
		if string(f.Name) == name && TypeOf(f.Value) == Array {
			Elements(f.Value, func(e []byte) bool {
				es = append(es, e)
				return true
			})
		}
	}
	return es
}

func isInputSafety(c audit.Code) bool {
	switch c {
	case audit.InputNotFound, audit.InputSymlink, audit.InputNotRegular, audit.InputUnreadable,
		audit.InputTooLarge, audit.InputChanged, audit.EmptyInput, audit.InputBOM, audit.InputUTF16, audit.InputNotUTF8:
		return true
	}
	return false
}
