package main

import (
	"bytes"
	"encoding/json"
)

// obj is a JSON object that keeps its members in the order given, so that
// what the mock sends reads like the real API (id, type, role, model, …) and
// tool inputs keep the order a model would write them in. The CLI echoes
// these orders in its own output.
type obj []kv

type kv struct {
	k string
	v any
}

// o builds an obj from alternating names and values.
func o(pairs ...any) obj {
	out := make(obj, 0, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, kv{pairs[i].(string), pairs[i+1]})
	}
	return out
}

func (m obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, p := range m {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(p.k)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(p.v)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
