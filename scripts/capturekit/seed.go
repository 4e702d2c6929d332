//go:build unix

package capturekit

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// SeedCall is one tool call that primes a real server's store before the
// CLI runs: the tool's name and its arguments.
type SeedCall struct {
	Tool string         `yaml:"tool"`
	Args map[string]any `yaml:"args"`
}

// Seed makes the scenario's seed calls on its server over stdio (MCP
// initialize, then one tools/call each), started as the CLI would start
// it: ServerCommand's program and environment, with HOME and PATH as the
// CLI's (a server may keep its store under HOME), in the project. A call
// that fails, or a result with isError, stops the run. It returns the
// requests.txt line that says what was seeded ("" when nothing was).
func (r *Run) Seed(sv *Server) (string, error) {
	if len(sv.Seed) == 0 {
		return "", nil
	}
	cmd, args, env := r.ServerCommand(sv, false)
	c := exec.Command(cmd, args...)
	c.Dir = r.WorkDir
	c.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + r.Home, "LANG=C.UTF-8", "TZ=UTC"}
	for k, v := range env {
		c.Env = append(c.Env, k+"="+v)
	}
	stderr, err := os.Create(r.Scratch + "/seed-stderr.txt")
	if err != nil {
		return "", err
	}
	defer stderr.Close()
	c.Stderr = stderr
	in, err := c.StdinPipe()
	if err != nil {
		return "", err
	}
	out, err := c.StdoutPipe()
	if err != nil {
		return "", err
	}
	if err := c.Start(); err != nil {
		return "", err
	}
	done := make(chan error, 1)
	go func() { done <- seed(in, out, sv.Seed) }()
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		err = fmt.Errorf("no answer in 60 s")
	}
	in.Close()
	_ = c.Process.Kill()
	_ = c.Wait()
	if err != nil {
		return "", fmt.Errorf("seeding the server (see %s/seed-stderr.txt): %w", r.Scratch, err)
	}
	var tools []string
	for _, s := range sv.Seed {
		tools = append(tools, s.Tool)
	}
	return "# before the run the kit seeded the server's store by tools/call: " + strings.Join(tools, ", ") + "\n", nil
}

// seed speaks MCP over one server's stdin and stdout: initialize, the
// initialized notification, then each call in turn, waiting for its
// answer.
func seed(w io.Writer, r io.Reader, calls []SeedCall) error {
	br := bufio.NewReaderSize(r, 1<<20)
	send := func(v map[string]any) error {
		v["jsonrpc"] = "2.0"
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	}
	// answer reads lines until the response with id comes.
	answer := func(id int) (json.RawMessage, error) {
		for {
			line, err := br.ReadBytes('\n')
			if err != nil {
				return nil, fmt.Errorf("the server closed stdout: %w", err)
			}
			var m struct {
				ID     *int            `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if json.Unmarshal(line, &m) != nil || m.ID == nil || *m.ID != id {
				continue
			}
			if m.Error != nil {
				return nil, fmt.Errorf("request %d: JSON-RPC error %s", id, m.Error)
			}
			return m.Result, nil
		}
	}
	if err := send(map[string]any{"id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "cairn-capture-seed", "version": "1"}}}); err != nil {
		return err
	}
	if _, err := answer(1); err != nil {
		return err
	}
	if err := send(map[string]any{"method": "notifications/initialized"}); err != nil {
		return err
	}
	for i, call := range calls {
		id := i + 2
		if err := send(map[string]any{"id": id, "method": "tools/call", "params": map[string]any{"name": call.Tool, "arguments": call.Args}}); err != nil {
			return err
		}
		res, err := answer(id)
		if err != nil {
			return err
		}
		var r struct {
			IsError bool `json:"isError"`
		}
		if json.Unmarshal(res, &r) != nil || r.IsError {
			return fmt.Errorf("%s answered %s", call.Tool, res)
		}
	}
	return nil
}
