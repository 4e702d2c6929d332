//go:build unix

package main

// An MCP proxy between opencode and the cairn-memory server: it relays the
// server's stdio, except that a tools/call of one tool is held. With
// -marker (mcp-hang) the call is never forwarded, so it never returns: the
// proxy touches the marker file instead, for the runner to interrupt the
// CLI while the call runs. With -delay (mcp-slow) the call is forwarded
// after that delay, so that a parallel call of another tool finishes first.

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"
)

func mcpProxy(mode string, args []string) {
	fs := flag.NewFlagSet(mode, flag.ExitOnError)
	marker := fs.String("marker", "", "mcp-hang: file to create when the tool is called")
	tool := fs.String("tool", "", "the tool whose calls are held")
	delay := fs.Duration("delay", 0, "mcp-slow: how long a call of the tool is held before it is forwarded")
	_ = fs.Parse(args)
	rest := fs.Args()
	if len(rest) == 0 || *tool == "" || (mode == "mcp-hang") == (*marker == "") || (mode == "mcp-slow") == (*delay == 0) {
		fmt.Fprintf(os.Stderr, "%s: usage: capture mcp-hang -marker FILE -tool NAME -- CMD ARGS... | capture mcp-slow -delay D -tool NAME -- CMD ARGS...\n", mode)
		os.Exit(2)
	}
	c := exec.Command(rest[0], rest[1:]...)
	c.Stderr = os.Stderr
	c.Stdout = os.Stdout
	in, err := c.StdinPipe()
	if err != nil {
		fatal(err)
	}
	if err := c.Start(); err != nil {
		fatal(err)
	}
	var mu sync.Mutex
	forward := func(line []byte) error {
		mu.Lock()
		defer mu.Unlock()
		_, err := in.Write(line)
		return err
	}
	var held sync.WaitGroup
	r := bufio.NewReaderSize(os.Stdin, 1<<20)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			var req struct {
				Method string `json:"method"`
				Params struct {
					Name string `json:"name"`
				} `json:"params"`
			}
			isCall := json.Unmarshal(line, &req) == nil && req.Method == "tools/call" && req.Params.Name == *tool
			switch {
			case isCall && *marker != "":
				fmt.Fprintf(os.Stderr, "%s: holding the call of %s\n", mode, *tool)
				_ = os.WriteFile(*marker, nil, 0o644)
			case isCall:
				fmt.Fprintf(os.Stderr, "%s: forwarding the call of %s in %s\n", mode, *tool, *delay)
				held.Add(1)
				go func(line []byte) {
					defer held.Done()
					time.Sleep(*delay)
					_ = forward(line)
				}(line)
			default:
				if werr := forward(line); werr != nil {
					err = werr
				}
			}
		}
		if err != nil {
			break
		}
	}
	held.Wait()
	in.Close()
	_ = c.Wait()
}
