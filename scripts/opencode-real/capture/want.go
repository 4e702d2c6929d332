//go:build unix

package main

// want.json: the verdicts of scenarios.go for the captures of one version,
// with one rule applied from the files themselves: a tool `state` member
// that the reference does not list is unknown_field (§13: the state is
// closed over the reference's members).

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// referenceStateMembers are the members of a tool part's `state` that
// reference/opencode-json.md lists (completed: status, input, output,
// title, metadata, time; error: error instead of output; pending/running
// states hold a subset).
var referenceStateMembers = []string{"status", "input", "output", "title", "metadata", "time", "error", "attachments"}

// wantFiles are the verdicts on one scenario's files of a version, by file
// name, each with its reason.
func wantFiles(sc *scenario, version string) []fileWant {
	w := sc.wantFor(version)
	fs := []fileWant{{sc.name + ".jsonl", w.run}, {sc.name + ".export.json", w.export}}
	if w.child != nil {
		fs = append(fs, fileWant{sc.name + ".child.export.json", *w.child})
	}
	return fs
}

type fileWant struct {
	file string
	w    want
}

// adjusted is w with unknown_field added to evidence_complete when the
// capture's tool states carry members the reference does not list.
func adjusted(w want, path string) (want, error) {
	extra, err := stateExtras(path)
	if err != nil || len(extra) == 0 {
		return w, err
	}
	ec := w.c.EvidenceComplete
	if !slices.Contains(ec.Codes, "unknown_field") {
		ec = check{State: "inconclusive", Codes: append(append([]string{}, ec.Codes...), "unknown_field")}
	}
	w.c.EvidenceComplete = ec
	w.why += "; its tool states carry `" + strings.Join(extra, "`, `") + "`, which the reference does not list, so evidence_complete is inconclusive unknown_field"
	return w, nil
}

// stateExtras are the member names of the tool parts' `state` objects in
// the capture (a run's JSONL or an export) that are not in
// referenceStateMembers, sorted.
func stateExtras(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			if t["type"] == "tool" {
				if st, ok := t["state"].(map[string]any); ok {
					for k := range st {
						if !slices.Contains(referenceStateMembers, k) {
							seen[k] = true
						}
					}
				}
			}
			for _, x := range t {
				walk(x)
			}
		case []any:
			for _, x := range t {
				walk(x)
			}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	for {
		var v any
		if err := dec.Decode(&v); err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		walk(v)
	}
	var out []string
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out, nil
}

// writeWant sets the want.json entries of one scenario's files in dir.
func writeWant(dir, version string, sc *scenario) error {
	for _, f := range wantFiles(sc, version) {
		w, err := adjusted(f.w, filepath.Join(dir, f.file))
		if err != nil {
			return err
		}
		if err := updateWant(filepath.Join(dir, "want.json"), f.file, w.verdict()); err != nil {
			return err
		}
	}
	return nil
}
