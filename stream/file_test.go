//go:build unix

package stream

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

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
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
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
