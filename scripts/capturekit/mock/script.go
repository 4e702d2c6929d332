//go:build unix

package mock

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/cairn-audit/cairn/scripts/ordered"
	"go.yaml.in/yaml/v3"
)

// Script is what a mock answers during one run: the main agent's steps,
// a sub-agent's, and what tells their conversations apart.
type Script struct {
	// Name is the scenario's; it goes into the ids of the answers.
	Name string
	// Prompt is the run's prompt: a conversation whose first user message
	// lacks it is neither the main agent's nor the sub-agent's (Chat).
	Prompt string
	Main   []Step
	Sub    []Step
	// SubMarker is a text only the sub-agent's first user message holds.
	SubMarker string
}

// Step is one scripted API answer: parts, or an HTTP error, with a way to
// end it.
//
// In a scenario table a step is a text (one text part), a list of parts,
// or a mapping with these members.
type Step struct {
	Parts []Part `yaml:"parts"`
	// Status, when not zero, answers an HTTP error with that status and
	// the API family's error body of Error (a type, or a Google status) and
	// Message.
	Status  int    `yaml:"status"`
	Error   string `yaml:"error"`
	Message string `yaml:"message"`
	// Finish is the finish reason in place of the natural one (Chat:
	// finish_reason; Generative Language: finishReason, with
	// FinishMessage); a Generative Language step with no parts then sends
	// one chunk with an empty content.
	Finish        string `yaml:"finish"`
	FinishMessage string `yaml:"finish_message"`
	// NoFinish streams the parts but no finishReason (Generative Language).
	NoFinish bool `yaml:"no_finish"`
	// Hang streams the parts without an end and holds the connection open,
	// which tells the runner to interrupt the CLI. For Messages the last
	// block's content_block_stop is missing too, unless HangAfterStop.
	Hang          bool `yaml:"hang"`
	HangAfterStop bool `yaml:"hang_after_stop"`
	// DropFirst cuts the stream after response.created the first time the
	// step is asked for, so the CLI retries (Responses).
	DropFirst bool `yaml:"drop_first"`
	// Delay waits before answering (Responses).
	Delay time.Duration `yaml:"delay"`
	// stopSequence ends a Messages answer with stop_reason stop_sequence
	// (the auto-mode classifier's answer).
	stopSequence string
}

// Part is one part of a scripted answer. In a scenario table a part is a
// text, or a mapping whose first member names its kind:
//
//	{call: NAME, id: ID, args: {…}, extra: {…}, cut: N}   a tool call
//	{thinking: TEXT}                                      reasoning (a thought part, reasoning_content)
//	{redacted_thinking: DATA}                             Messages
//	{mcp: TOOL, args: {…}}, {shell: CMD}, {patch: TEXT},
//	{web_search: QUERY}, {wait: null}                     Responses (codex) items
type Part struct {
	Kind string // text, thinking, redacted_thinking, call, mcp, shell, patch, web_search, wait
	Text string // the text, thinking, command, patch or query
	Name string // the tool of call and mcp
	ID   string // call: its id ("" = none: the CLI makes one)
	// Args are the call's arguments as compact JSON, members in the order
	// written; Extra are members appended to a Messages tool_use block.
	Args  json.RawMessage
	Extra ordered.Obj
	// Cut, when > 0, cuts a Messages tool_use input to this many bytes and
	// ends the message with stop_reason max_tokens.
	Cut int
}

// kinds are the part kinds, and the member that holds their text (or
// name).
var kinds = map[string]bool{"text": true, "thinking": true, "redacted_thinking": true, "call": true, "mcp": true, "shell": true, "patch": true, "web_search": true, "wait": true}

// UnmarshalYAML reads a step: a text, a list of parts, or a mapping.
func (st *Step) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		st.Parts = []Part{{Kind: "text", Text: n.Value}}
		return nil
	case yaml.SequenceNode:
		return n.Decode(&st.Parts)
	}
	type plain Step
	return DecodeStrict(n, (*plain)(st))
}

// DecodeStrict decodes n into v, refusing members v does not have.
func DecodeStrict(n *yaml.Node, v any) error {
	b, err := yaml.Marshal(n)
	if err != nil {
		return err
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	return dec.Decode(v)
}

// UnmarshalYAML reads a part: a text, or a mapping whose first member is
// its kind.
func (p *Part) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*p = Part{Kind: "text", Text: n.Value}
		return nil
	}
	if n.Kind != yaml.MappingNode || len(n.Content) < 2 || !kinds[n.Content[0].Value] {
		return fmt.Errorf("line %d: a part is a text or a mapping that starts with its kind", n.Line)
	}
	p.Kind = n.Content[0].Value
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i].Value, n.Content[i+1]
		var err error
		switch {
		case i == 0 && (p.Kind == "call" || p.Kind == "mcp"):
			p.Name = v.Value
		case i == 0:
			p.Text = v.Value
		case k == "id":
			p.ID = v.Value
		case k == "cut":
			err = v.Decode(&p.Cut)
		case k == "args":
			var a any
			if a, err = ordered.FromYAML(v); err == nil {
				p.Args, err = json.Marshal(a)
			}
		case k == "extra":
			var a any
			a, err = ordered.FromYAML(v)
			p.Extra, _ = a.(ordered.Obj)
		default:
			err = fmt.Errorf("line %d: a %s part has no member %s", v.Line, p.Kind, k)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// calls says whether the step makes a tool call.
func (st Step) calls() bool {
	for _, p := range st.Parts {
		if p.Kind == "call" {
			return true
		}
	}
	return false
}

// unscripted is the answer to a request past the end of a script.
var unscripted = Step{Parts: []Part{{Kind: "text", Text: "(unscripted request answered by the mock)"}}}

// say is a step of one text.
func say(s string) Step { return Step{Parts: []Part{{Kind: "text", Text: s}}} }
