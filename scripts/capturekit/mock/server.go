//go:build unix

// Package mock is the scripted model servers of the capture kit: one per
// API family a captured CLI speaks, each answering from a scenario's
// Script on 127.0.0.1.
//
//	server.go      Server: the listener, the request count, the request log
//	               (a line per request: what it looked like, what it got),
//	               the bodies in a debug folder, the hang signal
//	script.go      Script, Step, Part and how a scenario table writes them
//	messages.go    Anthropic Messages (Claude Code)
//	generative.go  Google Generative Language (Gemini CLI)
//	chat.go        OpenAI chat completions (Pi, OpenCode; Copilot CLI,
//	               Qwen Code and Cline speak it too)
//	responses.go   OpenAI Responses (Codex)
//
// Every family finds the step of a request in the request itself (how many
// assistant turns it holds, or which call ids), never by counting
// requests, so a retried request gets the same answer again. The API key a
// CLI sends is never logged.
package mock

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

// Handler answers one request of its API family; n is the request's
// number (from 1).
type Handler interface {
	serve(s *Server, w http.ResponseWriter, r *http.Request, body []byte, n int)
}

// Server is a running mock.
type Server struct {
	mu    sync.Mutex
	h     Handler
	log   io.WriteCloser
	debug string
	n     int
	start time.Time
	first chan time.Time
	hang  chan struct{}
	srv   *http.Server
}

// Start serves h on addr; the request log goes to logPath, every request
// body to debugDir/req-NNN.json (for the maintainer, never committed).
func Start(addr string, h Handler, logPath, debugDir string) (*Server, error) {
	f, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		f.Close()
		return nil, err
	}
	s := &Server{h: h, log: f, debug: debugDir, start: time.Now(), first: make(chan time.Time, 1), hang: make(chan struct{}, 1)}
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln)
	return s, nil
}

// Close stops the server.
func (s *Server) Close() {
	s.srv.Close()
	s.log.Close()
}

// Requests is how many requests the server has seen.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

// First is told when the first request comes.
func (s *Server) First() <-chan time.Time { return s.first }

// Hung is told when an answer stalls (a Hang step): the runner then
// interrupts the CLI.
func (s *Server) Hung() <-chan struct{} { return s.hang }

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	s.mu.Lock()
	s.n++
	n := s.n
	s.mu.Unlock()
	if n == 1 && s.first != nil {
		s.first <- time.Now()
	}
	if s.debug != "" {
		_ = os.WriteFile(fmt.Sprintf("%s/req-%03d.json", s.debug, n), body, 0o644)
	}
	s.h.serve(s, w, r, body, n)
}

func (s *Server) logf(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintf(s.log, format+"\n", args...)
}

// since is how long the server has run, in seconds.
func (s *Server) since() float64 { return time.Since(s.start).Seconds() }

// stall tells the runner that an answer hangs and holds the connection
// until the client goes away (or a bound passes).
func (s *Server) stall(r *http.Request) {
	select {
	case s.hang <- struct{}{}:
	default:
	}
	select {
	case <-r.Context().Done():
	case <-time.After(60 * time.Second):
	}
}

// writeJSON answers v as JSON with this content type.
func writeJSON(w http.ResponseWriter, contentType string, status int, v any) {
	w.Header().Set("content-type", contentType)
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// events starts an SSE answer; send writes one event in the given frame
// ("event: %s\ndata: %s\n\n" with an event name, "data: %s\n\n" without)
// and flushes it.
func events(w http.ResponseWriter, header map[string]string) func(frame string, args ...any) {
	w.Header().Set("content-type", "text/event-stream")
	for k, v := range header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(200)
	fl, _ := w.(http.Flusher)
	return func(frame string, args ...any) {
		fmt.Fprintf(w, frame, args...)
		if fl != nil {
			fl.Flush()
		}
	}
}

// marshal is v as JSON (the values here always marshal).
func marshal(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// shorten is s on one line, at most n bytes of it.
func shorten(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", `\n`)
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("…(%d bytes)", len(s))
}

// chunks cuts s into pieces of n bytes (the last shorter).
func chunks(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

// convs is what a handler keeps across the requests of a run: the script,
// and per conversation what its first request decided and the tool list
// last logged.
type convs struct {
	sc   Script
	mu   sync.Mutex
	seen map[string]string
}

func newConvs(sc Script) convs { return convs{sc: sc, seen: map[string]string{}} }

// once is the value first given for key.
func (c *convs) once(key, v string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.seen[key]; ok {
		return old
	}
	c.seen[key] = v
	return v
}

// toolList is names as the request log writes them: "[a,b]", or "same"
// when conv's previous request declared the same tools.
func (c *convs) toolList(conv string, names []string) string {
	list := strings.Join(names, ",")
	c.mu.Lock()
	defer c.mu.Unlock()
	if last, ok := c.seen["tools:"+conv]; ok && last == list {
		return "same"
	}
	c.seen["tools:"+conv] = list
	return "[" + list + "]"
}

// script is the steps of conv ("main", "sub") in sc.
func (sc *Script) steps(conv string) []Step {
	if conv == "sub" {
		return sc.Sub
	}
	if conv == "main" {
		return sc.Main
	}
	return nil
}

// joinText is a message content as text: the string, or each of the
// blocks of an array through part (its type and text) joined.
func joinText(raw json.RawMessage, part func(typ, text string) string) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct{ Type, Text string }
	if json.Unmarshal(raw, &blocks) != nil {
		return string(raw)
	}
	var b strings.Builder
	for _, bl := range blocks {
		b.WriteString(part(bl.Type, bl.Text))
	}
	return b.String()
}

// describe is what the request log says of an answer: its parts' names
// joined ("no parts" for none), and the notes that apply.
func describe(parts []string, notes ...string) string {
	s := strings.Join(parts, "+")
	if s == "" {
		s = "no parts"
	}
	return s + strings.Join(notes, "")
}

// count is how many of xs is is true of.
func count[T any](xs []T, is func(T) bool) int {
	n := 0
	for _, x := range xs {
		if is(x) {
			n++
		}
	}
	return n
}
