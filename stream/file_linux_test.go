package stream

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/cairn-audit/cairn/audit"
)

func TestOPath(t *testing.T) {
	if oPath != unix.O_PATH {
		t.Errorf("oPath is %#x, want O_PATH, %#x", oPath, unix.O_PATH)
	}
}

// helperPaths names the environment variable that turns
// TestOpenAsHelper into the helper process of TestOpenSearchOnly: the
// paths to open, one a line, each after the working directory to open it
// from and a tab.
const helperPaths = "CAIRN_STREAM_TEST_OPEN_PATHS"

// TestOpenAsHelper opens, reads and verifies each path in $helperPaths
// from its working directory and prints one line per path: "result N ok
// DATA" or "result N CODE".
func TestOpenAsHelper(t *testing.T) {
	paths := os.Getenv(helperPaths)
	if paths == "" {
		t.Skip("the helper process of TestOpenSearchOnly")
	}
	for i, line := range strings.Split(paths, "\n") {
		cwd, p, _ := strings.Cut(line, "\t")
		fmt.Printf("result %d %s\n", i, openFrom(cwd, p))
	}
}

// openFrom is openResult from the working directory cwd.
func openFrom(cwd, path string) string {
	if err := os.Chdir(cwd); err != nil {
		return "chdir: " + err.Error()
	}
	return openResult(path)
}

// openResult opens, reads and verifies path: "ok DATA" or the code.
func openResult(path string) string {
	f, err := Open(path)
	if err != nil {
		return codeString(err)
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return "read: " + err.Error()
	}
	if err := f.Verify(); err != nil {
		return codeString(err)
	}
	return "ok " + string(data)
}

func codeString(err error) string {
	var ie *audit.InputError
	if errors.As(err, &ie) {
		return ie.Code.String()
	}
	return "not an input error: " + err.Error()
}

// TestOpenSearchOnly pins SPEC §3: a directory on the path needs only
// search permission (mode 0311 is enough), as for cat, while a directory
// that cannot be searched makes the file unreadable. Permissions do not
// bind root, so as root the paths are opened by this test binary re-run as
// uid and gid 65534.
func TestOpenSearchOnly(t *testing.T) {
	// A directory of its own, open to all, so that another user can reach
	// the fixtures and run a copy of this binary.
	base, err := os.MkdirTemp("", "cairn-stream-perm-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		filepath.WalkDir(base, func(p string, e os.DirEntry, err error) error {
			if err == nil && e.IsDir() {
				os.Chmod(p, 0o700)
			}
			return nil
		})
		os.RemoveAll(base)
	})
	if base, err = filepath.EvalSymlinks(base); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	modes := []struct {
		name string
		mode os.FileMode
	}{{"search", 0o311}, {"searchonly", 0o111}, {"none", 0o000}, {"read", 0o644}}
	for _, m := range modes {
		d := filepath.Join(base, m.name)
		if err := os.MkdirAll(filepath.Join(d, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"in.jsonl", "sub/in.jsonl"} {
			if err := os.WriteFile(filepath.Join(d, name), []byte(m.name), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Chmod last, once the fixtures exist, deepest first.
	for _, m := range modes {
		if err := os.Chmod(filepath.Join(base, m.name), m.mode); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		cwd  string // relative to base
		path string
		want string
	}{
		{"relative, in a 0311 directory", "", "search/in.jsonl", "ok search"},
		{"relative, from a 0311 directory", "search", "in.jsonl", "ok search"},
		{"relative, from below a 0311 directory", "search/sub", "../in.jsonl", "ok search"},
		{"relative, from a 0111 directory", "searchonly", "sub/in.jsonl", "ok searchonly"},
		{"file in a 0311 directory", "", base + "/search/in.jsonl", "ok search"},
		{"through a 0311 directory", "", base + "/search/sub/in.jsonl", "ok search"},
		{"dotdot back into a 0311 directory", "", base + "/search/sub/../in.jsonl", "ok search"},
		{"file in a 0111 directory", "", base + "/searchonly/in.jsonl", "ok searchonly"},
		{"through a 0111 directory", "", base + "/searchonly/sub/in.jsonl", "ok searchonly"},
		{"file in a 0000 directory", "", base + "/none/in.jsonl", "input_unreadable"},
		{"through a 0000 directory", "", base + "/none/sub/in.jsonl", "input_unreadable"},
		{"file in a 0644 directory", "", base + "/read/in.jsonl", "input_unreadable"},
		{"missing file in a 0311 directory", "", base + "/search/nope.jsonl", "input_not_found"},
	}
	var results []string
	if os.Geteuid() != 0 {
		t.Chdir(base) // to be restored
		for _, tc := range tests {
			results = append(results, openFrom(filepath.Join(base, tc.cwd), tc.path))
		}
	} else {
		var lines []string
		for _, tc := range tests {
			lines = append(lines, filepath.Join(base, tc.cwd)+"\t"+tc.path)
		}
		results = openAsNobody(t, base, lines)
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if results[i] != tc.want {
				t.Errorf("Open(%q): got %s, want %s", tc.path, results[i], tc.want)
			}
		})
	}
}

// openAsNobody runs openFrom on each line of list (a working directory, a
// tab, a path) in a copy of this test binary, kept in dir, as uid and gid
// 65534; it skips the test where that is impossible.
func openAsNobody(t *testing.T, dir string, list []string) []string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Skipf("cannot find the test binary to run it as another user: %v", err)
	}
	bin := filepath.Join(dir, "stream.test")
	if err := copyFile(self, bin); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^TestOpenAsHelper$", "-test.v")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), helperPaths+"="+strings.Join(list, "\n"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("the helper as uid 65534 failed: %v\n%s%s", err, out, ee.Stderr)
		}
		t.Skipf("cannot run the test binary as uid 65534: %v", err)
	}
	results := make([]string, len(list))
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		var i int
		rest, ok := strings.CutPrefix(sc.Text(), "result ")
		if !ok {
			continue
		}
		num, res, _ := strings.Cut(rest, " ")
		if _, err := fmt.Sscan(num, &i); err != nil || i < 0 || i >= len(list) {
			t.Fatalf("the helper printed %q", sc.Text())
		}
		results[i] = res
	}
	for i, r := range results {
		if r == "" {
			t.Fatalf("the helper gave no result for path %d:\n%s", i, out)
		}
	}
	return results
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o755)
}
