package normalize

import "github.com/cairn-audit/cairn/stream"

// firstTextBlock returns the `text` value of the first block of type
// "text" in an array of MCP content blocks, or nil.
func firstTextBlock(blocks []byte) []byte {
	var text []byte
	stream.Elements(blocks, func(block []byte) bool {
		if stream.TypeOf(block) != stream.Object {
			return true
		}
		isText := false
		var t []byte
		stream.Members(block, func(name, value []byte) bool {
			switch string(name) {
			case "type":
				isText = stream.TextIs(value, "text")
			case "text":
				t = value
			}
			return true
		})
		if isText {
			text = t
			return false
		}
		return true
	})
	return text
}

// textJSON reads JSON held in a string value; it keeps its scratch space
// between calls, so that a result per call allocates nothing.
type textJSON struct {
	doc     []byte
	checker stream.Checker
}

// retrieval reports whether s, a JSON string value, holds one JSON object
// that passes the same checks as a record (well-formed, no repeated names,
// bounded nesting) and has the search result shape.
func (x *textJSON) retrieval(s []byte) bool {
	if stream.TypeOf(s) != stream.String {
		return false
	}
	var ok bool
	x.doc, ok = stream.AppendUnquote(x.doc[:0], s)
	if !ok || x.checker.Check(x.doc) != 0 {
		return false
	}
	return RetrievalShape(x.doc)
}

// RetrievalShape reports whether the checked object v has `mode` semantic or
// substring, an integer `count` ≥ 0 and an array `results` (SPEC §6.3).
func RetrievalShape(v []byte) bool {
	var mode, count, results bool
	stream.Members(v, func(name, value []byte) bool {
		switch string(name) {
		case "mode":
			mode = stream.TextIs(value, "semantic") || stream.TextIs(value, "substring")
		case "count":
			count = nonNegativeInteger(value)
		case "results":
			results = stream.TypeOf(value) == stream.Array
		}
		return true
	})
	return mode && count && results
}

// nonNegativeInteger reports whether v is an integer literal ≥ 0 (-0 is 0).
func nonNegativeInteger(v []byte) bool {
	if !stream.IsInteger(v) {
		return false
	}
	if v[0] != '-' {
		return true
	}
	for _, d := range v[1:] {
		if d != '0' {
			return false
		}
	}
	return true
}
