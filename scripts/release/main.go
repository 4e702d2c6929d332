// Command release builds cairn's release archives (SPEC §15): for each
// target a tar.gz (a zip for Windows) holding the binary, LICENSE and
// README.md under cairn_VERSION_OS_ARCH/, and checksums.txt, the archives'
// SHA-256 in sha256sum's format, so that `sha256sum -c checksums.txt`
// verifies a download. It publishes nothing; scripts/release.sh runs it.
//
//	go run ./scripts/release [-snapshot] [-targets LIST] [-out DIR] [VERSION]
//
// VERSION (v1.2.3, or v1.2.3-rc.1) is stamped into `cairn version`. A
// release needs a clean tree whose HEAD is tagged VERSION; -snapshot skips
// both checks, and without VERSION names the build
// v0.0.0-SNAPSHOT-<revision>[.dirty]. -targets is a comma-separated list of
// GOOS/GOARCH, "host" for this machine's; all six by default.
//
// The archives are reproducible: the same commit, version and Go
// toolchain give the same bytes on any machine. The binaries are built
// with -trimpath, no build ID and CGO_ENABLED=0; every archive entry has
// the commit's time (SOURCE_DATE_EPOCH when set), fixed modes and no
// owner, in a fixed order; gzip's header holds no name or time.
package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// targets are the release's platforms.
var targets = []string{
	"linux/amd64", "linux/arm64",
	"darwin/amd64", "darwin/arm64",
	"windows/amd64", "windows/arm64",
}

// docs go into every archive beside the binary: their names there and
// the files they are. The archive's README is its own, whose commands work
// with the binary alone (the repository's needs a clone: go run,
// testdata/).
var docs = []struct{ name, path string }{
	{"LICENSE", "LICENSE"},
	{"README.md", "scripts/release/archive/README.md"},
}

// versionVar is where -ldflags -X stamps the version.
const versionVar = "github.com/cairn-audit/cairn/cmd/cairn/cli.stampedVersion"

var semver = regexp.MustCompile(`^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$`)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	flags := flag.NewFlagSet("release", flag.ContinueOnError)
	snapshot := flags.Bool("snapshot", false, "build from any tree, with no tag; the version defaults to v0.0.0-SNAPSHOT-<revision>")
	list := flags.String("targets", strings.Join(targets, ","), `comma-separated GOOS/GOARCH, or "host"`)
	out := flags.String("out", "dist", "where the archives and checksums.txt go; must be empty or absent")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if flags.NArg() > 1 {
		return errors.New("give at most one VERSION")
	}
	version := flags.Arg(0)
	rev, _ := git("rev-parse", "HEAD")
	switch {
	case version == "" && !*snapshot:
		return errors.New("give the VERSION to release (v1.2.3), or -snapshot")
	case version == "":
		version = "v0.0.0-SNAPSHOT"
		if rev != "" {
			version += "-" + rev[:12]
			if status, _ := git("status", "--porcelain"); status != "" {
				version += ".dirty"
			}
		}
	}
	if !semver.MatchString(version) {
		return fmt.Errorf("version %q is not v MAJOR.MINOR.PATCH[-PRERELEASE]", version)
	}
	if !*snapshot {
		if status, err := git("status", "--porcelain"); err != nil || status != "" {
			return errors.New("the tree is not clean (or not a git clone): commit first, or use -snapshot")
		}
		if tags, _ := git("tag", "--points-at", "HEAD"); !slices.Contains(strings.Fields(tags), version) {
			return fmt.Errorf("HEAD is not tagged %s: tag it first, or use -snapshot", version)
		}
	}
	mtime, err := sourceDate()
	if err != nil {
		return err
	}
	var platforms []string
	for _, t := range strings.Split(*list, ",") {
		if t == "host" {
			t = runtime.GOOS + "/" + runtime.GOARCH
		}
		if !slices.Contains(targets, t) {
			return fmt.Errorf("target %q is not one of %s", t, strings.Join(targets, ", "))
		}
		if !slices.Contains(platforms, t) {
			platforms = append(platforms, t)
		}
	}
	if entries, err := os.ReadDir(*out); err == nil && len(entries) > 0 {
		return fmt.Errorf("%s is not empty", *out)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "cairn-release")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)

	sums := map[string]string{} // by archive
	for _, p := range platforms {
		start := time.Now()
		goos, goarch, _ := strings.Cut(p, "/")
		name := fmt.Sprintf("cairn_%s_%s_%s", strings.TrimPrefix(version, "v"), goos, goarch)
		bin := "cairn"
		if goos == "windows" {
			bin += ".exe"
		}
		binPath := filepath.Join(work, name, bin)
		cmd := exec.Command("go", "build", "-trimpath", "-o", binPath,
			"-ldflags", "-s -w -buildid= -X "+versionVar+"="+version, "./cmd/cairn")
		cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0")
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build for %s: %v\n%s", p, err, b)
		}
		files := []file{{bin, binPath, 0o755}}
		for _, d := range docs {
			files = append(files, file{d.name, d.path, 0o644})
		}
		slices.SortFunc(files, func(a, b file) int { return strings.Compare(a.name, b.name) })
		archive := name + ".tar.gz"
		write := writeTarGz
		if goos == "windows" {
			archive, write = name+".zip", writeZip
		}
		var buf bytes.Buffer
		if err := write(&buf, name, files, mtime); err != nil {
			return fmt.Errorf("%s: %v", archive, err)
		}
		if err := os.WriteFile(filepath.Join(*out, archive), buf.Bytes(), 0o644); err != nil {
			return err
		}
		sum := sha256.Sum256(buf.Bytes())
		sums[archive] = hex.EncodeToString(sum[:])
		fi, err := os.Stat(binPath)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: %.2f MB (binary %.2f MB), %.1f s\n", archive,
			float64(buf.Len())/1e6, float64(fi.Size())/1e6, time.Since(start).Seconds())
	}
	var text strings.Builder
	for _, a := range slices.Sorted(maps.Keys(sums)) {
		fmt.Fprintf(&text, "%s  %s\n", sums[a], a) // sha256sum's format
	}
	if err := os.WriteFile(filepath.Join(*out, "checksums.txt"), []byte(text.String()), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "cairn %s: %d archives and checksums.txt in %s\n", version, len(platforms), *out)
	return nil
}

// file is one archive entry: its name in the archive, where it is, and
// its mode.
type file struct {
	name, path string
	mode       fs.FileMode
}

func writeTarGz(w io.Writer, dir string, files []file, mtime time.Time) error {
	gz, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	hdr := func(name string, mode fs.FileMode, size int64, typ byte) *tar.Header {
		return &tar.Header{Name: name, Mode: int64(mode), Size: size, Typeflag: typ, ModTime: mtime, Format: tar.FormatUSTAR}
	}
	if err := tw.WriteHeader(hdr(dir+"/", 0o755, 0, tar.TypeDir)); err != nil {
		return err
	}
	for _, f := range files {
		b, err := os.ReadFile(f.path)
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(hdr(dir+"/"+f.name, f.mode, int64(len(b)), tar.TypeReg)); err != nil {
			return err
		}
		if _, err := tw.Write(b); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

func writeZip(w io.Writer, dir string, files []file, mtime time.Time) error {
	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(w, flate.BestCompression)
	})
	d := &zip.FileHeader{Name: dir + "/", Modified: mtime}
	d.SetMode(fs.ModeDir | 0o755)
	if _, err := zw.CreateHeader(d); err != nil {
		return err
	}
	for _, f := range files {
		b, err := os.ReadFile(f.path)
		if err != nil {
			return err
		}
		h := &zip.FileHeader{Name: dir + "/" + f.name, Method: zip.Deflate, Modified: mtime}
		h.SetMode(f.mode)
		fw, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if _, err := fw.Write(b); err != nil {
			return err
		}
	}
	return zw.Close()
}

// sourceDate is the archives' time: SOURCE_DATE_EPOCH when set (the
// reproducible-builds.org convention), else HEAD's commit time, else the
// Unix epoch's start.
func sourceDate() (time.Time, error) {
	s := os.Getenv("SOURCE_DATE_EPOCH")
	if s == "" {
		s, _ = git("log", "-1", "--format=%ct")
	}
	if s == "" {
		return time.Unix(0, 0).UTC(), nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH %q is not a number of seconds", s)
	}
	return time.Unix(n, 0).UTC(), nil
}

// git runs git with args and returns its output, trimmed.
func git(args ...string) (string, error) {
	out, err := exec.Command("git", args...).Output()
	return strings.TrimSpace(string(out)), err
}
