package cli

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestReadmeCommands runs the cairn commands of the README's code blocks as
// a user would paste them on a fresh clone, and checks the exit each one's
// comment promises ("exit N"; none means 0), and that the test command is
// there.
func TestReadmeCommands(t *testing.T) {
	b, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	exit := regexp.MustCompile(`exit (\d)`)
	ran := 0
	inBlock := false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "```") {
			inBlock = !inBlock
			continue
		}
		cmd, comment, _ := strings.Cut(line, "#")
		const prefix = "CAIRN_EVAL=1 go run ./cmd/cairn "
		if !inBlock || !strings.HasPrefix(cmd, prefix) {
			continue
		}
		want := 0
		if m := exit.FindStringSubmatch(comment); m != nil {
			want, _ = strconv.Atoi(m[1])
		}
		args := strings.Fields(strings.TrimPrefix(cmd, prefix))
		for i, a := range args {
			if strings.HasPrefix(a, "testdata/") {
				args[i] = "../../../" + a
			}
		}
		code, stdout, stderr := runCapture(args, map[string]string{"CAIRN_EVAL": "1"})
		if code != want || stdout == "" {
			t.Errorf("README: %s: exit %d, want %d\n%s%s", strings.TrimSpace(cmd), code, want, stdout, stderr)
		}
		ran++
	}
	if ran < 3 {
		t.Errorf("ran %d README commands; the first screen lost its examples", ran)
	}
	if !strings.Contains(string(b), "\ngo test ./...\n") {
		t.Error("the README does not give the test command go test ./...")
	}
}
