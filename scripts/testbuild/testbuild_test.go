//go:build unix

package testbuild

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCommandKillsGroup: when its context ends, a command's whole process
// group dies, a child it left running in the background included.
func TestCommandKillsGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	ctx := Context(t, 500*time.Millisecond)
	cmd := Command(ctx, "sh", "-c", "sleep 300 & echo $! > "+pidFile+"; wait")
	start := time.Now()
	err := cmd.Run()
	if err == nil || ctx.Err() == nil || time.Since(start) > time.Minute {
		t.Fatalf("the command ended with %v after %v, its context with %v", err, time.Since(start), ctx.Err())
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		// Gone, or a zombie waiting for init: either way not running.
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) || zombie(pid) {
			return
		}
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the background child %d outlived its command's group", pid)
		}
	}
}

func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, after, _ := strings.Cut(string(b), ") ")
	return strings.HasPrefix(after, "Z")
}

// TestLockExcludes: while the lock is held, it cannot be taken again (on
// another open file, as another process would), and it can once released.
func TestLockExcludes(t *testing.T) {
	// A lock folder of its own: the suite's builds may hold theirs.
	t.Setenv("TMPDIR", t.TempDir())
	unlock := Lock(t, Context(t, time.Minute), "test")
	other := Lock(t, Context(t, time.Minute), "another configuration")
	other()
	sum := sha256.Sum256([]byte("test"))
	f, err := os.OpenFile(filepath.Join(dir(), "lock-"+hex.EncodeToString(sum[:6])), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if ok, err := tryLock(f); ok || err != nil {
		t.Fatalf("a second lock while the first is held: %v, %v", ok, err)
	}
	unlock()
	if ok, err := tryLock(f); !ok || err != nil {
		t.Fatalf("the lock once released: %v, %v", ok, err)
	}
}

// TestSourceKey: the key changes with the environment and with any Go
// file, not with a test file.
func TestSourceKey(t *testing.T) {
	root := t.TempDir()
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(root, name), []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module x\n")
	write("a.go", "package x\n")
	key := func(env ...string) string {
		k, err := sourceKey(root, env)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	k0 := key()
	if key("GOOS=wasip1") == k0 {
		t.Error("the environment does not change the key")
	}
	write("a_test.go", "package x\n")
	if key() != k0 {
		t.Error("a test file changes the key")
	}
	write("a.go", "package x // changed\n")
	if key() == k0 {
		t.Error("a Go file's change does not change the key")
	}
}
