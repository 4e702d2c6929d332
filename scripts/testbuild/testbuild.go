// Package testbuild runs the go commands of cairn's tests — the builds of
// a binary of their own (the wasip1 module, the release archives, the
// GitHub Action's build step) — so that the whole suite passes on a busy
// machine with an empty build cache: each such test gives its go command
// a deadline of its own, and when it passes, the command's whole process
// group is killed (a go build leaves compilers behind otherwise, running
// after the test failed); the builds of one configuration, across all
// the suite's test processes, take one lock, one at a time, so that two
// packages never compile the same standard library at once (the second finds the first's work in the
// build cache); and a binary built for the tests (Cairn) is built once
// for every test process of a go test run and of later runs of the same
// source, not once per package.
//
// It is a package of its own, not an internal one, because the tests of
// packages under cmd/ and scripts/ use it; it holds no product code.
package testbuild

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// Deadline is the longest one go command of a test may run: a cold build
// of the standard library for another system takes about a minute of CPU
// time, three to four minutes on a loaded 2-core machine (measured:
// windows/amd64 with -trimpath, 77 s of CPU, 228 s of wall time with the
// load average at 15). Past it the test fails, its command killed.
const Deadline = 6 * time.Minute

// Context is the context of a go command of t: it ends after d, or a
// minute before t's own deadline (go test -timeout), whichever is first,
// so that the test fails with its own message and kills its command
// before go test's timeout would panic and leave the command running.
func Context(t testing.TB, d time.Duration) context.Context {
	t.Helper()
	end := time.Now().Add(d)
	if dt, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if td, ok := dt.Deadline(); ok && td.Add(-time.Minute).Before(end) {
			end = td.Add(-time.Minute)
		}
	}
	ctx, cancel := context.WithDeadline(context.Background(), end)
	t.Cleanup(cancel)
	return ctx
}

// Command is exec.CommandContext whose command runs in a process group of
// its own, killed whole when ctx ends: the go command's compilers and
// linkers too, and a script's children.
func Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	ownGroup(cmd)
	cmd.WaitDelay = 10 * time.Second
	return cmd
}

// Run runs cmd, made by Command, holding the lock of the suite's builds
// of configuration config (Lock), and fails t when ctx ended first. It
// returns cmd's combined output and error, as cmd.CombinedOutput does.
func Run(t testing.TB, ctx context.Context, config string, cmd *exec.Cmd) ([]byte, error) {
	t.Helper()
	unlock := Lock(t, ctx, config)
	defer unlock()
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("%s did not finish before its deadline (testbuild.Deadline, or the test's): its process group was killed\n%s",
			strings.Join(cmd.Args, " "), out)
	}
	return out, err
}

// Lock takes the lock of the suite's builds of one configuration (a
// name: "trimpath", "default", "GOOS=wasip1"), across test processes,
// waiting at most until ctx ends (then t fails); unlock releases it.
// Builds of one configuration compile the same packages: one after the
// other, the second finds the first's in the build cache. Builds of
// different ones share nothing and run side by side.
func Lock(t testing.TB, ctx context.Context, config string) (unlock func()) {
	t.Helper()
	if err := os.MkdirAll(dir(), 0o700); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(config))
	f, err := os.OpenFile(filepath.Join(dir(), "lock-"+hex.EncodeToString(sum[:6])), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	for {
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			t.Fatal(err)
		}
		if ok {
			return func() { f.Close() } // closing releases the lock
		}
		select {
		case <-ctx.Done():
			f.Close()
			t.Fatalf("waited for the lock of the suite's builds past the deadline")
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// dir is where the lock and the binaries are.
func dir() string { return filepath.Join(os.TempDir(), fmt.Sprintf("cairn-testbuild-%d", os.Getuid())) }

// Cairn is ./cmd/cairn built by go build with env added (GOOS=wasip1,
// GOARCH=wasm), its path: built once for every test process, under the
// lock, into a folder named by the build's configuration and a digest of
// the module's Go files, where a later test (another package's, or a later
// run's on the same source) finds it. Folders of other sources older than
// a day are removed.
func Cairn(t testing.TB, env ...string) string {
	t.Helper()
	ctx := Context(t, Deadline)
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	key, err := sourceKey(root, env)
	if err != nil {
		t.Fatal(err)
	}
	unlock := Lock(t, ctx, strings.Join(env, " "))
	defer unlock()
	name := "cairn"
	for _, kv := range env {
		switch kv {
		case "GOOS=windows":
			name += ".exe"
		case "GOARCH=wasm":
			name += ".wasm"
		}
	}
	out := filepath.Join(dir(), key, name)
	if fi, err := os.Stat(out); err == nil && fi.Mode().IsRegular() {
		return out
	}
	prune(key)
	tmp := out + ".tmp"
	if err := os.MkdirAll(filepath.Dir(out), 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := Command(ctx, goTool(), "build", "-o", tmp, "./cmd/cairn")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), env...)
	b, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("go build %s did not finish before its deadline: its process group was killed\n%s", strings.Join(env, " "), b)
	}
	if err != nil {
		t.Fatalf("go build %s: %v\n%s", strings.Join(env, " "), err, b)
	}
	if err := os.Rename(tmp, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// goTool is the go command of the toolchain running the tests.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}

// moduleRoot is the folder of cairn's go.mod, above the working directory.
func moduleRoot() (string, error) {
	d, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", errors.New("testbuild: no go.mod above the working directory")
		}
		d = parent
	}
}

// sourceKey names a build: the toolchain, the environment given and the
// GOFLAGS set, and the digest of every Go file (tests but for their names
// left out: they are not built) with go.mod and go.sum.
func sourceKey(root string, env []string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%q\nGOFLAGS=%s\n", runtime.Version(), runtime.GOOS+"/"+runtime.GOARCH, env, os.Getenv("GOFLAGS"))
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if name == "go.mod" || name == "go.sum" || strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	slices.Sort(files)
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			return "", err
		}
		rel, _ := filepath.Rel(root, p)
		fmt.Fprintf(h, "%s %d\n", rel, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:24], nil
}

// prune removes the folders of other builds last changed over a day ago.
func prune(keep string) {
	entries, _ := os.ReadDir(dir())
	for _, e := range entries {
		if !e.IsDir() || e.Name() == keep {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > 24*time.Hour {
			os.RemoveAll(filepath.Join(dir(), e.Name()))
		}
	}
}
