// Package wasitest holds no code, only the test that cairn built for WASI
// (GOOS=wasip1 GOARCH=wasm) reports byte for byte what the native binary
// reports (SPEC §15): it builds both from this module, runs the module
// under Node's node:wasi where Node 20 or newer is installed (and skips
// with a message where it is not), and compares stdout, stderr and the
// exit code on the controls, one real capture per input format and the
// file-safety refusals, from a file and from standard input.
//
// It is a package of its own, not a test in cmd/cairn/cli, because that
// package's test binary is cairn itself (testscript.RunMain) and cannot be
// built for wasip1, and because what it compares are the two binaries as
// users get them, built by go build, not the CLI driven in-process.
package wasitest
