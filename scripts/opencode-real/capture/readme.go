//go:build unix

package main

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// readmeText is testdata/opencode/real/README.md: per scenario, what it does,
// opencode's exit code, and for each file the verdict want.json holds and
// why, for every version captured under root (the README's folder); a
// version is named only where it differs.
func readmeText(root string) (string, error) {
	versions, err := capturedVersions(root)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(readmeHead)
	fmt.Fprintf(&b, "Versions captured: %s. Verdicts are the same in every version unless versions are named.\n\n", strings.Join(versions, ", "))
	for _, s := range allScenarios() {
		fmt.Fprintf(&b, "- **`%s`** — %s. `opencode run` exit %s.\n", s.name, s.about, perVersion(versions, func(v string) string {
			e := s.exitFor(v)
			if e == 130 {
				return "130 (SIGINT)"
			}
			return fmt.Sprint(e)
		}))
		files := wantFiles(s, "")
		for i := range files {
			i := i
			line := perVersion(versions, func(v string) string {
				w := wantFiles(s, v)[i].w
				vd := w.verdict()
				return fmt.Sprintf("**%s (exit %d)**: %s", vd.Status, vd.ExitCode, w.why)
			}) + "."
			// The unknown_field rule of want.go, per version, after the
			// scripted verdicts.
			for _, v := range versions {
				f := wantFiles(s, v)[i]
				path := filepath.Join(root, v, f.file)
				extra, err := stateExtras(path)
				switch {
				case os.IsNotExist(err):
					line += fmt.Sprintf(" In %s: not captured.", v)
				case err != nil:
					return "", fmt.Errorf("%s: %w", path, err)
				case len(extra) > 0:
					w, _ := adjusted(f.w, path)
					vd := w.verdict()
					line += fmt.Sprintf(" In %s: **%s (exit %d)**, evidence_complete also `unknown_field`: its tool states carry `%s`, which the reference does not list.",
						v, vd.Status, vd.ExitCode, strings.Join(extra, "`, `"))
				}
			}
			fmt.Fprintf(&b, "  - `%s`: %s\n", files[i].file, line)
		}
	}
	b.WriteString(readmeTail)
	return b.String(), nil
}

// capturedVersions are the folders under root that hold a want.json, newest
// first.
func capturedVersions(root string) ([]string, error) {
	ms, err := filepath.Glob(filepath.Join(root, "*", "want.json"))
	if err != nil {
		return nil, err
	}
	var vs []string
	for _, m := range ms {
		b, err := os.ReadFile(m)
		if err != nil || !json.Valid(b) {
			return nil, fmt.Errorf("%s: not JSON", m)
		}
		vs = append(vs, filepath.Base(filepath.Dir(m)))
	}
	sort.Slice(vs, func(i, j int) bool { return versionLess(vs[j], vs[i]) })
	return vs, nil
}

func versionLess(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		var x, y int
		fmt.Sscan(as[i], &x)
		fmt.Sscan(bs[i], &y)
		if x != y {
			return x < y
		}
	}
	return len(as) < len(bs)
}

// perVersion is f's text, once when every version gives the same, else
// "V1: …; V2: …" grouping the versions that agree.
func perVersion(versions []string, f func(string) string) string {
	var order []string
	by := map[string][]string{}
	for _, v := range versions {
		t := f(v)
		if by[t] == nil {
			order = append(order, t)
		}
		by[t] = append(by[t], v)
	}
	if len(order) == 1 {
		return order[0]
	}
	var parts []string
	for _, t := range order {
		parts = append(parts, "in "+strings.Join(by[t], ", ")+": "+t)
	}
	return strings.Join(parts, "; ")
}

//go:embed readme_head.md
var readmeHead string

//go:embed readme_tail.md
var readmeTail string
