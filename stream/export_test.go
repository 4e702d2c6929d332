package stream

import "bytes"

// AppendMembers is appendMembers, for the external fuzz tests.
var AppendMembers = appendMembers

// LocateAll is locateAll, for the external fuzz tests.
const LocateAll = locateAll

// MaxElements is maxElements, for the external fuzz tests.
const MaxElements = maxElements

// SameFields is sameFields, for the external fuzz tests.
var SameFields = sameFields

// SpanValues and ElementsOf are spanValues and elementsOf, for the
// external fuzz tests.
var (
	SpanValues = spanValues
	ElementsOf = elementsOf
)

// sameFields reports whether a and b hold the same names and values, in
// the same order.
func sameFields(a, b []Field) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i].Name, b[i].Name) || !bytes.Equal(a[i].Value, b[i].Value) {
			return false
		}
	}
	return true
}
