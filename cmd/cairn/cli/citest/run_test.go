package citest

import (
	"bytes"
	"strings"

	"github.com/cairn-audit/cairn/cmd/cairn/cli"
)

// runCapture runs cairn in-process with empty stdin and env as its
// environment, and returns its exit status, stdout and stderr.
func runCapture(args []string, env map[string]string) (int, string, string) {
	var out, errOut bytes.Buffer
	status := cli.Run(args, strings.NewReader(""), &out, &errOut, func(k string) string { return env[k] })
	return status, out.String(), errOut.String()
}
