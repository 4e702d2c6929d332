// Package ordered is a JSON object that keeps its members in the order
// given, for the scripted model servers of the capture harnesses
// (scripts/capturekit/mock) and the generators: what a mock sends then reads
// like the real API (id, type, role, model, …), and tool inputs keep the
// order a model would write them in. The CLIs echo these orders in their
// own output.
package ordered

import (
	"bytes"
	"encoding/json"
	"fmt"

	"go.yaml.in/yaml/v3"
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

// FromYAML is the value of a YAML node as JSON would have it: a mapping is
// an Obj (its members in the order written), a sequence a []any, a scalar a
// string, int64, float64, bool or nil by its resolved tag.
func FromYAML(n *yaml.Node) (any, error) {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 1 {
			return FromYAML(n.Content[0])
		}
	case yaml.AliasNode:
		return FromYAML(n.Alias)
	case yaml.MappingNode:
		m := make(Obj, 0, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			v, err := FromYAML(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			m = append(m, KV{K: n.Content[i].Value, V: v})
		}
		return m, nil
	case yaml.SequenceNode:
		s := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := FromYAML(c)
			if err != nil {
				return nil, err
			}
			s = append(s, v)
		}
		return s, nil
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return nil, nil
		case "!!bool", "!!int", "!!float":
			var v any
			err := n.Decode(&v)
			return v, err
		default:
			return n.Value, nil
		}
	}
	return nil, fmt.Errorf("line %d: no JSON value for this YAML node", n.Line)
}

// UnmarshalYAML reads a YAML mapping, keeping the order of its members.
func (m *Obj) UnmarshalYAML(n *yaml.Node) error {
	v, err := FromYAML(n)
	if err != nil {
		return err
	}
	o, ok := v.(Obj)
	if !ok {
		return fmt.Errorf("line %d: not a mapping", n.Line)
	}
	*m = o
	return nil
}
