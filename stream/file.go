//go:build unix

package stream

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/cairn-audit/cairn/audit"
)

// File is an input file opened safely (SPEC §3): every directory of its
// absolute path and the file itself were opened without following links,
// the file without blocking, and it was checked with fstat.
type File struct {
	f      *os.File
	dir    int // the parent directory, kept open to re-check the name
	name   string
	before unix.Stat_t
	n      int64
}

// Open opens path for an audit. Its errors are *audit.InputError with no
// record; their causes name no path.
func Open(path string) (*File, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, audit.Invalid(audit.InputUnreadable, -1, err)
	}
	parts := strings.Split(strings.TrimPrefix(abs, "/"), "/")
	dir, err := unix.Open("/", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, openError(err)
	}
	// Walk down one directory at a time, refusing links at every step, so
	// that no component can be swapped for a link between check and use.
	for _, part := range parts[:len(parts)-1] {
		next, err := unix.Openat(dir, part, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			var st unix.Stat_t
			if fstatatNoFollow(dir, part, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
				err = syscall.ELOOP
			}
			unix.Close(dir)
			return nil, openError(err)
		}
		unix.Close(dir)
		dir = next
	}
	name := parts[len(parts)-1]
	in := &File{dir: dir, name: name}
	fail := func(err error) (*File, error) {
		unix.Close(dir)
		return nil, err
	}
	// Look before opening: opening a device or FIFO can have effects.
	var st unix.Stat_t
	if err := fstatatNoFollow(dir, name, &st); err != nil {
		return fail(openError(err))
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		return fail(audit.Invalid(audit.InputSymlink, -1, nil))
	case unix.S_IFREG:
	default:
		return fail(audit.Invalid(audit.InputNotRegular, -1, nil))
	}
	fd, err := unix.Openat(dir, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return fail(openError(err))
	}
	if err := unix.Fstat(fd, &in.before); err != nil {
		unix.Close(fd)
		return fail(audit.Invalid(audit.InputUnreadable, -1, err))
	}
	switch {
	case in.before.Mode&unix.S_IFMT != unix.S_IFREG:
		unix.Close(fd)
		return fail(audit.Invalid(audit.InputNotRegular, -1, nil))
	case in.before.Dev != st.Dev || in.before.Ino != st.Ino:
		unix.Close(fd)
		return fail(audit.Invalid(audit.InputChanged, -1, nil))
	case in.before.Size > MaxBytes:
		unix.Close(fd)
		return fail(audit.Invalid(audit.InputTooLarge, -1, nil))
	}
	in.f = os.NewFile(uintptr(fd), "input")
	return in, nil
}

func fstatatNoFollow(dir int, name string, st *unix.Stat_t) error {
	return unix.Fstatat(dir, name, st, unix.AT_SYMLINK_NOFOLLOW)
}

// openError maps an OS error to its code, keeping the error only as cause.
func openError(err error) error {
	var code audit.Code
	switch {
	case errors.Is(err, syscall.ENOENT), errors.Is(err, syscall.ENOTDIR):
		code = audit.InputNotFound
	case errors.Is(err, syscall.ELOOP):
		code = audit.InputSymlink
	case errors.Is(err, syscall.ENXIO), errors.Is(err, syscall.ENODEV), errors.Is(err, syscall.EISDIR):
		code = audit.InputNotRegular
	default:
		code = audit.InputUnreadable
	}
	return audit.Invalid(code, -1, err)
}

// Read reads the file, counting the bytes.
func (in *File) Read(p []byte) (int, error) {
	n, err := in.f.Read(p)
	in.n += int64(n)
	return n, err
}

// Verify checks, after the whole file was read, that it did not change
// while it was read and that its name still names it (SPEC §3).
func (in *File) Verify() error {
	var after, now unix.Stat_t
	if err := unix.Fstat(int(in.f.Fd()), &after); err != nil {
		return audit.Invalid(audit.InputChanged, -1, err)
	}
	if err := fstatatNoFollow(in.dir, in.name, &now); err != nil {
		return audit.Invalid(audit.InputChanged, -1, err)
	}
	b := &in.before
	if after.Size != b.Size || after.Dev != b.Dev || after.Ino != b.Ino ||
		after.Mtim != b.Mtim || after.Ctim != b.Ctim ||
		now.Dev != b.Dev || now.Ino != b.Ino || in.n != b.Size {
		return audit.Invalid(audit.InputChanged, -1, nil)
	}
	return nil
}

// Close releases the file and its directory.
func (in *File) Close() error {
	unix.Close(in.dir)
	return in.f.Close()
}
