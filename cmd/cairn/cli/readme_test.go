package cli

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cairn-audit/cairn/scripts/testbuild"
)

// TestReadmeCommands runs the cairn commands of the README's code blocks as
// a user would paste them on a fresh clone, in-process and then as pasted
// (bash, go run), and checks the exit each one's comment promises ("exit
// N"; none means 0), and that the test command is there (it is what .ci/run
// runs).
func TestReadmeCommands(t *testing.T) {
	t.Parallel()
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
		literally(t, line, stdout, want)
		ran++
	}
	if ran < 4 {
		t.Errorf("ran %d README commands; the first screen lost its examples", ran)
	}
	if !strings.Contains(string(b), "\ngo test ./...\n") {
		t.Error("the README does not give the test command go test ./...")
	}
}

// literally runs a README line as pasted, with bash at the repository's
// root, and checks that it prints what cairn printed in-process; go run
// turns a non-zero exit into 1, as the README warns. Skipped with -short
// or where there is no bash.
func literally(t *testing.T, line, stdout string, want int) {
	t.Helper()
	if testing.Short() {
		return
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		return
	}
	// go run builds cmd/cairn: a deadline of its own, which kills its
	// process group.
	ctx := testbuild.Context(t, testbuild.Deadline)
	cmd := testbuild.Command(ctx, bash, "-c", line)
	cmd.Dir = "../../.."
	cmd.Env = os.Environ()
	out, err := cmd.Output()
	if ctx.Err() != nil {
		t.Fatalf("README, run in bash: %s: not done before its deadline; its process group was killed", line)
	}
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if want != 0 {
		want = 1
	}
	if code != want || string(out) != stdout {
		t.Errorf("README, run in bash: %s: exit %d, want %d; stdout\n%s\nwant\n%s", line, code, want, out, stdout)
	}
}
