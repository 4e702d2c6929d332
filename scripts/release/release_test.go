package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
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
	"testing"
	"time"

	"github.com/cairn-audit/cairn/scripts/testbuild"
)

// TestReleaseSnapshot runs scripts/release.sh in snapshot mode into a
// temporary directory, for this machine's platform and (without -short)
// windows/amd64, whose archive is a zip: checksums.txt lists every
// archive and nothing else, sorted, in sha256sum's format, and verifies
// (with sha256sum -c too where it is installed); each archive holds the
// binary, LICENSE and README.md, sorted, with the source date and fixed
// modes; the host's binary says the stamped version; and a second build
// gives the same bytes.
func TestReleaseSnapshot(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash to run scripts/release.sh")
	}
	const version = "v1.2.3-test.1"
	const epoch = 1700000000
	host := runtime.GOOS + "/" + runtime.GOARCH
	targets := []string{host}
	if !testing.Short() && host != "windows/amd64" {
		targets = append(targets, "windows/amd64")
	}
	// Each run of release.sh builds the standard library with -trimpath
	// for its targets, cold where the cache is empty: under the suite's
	// build lock, with a deadline that kills its process group.
	release := func(out string, targets ...string) {
		t.Helper()
		ctx := testbuild.Context(t, testbuild.Deadline)
		cmd := testbuild.Command(ctx, bash, "../release.sh", "-snapshot", "-targets", strings.Join(targets, ","), "-out", out, version)
		cmd.Env = append(os.Environ(), "SOURCE_DATE_EPOCH="+strconv.Itoa(epoch))
		if b, err := testbuild.Run(t, ctx, "-trimpath CGO_ENABLED=0", cmd); err != nil {
			t.Fatalf("release.sh: %v\n%s", err, b)
		} else {
			t.Logf("%s", b)
		}
	}
	out := filepath.Join(t.TempDir(), "dist")
	release(out, targets...)

	sums := checksums(t, out)
	var names []string
	for _, p := range targets {
		goos, goarch, _ := strings.Cut(p, "/")
		name := "cairn_1.2.3-test.1_" + goos + "_" + goarch
		archive := name + ".tar.gz"
		if goos == "windows" {
			archive = name + ".zip"
		}
		names = append(names, archive)
		b, err := os.ReadFile(filepath.Join(out, archive))
		if err != nil {
			t.Fatal(err)
		}
		entries := unpack(t, archive, b)
		bin := "cairn"
		if goos == "windows" {
			bin = "cairn.exe"
		}
		want := []entry{
			{name: name + "/", mode: fs.ModeDir | 0o755},
			{name: name + "/LICENSE", mode: 0o644},
			{name: name + "/README.md", mode: 0o644},
			{name: name + "/" + bin, mode: 0o755},
		}
		for i, e := range entries {
			if !e.mtime.Equal(time.Unix(epoch, 0)) {
				t.Errorf("%s: %s has time %v, want %v", archive, e.name, e.mtime, time.Unix(epoch, 0).UTC())
			}
			entries[i].mtime = time.Time{}
		}
		if !slices.Equal(entries, want) {
			t.Errorf("%s holds %v, want %v", archive, entries, want)
		}
		if p != host {
			continue
		}
		exe := filepath.Join(t.TempDir(), bin)
		if err := os.WriteFile(exe, member(t, archive, b, name+"/"+bin), 0o755); err != nil {
			t.Fatal(err)
		}
		got, err := exec.Command(exe, "version").Output()
		if err != nil || !strings.HasPrefix(string(got), "cairn "+version+" (") {
			t.Errorf("cairn version: %q (%v), want cairn %s (...)", got, err, version)
		}
		got, err = exec.Command(exe, "version", "--json").Output()
		var v struct{ Version string }
		if err != nil || json.Unmarshal(got, &v) != nil || v.Version != version {
			t.Errorf("cairn version --json: %q (%v), want version %s", got, err, version)
		}
		archiveReadme(t, bash, exe, member(t, archive, b, name+"/README.md"))
	}
	slices.Sort(names)
	if got := slices.Sorted(maps.Keys(sums)); !slices.Equal(got, names) {
		t.Errorf("checksums.txt lists %v, want %v", got, names)
	}
	if sha256sum, err := exec.LookPath("sha256sum"); err == nil {
		cmd := exec.Command(sha256sum, "-c", "checksums.txt")
		cmd.Dir = out
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("sha256sum -c checksums.txt: %v\n%s", err, b)
		}
	}
	if testing.Short() {
		return
	}
	again := filepath.Join(t.TempDir(), "dist")
	release(again, host)
	for name, sum := range checksums(t, again) {
		if sums[name] != sum {
			t.Errorf("%s: built again, sha256 %s, first %s: not reproducible", name, sum, sums[name])
		}
	}
}

// archiveReadme runs the commands of the archive's README as a downloader
// would, with bash in a folder that holds nothing but the binary: every
// line of its sh blocks, but those that need an agent's CLI, must exit as
// its comment says ("exit N"; none means 0); and no line needs a clone (go,
// testdata/, scripts/, docs/).
func archiveReadme(t *testing.T, bash, exe string, readme []byte) {
	t.Helper()
	dir := t.TempDir()
	bin, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cairn"), bin, 0o755); err != nil {
		t.Fatal(err)
	}
	exit := regexp.MustCompile(`exit (\d)`)
	clone := regexp.MustCompile(`(^|[\s|;&(])(go (run|test|build|install)|\S*testdata/|scripts/|docs/)`)
	agent := regexp.MustCompile(`^(codex|claude|gemini|pi|opencode) `)
	ran, inBlock := 0, false
	for _, line := range strings.Split(string(readme), "\n") {
		switch {
		case line == "```sh":
			inBlock = true
			continue
		case strings.HasPrefix(line, "```"):
			inBlock = false
			continue
		case !inBlock || strings.TrimSpace(line) == "":
			continue
		}
		if clone.MatchString(line) {
			t.Errorf("archive README: %q needs a clone", line)
		}
		if agent.MatchString(line) {
			if !strings.Contains(line, "./cairn eval protocol --") {
				t.Errorf("archive README: %q does not pipe into ./cairn", line)
			}
			continue
		}
		if !strings.HasPrefix(line, "./cairn ") && !strings.HasPrefix(line, "CAIRN_EVAL=1 ./cairn ") && !strings.HasPrefix(line, "printf ") {
			t.Errorf("archive README: %q is not a command of the binary", line)
			continue
		}
		want := 0
		_, comment, _ := strings.Cut(line, "# ")
		if m := exit.FindStringSubmatch(comment); m != nil {
			want, _ = strconv.Atoi(m[1])
		}
		cmd := exec.Command(bash, "--noprofile", "--norc", "-c", line)
		cmd.Dir = dir
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir}
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != want || len(out) == 0 && !strings.HasPrefix(line, "printf ") {
			t.Errorf("archive README: %s: exit %d, want %d\n%s", line, code, want, out)
		}
		ran++
	}
	if ran < 8 {
		t.Errorf("archive README: ran %d commands", ran)
	}
}

// TestReleaseRefuses checks what is refused before anything is built: no
// version without -snapshot, a version that is not semver, a target that
// is not a release's, and (this clone's HEAD carrying no such tag) a
// release of v9.9.9.
func TestReleaseRefuses(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"1.2.3"},
		{"-snapshot", "v1.2"},
		{"-snapshot", "-targets", "plan9/386", "v1.2.3"},
		{"v9.9.9"},
	} {
		out := filepath.Join(t.TempDir(), "dist")
		if err := run(append([]string{"-out", out}, args...), io.Discard); err == nil {
			t.Errorf("release %v: no error", args)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("release %v: made %s", args, out)
		}
	}
}

// checksums reads dir/checksums.txt, checks its format and order and each
// sum against its file, and returns the sums by archive.
func checksums(t *testing.T, dir string) map[string]string {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(dir, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	sums := map[string]string{}
	var order []string
	for _, line := range strings.SplitAfter(string(text), "\n") {
		if line == "" {
			continue
		}
		sum, name, ok := strings.Cut(strings.TrimSuffix(line, "\n"), "  ")
		if b, err := hex.DecodeString(sum); !ok || err != nil || len(b) != sha256.Size || !strings.HasSuffix(line, "\n") {
			t.Fatalf("checksums.txt: line %q is not sha256sum's", line)
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if got := sha256.Sum256(b); hex.EncodeToString(got[:]) != sum {
			t.Errorf("%s: sha256 %x, checksums.txt says %s", name, got, sum)
		}
		sums[name] = sum
		order = append(order, name)
	}
	if !slices.IsSorted(order) {
		t.Errorf("checksums.txt is not sorted: %v", order)
	}
	files, _ := os.ReadDir(dir)
	if len(files) != len(sums)+1 {
		t.Errorf("%s holds %d files, checksums.txt lists %d", dir, len(files), len(sums))
	}
	return sums
}

// entry is what a test checks of an archive entry.
type entry struct {
	name  string
	mode  fs.FileMode
	mtime time.Time
}

// unpack lists a .tar.gz's or a .zip's entries in order.
func unpack(t *testing.T, name string, b []byte) []entry {
	t.Helper()
	var entries []entry
	if strings.HasSuffix(name, ".zip") {
		zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range zr.File {
			entries = append(entries, entry{f.Name, f.Mode() & (fs.ModeDir | fs.ModePerm), f.Modified})
		}
		return entries
	}
	gz, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if gz.Name != "" || !gz.ModTime.IsZero() {
		t.Errorf("%s: gzip header names %q at %v, want neither", name, gz.Name, gz.ModTime)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return entries
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" {
			t.Errorf("%s: %s is owned by %d/%d (%q/%q), want no owner", name, h.Name, h.Uid, h.Gid, h.Uname, h.Gname)
		}
		entries = append(entries, entry{h.Name, h.FileInfo().Mode() & (fs.ModeDir | fs.ModePerm), h.ModTime})
	}
}

// member is the bytes of the entry path of an archive.
func member(t *testing.T, name string, b []byte, path string) []byte {
	t.Helper()
	if strings.HasSuffix(name, ".zip") {
		zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		f, err := zr.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		data, err := io.ReadAll(f)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	gz, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err != nil {
			t.Fatalf("%s: no %s (%v)", name, path, err)
		}
		if h.Name == path {
			data, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			return data
		}
	}
}
