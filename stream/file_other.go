//go:build !unix

package stream

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/cairn-audit/cairn/audit"
)

// File is an input file opened as safely as this platform allows (SPEC
// §3): on Windows, and on WASI (wasip1), whose runtimes give a module no
// openat of its own. Unlike the unix version, the path is walked by name,
// each component checked with Lstat before the file is opened, so a
// directory swapped for a link in between goes unnoticed until Verify
// walks the path again. The file itself is opened without following a
// link where the platform can (noFollow: on WASI), so that a file swapped
// for a link after its Lstat is input_changed rather than read.
type File struct {
	f      *os.File
	start  string // the physical directory the walk starts from
	path   string // as given; never printed
	before fs.FileInfo
	n      int64
}

// Open opens path for an audit. Its errors are *audit.InputError with no
// record; their causes name no path.
//
// As on unix the path is not cleaned: ".." is the parent of the directory
// reached so far, "." and empty components change nothing, a trailing
// separator makes the path name a directory, and a relative path starts at
// the working directory with its links resolved.
func Open(path string) (*File, error) {
	start, path, err := origin(path)
	if err != nil {
		return nil, err
	}
	full, before, err := resolve(start, path)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(full, os.O_RDONLY|noFollow, 0)
	if err != nil {
		if now, bad := lstat(full); bad != nil || !os.SameFile(before, now) {
			// Not the file the walk saw: a link now, or gone.
			return nil, audit.Invalid(audit.InputChanged, -1, err)
		}
		return nil, audit.Invalid(audit.InputUnreadable, -1, err)
	}
	opened, err := f.Stat()
	if err != nil || !os.SameFile(before, opened) {
		f.Close()
		return nil, audit.Invalid(audit.InputChanged, -1, err)
	}
	return &File{f: f, start: start, path: path, before: opened}, nil
}

// origin is the directory the walk of path starts from, and the path to
// walk: the root of its volume for an absolute path, else the working
// directory with its links resolved. A path relative to another drive's
// working directory ("C:x") or rooted on the current drive ("\x") is
// first made absolute lexically, as Windows itself does.
func origin(path string) (start, walk string, err error) {
	if !filepath.IsAbs(path) && (filepath.VolumeName(path) != "" || path != "" && os.IsPathSeparator(path[0])) {
		if path, err = filepath.Abs(path); err != nil {
			return "", "", audit.Invalid(audit.InputUnreadable, -1, err)
		}
	}
	if filepath.IsAbs(path) {
		return filepath.VolumeName(path) + string(filepath.Separator), path, nil
	}
	wd, err := os.Getwd()
	if err == nil {
		wd, err = filepath.EvalSymlinks(wd)
	}
	if err != nil {
		return "", "", audit.Invalid(audit.InputUnreadable, -1, err)
	}
	return wd, path, nil
}

// resolve walks path from the directory start, one component at a time,
// refusing links, and returns the file's physical path and its Lstat.
// Every directory reached is physical, so ".." is its lexical parent.
func resolve(start, path string) (string, fs.FileInfo, error) {
	if path == "" {
		return "", nil, audit.Invalid(audit.InputNotFound, -1, nil)
	}
	rest := path[len(filepath.VolumeName(path)):]
	var parts []string
	for {
		i := 0
		for i < len(rest) && !os.IsPathSeparator(rest[i]) {
			i++
		}
		parts = append(parts, rest[:i])
		if i == len(rest) {
			break
		}
		rest = rest[i+1:]
	}
	cur := start
	name := parts[len(parts)-1]
	for _, part := range parts[:len(parts)-1] {
		switch part {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		cur = filepath.Join(cur, part)
		fi, bad := lstat(cur)
		switch {
		case bad != nil:
			return "", nil, bad
		case !fi.IsDir():
			return "", nil, audit.Invalid(audit.InputNotFound, -1, nil)
		}
	}
	switch name {
	case "", ".", "..":
		return "", nil, audit.Invalid(audit.InputNotRegular, -1, nil)
	}
	cur = filepath.Join(cur, name)
	fi, bad := lstat(cur)
	switch {
	case bad != nil:
		return "", nil, bad
	case !fi.Mode().IsRegular():
		return "", nil, audit.Invalid(audit.InputNotRegular, -1, nil)
	case fi.Size() > MaxBytes:
		return "", nil, tooLarge(fi.Size())
	}
	return cur, fi, nil
}

// lstat is os.Lstat of one name of the walk, with its failures as codes:
// missing, unreadable, or a symbolic link.
func lstat(path string) (fs.FileInfo, *audit.InputError) {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, audit.Invalid(audit.InputNotFound, -1, err)
	case err != nil:
		return nil, audit.Invalid(audit.InputUnreadable, -1, err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, audit.Invalid(audit.InputSymlink, -1, nil)
	}
	return fi, nil
}

// SizeError is input_too_large with the file's size, which the report
// still gives (SPEC §3: input.bytes is a file's size).
type SizeError struct {
	*audit.InputError
	Size int64
}

func (e *SizeError) Unwrap() error { return e.InputError }

func tooLarge(size int64) error {
	return &SizeError{audit.Invalid(audit.InputTooLarge, -1, nil), size}
}

// Size is the file's size as stat gave it at Open: what a report's
// input.bytes says of a file, however much of it was read (SPEC §3).
func (in *File) Size() int64 { return in.before.Size() }

func (in *File) Read(p []byte) (int, error) {
	n, err := in.f.Read(p)
	in.n += int64(n)
	return n, err
}

// Verify checks, after the whole file was read, that it did not change
// while it was read and that its path still names it: it is
// VerifyUnchanged, and every byte the first stat counted was read.
func (in *File) Verify() error {
	if err := in.VerifyUnchanged(); err != nil {
		return err
	}
	if in.n != in.before.Size() {
		return audit.Invalid(audit.InputChanged, -1, nil)
	}
	return nil
}

// VerifyUnchanged checks that the file has not changed since Open and that
// its path, walked again, still names it, however much of it was read
// (size, mtime, mode and identity; this platform gives no ctime). It may be
// called at any point between Open and Close, more than once, and while
// another goroutine reads the file.
func (in *File) VerifyUnchanged() error {
	after, err := in.f.Stat()
	if err != nil {
		return audit.Invalid(audit.InputChanged, -1, err)
	}
	_, now, err := resolve(in.start, in.path)
	if err != nil {
		return audit.Invalid(audit.InputChanged, -1, err)
	}
	b := in.before
	for _, fi := range []fs.FileInfo{after, now} {
		if fi.Size() != b.Size() || !fi.ModTime().Equal(b.ModTime()) || fi.Mode() != b.Mode() || !os.SameFile(fi, b) {
			return audit.Invalid(audit.InputChanged, -1, nil)
		}
	}
	return nil
}

// Close releases the file.
func (in *File) Close() error { return in.f.Close() }
