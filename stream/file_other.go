//go:build !unix

package stream

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-audit/cairn/audit"
)

// File is an input file opened as safely as this platform allows (SPEC
// §3). Unlike the unix version, the path is checked with Lstat before it is
// opened, so a component swapped for a link in between goes unnoticed.
type File struct {
	f      *os.File
	path   string
	before fs.FileInfo
	n      int64
}

// Open opens path for an audit. Its errors are *audit.InputError with no
// record; their causes name no path.
func Open(path string) (*File, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, audit.Invalid(audit.InputUnreadable, -1, err)
	}
	vol := filepath.VolumeName(abs)
	cur := vol + string(filepath.Separator)
	parts := strings.Split(strings.TrimPrefix(abs[len(vol):], string(filepath.Separator)), string(filepath.Separator))
	for i, part := range parts {
		cur = filepath.Join(cur, part)
		fi, err := os.Lstat(cur)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, audit.Invalid(audit.InputNotFound, -1, err)
		case err != nil:
			return nil, audit.Invalid(audit.InputUnreadable, -1, err)
		case fi.Mode()&fs.ModeSymlink != 0:
			return nil, audit.Invalid(audit.InputSymlink, -1, nil)
		case i < len(parts)-1 && !fi.IsDir():
			return nil, audit.Invalid(audit.InputNotFound, -1, nil)
		case i == len(parts)-1 && !fi.Mode().IsRegular():
			return nil, audit.Invalid(audit.InputNotRegular, -1, nil)
		case i == len(parts)-1 && fi.Size() > MaxBytes:
			return nil, audit.Invalid(audit.InputTooLarge, -1, nil)
		}
	}
	before, _ := os.Lstat(abs)
	f, err := os.Open(abs)
	if err != nil {
		return nil, audit.Invalid(audit.InputUnreadable, -1, err)
	}
	opened, err := f.Stat()
	if err != nil || !os.SameFile(before, opened) {
		f.Close()
		return nil, audit.Invalid(audit.InputChanged, -1, err)
	}
	return &File{f: f, path: abs, before: opened}, nil
}

// Read reads the file, counting the bytes.
func (in *File) Read(p []byte) (int, error) {
	n, err := in.f.Read(p)
	in.n += int64(n)
	return n, err
}

// Verify checks, after the whole file was read, that it did not change
// while it was read and that its path still names it.
func (in *File) Verify() error {
	after, err := in.f.Stat()
	if err != nil {
		return audit.Invalid(audit.InputChanged, -1, err)
	}
	now, err := os.Lstat(in.path)
	if err != nil {
		return audit.Invalid(audit.InputChanged, -1, err)
	}
	b := in.before
	if after.Size() != b.Size() || !after.ModTime().Equal(b.ModTime()) || !os.SameFile(after, b) ||
		!os.SameFile(now, b) || in.n != b.Size() {
		return audit.Invalid(audit.InputChanged, -1, nil)
	}
	return nil
}

// Close releases the file.
func (in *File) Close() error { return in.f.Close() }
