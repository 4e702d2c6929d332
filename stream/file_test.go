//go:build unix

package stream

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cairn-audit/cairn/audit"
)

func codeOf(t *testing.T, err error) audit.Code {
	t.Helper()
	var ie *audit.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("got error %v, want an *audit.InputError", err)
	}
	if ie.Record != -1 {
		t.Errorf("got record %d, want none for a file-level code", ie.Record)
	}
	return ie.Code
}

// realTemp is a temporary directory whose absolute path has no links.
func realTemp(t *testing.T) string {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestOpenRefuses(t *testing.T) {
	dir := realTemp(t)
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	regular := write("ok.jsonl", "{}\n")
	mustSymlink := func(target, link string) string {
		p := filepath.Join(dir, link)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if err := os.Mkdir(filepath.Join(dir, "real"), 0o700); err != nil {
		t.Fatal(err)
	}
	write("real/in.jsonl", "{}\n")
	mustSymlink("real", "alias")
	fifo := filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := write("big.jsonl", "")
	if err := os.Truncate(big, MaxBytes+1); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		path string
		want audit.Code
	}{
		{"missing file", filepath.Join(dir, "nope.jsonl"), audit.InputNotFound},
		{"missing directory", filepath.Join(dir, "nodir", "in.jsonl"), audit.InputNotFound},
		{"file as a directory", filepath.Join(regular, "in.jsonl"), audit.InputNotFound},
		{"symlinked file", mustSymlink(regular, "link.jsonl"), audit.InputSymlink},
		{"dangling symlink", mustSymlink(filepath.Join(dir, "gone"), "dangling.jsonl"), audit.InputSymlink},
		{"symlinked parent", filepath.Join(dir, "alias", "in.jsonl"), audit.InputSymlink},
		{"directory", filepath.Join(dir, "real"), audit.InputNotRegular},
		{"fifo", fifo, audit.InputNotRegular},
		{"device", "/dev/null", audit.InputNotRegular},
		{"too large by stat", big, audit.InputTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Open(tc.path)
			if err == nil {
				f.Close()
				t.Fatalf("Open(%s): got no error, want %s", tc.name, tc.want)
			}
			if got := codeOf(t, err); got != tc.want {
				t.Errorf("Open(%s): got %s, want %s", tc.name, got, tc.want)
			}
		})
	}
}

func readAll(t *testing.T, f *File) {
	t.Helper()
	if _, err := io.Copy(io.Discard, f); err != nil {
		t.Fatal(err)
	}
}

func TestVerify(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, path string)
		want   audit.Code // 0: unchanged
	}{
		{"unchanged", func(*testing.T, string) {}, 0},
		{"appended", func(t *testing.T, p string) {
			f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString("{}\n")
			f.Close()
		}, audit.InputChanged},
		{"rewritten in place, same size", func(t *testing.T, p string) {
			f, err := os.OpenFile(p, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteAt([]byte("[]"), 0)
			f.Close()
			// Make sure the change is visible even on coarse clocks.
			later := time.Now().Add(2 * time.Second)
			os.Chtimes(p, later, later)
		}, audit.InputChanged},
		{"path replaced by another file", func(t *testing.T, p string) {
			other := p + ".new"
			if err := os.WriteFile(other, []byte("{}\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(other, p); err != nil {
				t.Fatal(err)
			}
		}, audit.InputChanged},
		{"path removed", func(t *testing.T, p string) { os.Remove(p) }, audit.InputChanged},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(realTemp(t), "in.jsonl")
			if err := os.WriteFile(p, []byte("{}\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			f, err := Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			readAll(t, f)
			tc.change(t, p)
			err = f.Verify()
			if tc.want == 0 {
				if err != nil {
					t.Fatalf("Verify after %s: got %v, want no error", tc.name, err)
				}
				return
			}
			if got := codeOf(t, err); got != tc.want {
				t.Errorf("Verify after %s: got %s, want %s", tc.name, got, tc.want)
			}
		})
	}
}

func TestVerifyNeedsWholeFile(t *testing.T) {
	p := filepath.Join(realTemp(t), "in.jsonl")
	if err := os.WriteFile(p, []byte("{}\n{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 2)
	if _, err := f.Read(buf); err != nil {
		t.Fatal(err)
	}
	if got := codeOf(t, f.Verify()); got != audit.InputChanged {
		t.Errorf("Verify of a partly read file: got %s, want input_changed", got)
	}
}

// pathTree builds the tree the path tests walk, under a directory whose
// absolute path has no links, and returns that directory:
//
//	f.jsonl          "top"
//	a/f.jsonl        "a"
//	a/sub/
//	a/lnk -> ../real/sub
//	a/dirlnk -> sub
//	real/f.jsonl     "real"
//	real/sub/g.jsonl "sub"
func pathTree(t *testing.T) string {
	t.Helper()
	dir := realTemp(t)
	for _, d := range []string{"a/sub", "real/sub"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for name, data := range map[string]string{
		"f.jsonl": "top", "a/f.jsonl": "a", "real/f.jsonl": "real", "real/sub/g.jsonl": "sub",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"a/lnk": "../real/sub", "a/dirlnk": "sub"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// openCase is a path and what opening it must give: the content of the
// file audited, or a code.
type openCase struct {
	name string
	path string
	data string     // the content read, when want is 0
	want audit.Code // 0: opened
}

func checkOpen(t *testing.T, tc openCase) {
	t.Helper()
	f, err := Open(tc.path)
	if tc.want != 0 {
		if err == nil {
			f.Close()
			t.Fatalf("Open(%q): got no error, want %s", tc.path, tc.want)
		}
		if got := codeOf(t, err); got != tc.want {
			t.Errorf("Open(%q): got %s, want %s", tc.path, got, tc.want)
		}
		return
	}
	if err != nil {
		t.Fatalf("Open(%q): got %v, want the file %q", tc.path, err, tc.data)
	}
	defer f.Close()
	got, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != tc.data {
		t.Errorf("Open(%q): read %q, want %q", tc.path, got, tc.data)
	}
	if err := f.Verify(); err != nil {
		t.Errorf("Open(%q): Verify: got %v, want no error", tc.path, err)
	}
}

// TestOpenResolves pins SPEC §3 "How a path is resolved": the path is
// walked as written, with no lexical cleaning.
func TestOpenResolves(t *testing.T) {
	dir := pathTree(t)
	tests := []openCase{
		{"plain", dir + "/a/f.jsonl", "a", 0},
		// The OS reads real/f.jsonl here; a cleaned path would audit a/f.jsonl.
		{"dotdot through a link", dir + "/a/lnk/../f.jsonl", "", audit.InputSymlink},
		{"dotdot through a link to a sibling", dir + "/a/dirlnk/../f.jsonl", "", audit.InputSymlink},
		{"dotdot through a directory", dir + "/a/sub/../f.jsonl", "a", 0},
		{"dotdot twice", dir + "/a/sub/../../f.jsonl", "top", 0},
		{"dotdot after a file", dir + "/a/f.jsonl/../f.jsonl", "", audit.InputNotFound},
		{"dotdot after a missing directory", dir + "/a/nope/../f.jsonl", "", audit.InputNotFound},
		{"dot and empty components", dir + "/a/./sub//..//./f.jsonl", "a", 0},
		{"doubled leading slash", "//" + dir + "/a/f.jsonl", "a", 0},
		{"dotdot above the root", "/../../.." + dir + "/a/f.jsonl", "a", 0},
		{"trailing slash on a file", dir + "/a/f.jsonl/", "", audit.InputNotFound},
		{"trailing slashes on a file", dir + "/a/f.jsonl//", "", audit.InputNotFound},
		{"trailing dot on a file", dir + "/a/f.jsonl/.", "", audit.InputNotFound},
		{"trailing slash on a missing file", dir + "/a/nope.jsonl/", "", audit.InputNotFound},
		{"trailing slash on a directory", dir + "/a/", "", audit.InputNotRegular},
		{"trailing dot on a directory", dir + "/a/.", "", audit.InputNotRegular},
		{"trailing dotdot", dir + "/a/sub/..", "", audit.InputNotRegular},
		{"trailing slash on a link to a directory", dir + "/a/dirlnk/", "", audit.InputSymlink},
		{"trailing slash on a link to a file", mustLink(t, dir+"/a/f.jsonl", dir+"/flink") + "/", "", audit.InputSymlink},
		{"root", "/", "", audit.InputNotRegular},
		{"root doubled", "//", "", audit.InputNotRegular},
		{"root dot", "/.", "", audit.InputNotRegular},
		{"root dotdot", "/..", "", audit.InputNotRegular},
		{"empty", "", "", audit.InputNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { checkOpen(t, tc) })
	}
}

func mustLink(t *testing.T, target, link string) string {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	return link
}

// TestOpenRelative pins that a relative path starts at the physical
// working directory, not at $PWD: t.Chdir sets $PWD to the path given, as
// a shell's cd does, links and all.
func TestOpenRelative(t *testing.T) {
	dir := pathTree(t)
	tests := []struct {
		cwd string
		openCase
	}{
		// The working directory is real/sub, reached through a/lnk: the
		// OS reads real/f.jsonl, a lexical join with $PWD a/f.jsonl.
		{"a/lnk", openCase{"dotdot from a directory reached through a link", "../f.jsonl", "real", 0}},
		// No link is on the physical path of the working directory.
		{"a/lnk", openCase{"name in a directory reached through a link", "g.jsonl", "sub", 0}},
		{"a/lnk", openCase{"dot-slash name in a directory reached through a link", "./g.jsonl", "sub", 0}},
		{"a", openCase{"name", "f.jsonl", "a", 0}},
		{"a", openCase{"dotdot", "../f.jsonl", "top", 0}},
		{"a", openCase{"dotdot through a link", "lnk/../f.jsonl", "", audit.InputSymlink}},
		{"a", openCase{"link", "dirlnk/x", "", audit.InputSymlink}},
		{"a", openCase{"trailing slash on a file", "f.jsonl/", "", audit.InputNotFound}},
		{"a", openCase{"dot", ".", "", audit.InputNotRegular}},
		{"a", openCase{"dotdot alone", "..", "", audit.InputNotRegular}},
		{"a", openCase{"subdirectory", "sub", "", audit.InputNotRegular}},
		{"a/sub", openCase{"dotdot then a link", "../lnk/g.jsonl", "", audit.InputSymlink}},
		{"a/sub", openCase{"empty components", "..//.//f.jsonl", "a", 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Chdir(filepath.Join(dir, tc.cwd))
			checkOpen(t, tc.openCase)
		})
	}
}

// TestVerifyWalksAgain pins that Verify walks the path again from the
// start: a directory on it swapped for another holding an identical file,
// or for a link, is a change, though the file itself is untouched.
func TestVerifyWalksAgain(t *testing.T) {
	tests := []struct {
		name   string
		path   string // relative to the working directory, the test's tree
		change func(t *testing.T)
		want   audit.Code // 0: unchanged
	}{
		{"unchanged", "a/b/in.jsonl", func(*testing.T) {}, 0},
		{"unchanged, relative with dotdot", "a/b/../b/in.jsonl", func(*testing.T) {}, 0},
		{"parent swapped", "a/b/in.jsonl", func(t *testing.T) {
			swapDir(t, "a/b", "a/b.old")
		}, audit.InputChanged},
		{"grandparent swapped", "a/b/in.jsonl", func(t *testing.T) {
			swapDir(t, "a", "a.old")
		}, audit.InputChanged},
		{"parent swapped under dotdot", "a/b/../b/in.jsonl", func(t *testing.T) {
			swapDir(t, "a/b", "a/b.old")
		}, audit.InputChanged},
		{"parent replaced by a link to it", "a/b/in.jsonl", func(t *testing.T) {
			mustRename(t, "a/b", "a/b.old")
			mustLink(t, "b.old", "a/b")
		}, audit.InputChanged},
		{"parent renamed away", "a/b/in.jsonl", func(t *testing.T) {
			mustRename(t, "a/b", "a/b.old")
		}, audit.InputChanged},
		{"file replaced by a link to it", "a/b/in.jsonl", func(t *testing.T) {
			mustRename(t, "a/b/in.jsonl", "a/b/in.old")
			mustLink(t, "in.old", "a/b/in.jsonl")
		}, audit.InputChanged},
		{"mode changed (ctime only)", "a/b/in.jsonl", func(t *testing.T) {
			if err := os.Chmod("a/b/in.jsonl", 0o644); err != nil {
				t.Fatal(err)
			}
		}, audit.InputChanged},
	}
	// How much is read before the change, and which check follows.
	reads := []struct {
		name string
		n    int64 // bytes read; -1: to the end
		full bool  // Verify, else VerifyUnchanged
	}{
		{"read to the end, Verify", -1, true},
		{"read to the end, VerifyUnchanged", -1, false},
		{"read in part, VerifyUnchanged", 1, false},
		{"not read, VerifyUnchanged", 0, false},
	}
	for _, tc := range tests {
		for _, how := range []string{"relative", "absolute"} {
			for _, rd := range reads {
				t.Run(tc.name+", "+how+", "+rd.name, func(t *testing.T) {
					dir := realTemp(t)
					t.Chdir(dir)
					if err := os.MkdirAll("a/b", 0o700); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile("a/b/in.jsonl", []byte("{}\n"), 0o600); err != nil {
						t.Fatal(err)
					}
					path := tc.path
					if how == "absolute" {
						path = dir + "/" + path
					}
					f, err := Open(path)
					if err != nil {
						t.Fatal(err)
					}
					defer f.Close()
					if rd.n < 0 {
						readAll(t, f)
					} else if _, err := io.CopyN(io.Discard, f, rd.n); err != nil {
						t.Fatal(err)
					}
					tc.change(t)
					verify := f.VerifyUnchanged
					if rd.full {
						verify = f.Verify
					}
					err = verify()
					if tc.want == 0 {
						if err != nil {
							t.Fatalf("%s after %s: got %v, want no error", rd.name, tc.name, err)
						}
						return
					}
					if got := codeOf(t, err); got != tc.want {
						t.Errorf("%s after %s: got %s, want %s", rd.name, tc.name, got, tc.want)
					}
				})
			}
		}
	}
}

// TestVerifyAnyTime pins that VerifyUnchanged may be called at any point
// after Open, and more than once, and that only Verify requires every
// byte to have been read.
func TestVerifyAnyTime(t *testing.T) {
	p := filepath.Join(realTemp(t), "in.jsonl")
	if err := os.WriteFile(p, []byte("{}\n{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	step := func(what string, check func() error, want audit.Code) {
		t.Helper()
		err := check()
		switch {
		case want == 0 && err != nil:
			t.Errorf("%s: got %v, want no error", what, err)
		case want != 0 && err == nil:
			t.Errorf("%s: got no error, want %s", what, want)
		case want != 0:
			if got := codeOf(t, err); got != want {
				t.Errorf("%s: got %s, want %s", what, got, want)
			}
		}
	}
	step("VerifyUnchanged before reading", f.VerifyUnchanged, 0)
	step("Verify before reading", f.Verify, audit.InputChanged)
	if _, err := io.CopyN(io.Discard, f, 3); err != nil {
		t.Fatal(err)
	}
	step("VerifyUnchanged after 3 bytes", f.VerifyUnchanged, 0)
	step("VerifyUnchanged after 3 bytes, again", f.VerifyUnchanged, 0)
	step("Verify after 3 bytes", f.Verify, audit.InputChanged)
	readAll(t, f)
	step("Verify at the end", f.Verify, 0)
	step("Verify at the end, again", f.Verify, 0)
	step("VerifyUnchanged at the end", f.VerifyUnchanged, 0)
}

func mustRename(t *testing.T, from, to string) {
	t.Helper()
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
}

// swapDir moves the directory d away to old and puts a copy in its place:
// the same names and contents, other inodes.
func swapDir(t *testing.T, d, old string) {
	t.Helper()
	mustRename(t, d, old)
	err := filepath.WalkDir(old, func(p string, e os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(old, p)
		dst := filepath.Join(d, rel)
		if e.IsDir() {
			return os.Mkdir(dst, 0o700)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestOpenRemovedWorkingDirectory: a relative path from a working
// directory that was removed names nothing.
func TestOpenRemovedWorkingDirectory(t *testing.T) {
	dir := filepath.Join(realTemp(t), "gone")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"in.jsonl", "./in.jsonl", "../gone/in.jsonl"} {
		f, err := Open(path)
		if err == nil {
			f.Close()
			t.Fatalf("Open(%q): got no error, want input_not_found", path)
		}
		if got := codeOf(t, err); got != audit.InputNotFound {
			t.Errorf("Open(%q): got %s, want input_not_found", path, got)
		}
	}
}

// TestVerifyAfterClose: Verify after Close is a misuse, but it reports
// input_changed rather than a verdict.
func TestVerifyAfterClose(t *testing.T) {
	p := filepath.Join(realTemp(t), "in.jsonl")
	if err := os.WriteFile(p, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	readAll(t, f)
	f.Close()
	for name, check := range map[string]func() error{"Verify": f.Verify, "VerifyUnchanged": f.VerifyUnchanged} {
		if got := codeOf(t, check()); got != audit.InputChanged {
			t.Errorf("%s after Close: got %s, want input_changed", name, got)
		}
	}
}
