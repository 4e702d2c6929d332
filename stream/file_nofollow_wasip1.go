package stream

import "syscall"

// noFollow opens the last name of a path without following a link: WASI's
// path_open without LOOKUP_SYMLINK_FOLLOW, which Go's O_NOFOLLOW asks for.
const noFollow = syscall.O_NOFOLLOW
