// Package ordered is a JSON object that keeps its members in the order
// given, for the scripted model servers of the capture harnesses
// (scripts/claude-real, scripts/gemini-real): what a mock sends then reads
// like the real API (id, type, role, model, …), and tool inputs keep the
// order a model would write them in. The CLIs echo these orders in their
// own output.
package ordered

import (
	"bytes"
	"encoding/json"
)

// Obj is a JSON object whose members keep their order.
type Obj []KV

// KV is one member.
type KV struct {
	K string
	V any
}

// O builds an Obj from alternating names and values.
func O(pairs ...any) Obj {
	out := make(Obj, 0, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, KV{K: pairs[i].(string), V: pairs[i+1]})
	}
	return out
}

// Member is one member, for appending to an Obj.
func Member(k string, v any) KV { return KV{K: k, V: v} }

func (m Obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, p := range m {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(p.K)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(p.V)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
