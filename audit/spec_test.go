package audit

import (
	"bytes"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// specCodes reads the code names of the §8 table of the SPEC at path.
func specCodes(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sec, ok := section8(string(b))
	if !ok {
		t.Fatalf("%s has no section 8", path)
	}
	var names []string
	for _, m := range regexp.MustCompile("`([a-z0-9_]+)`").FindAllStringSubmatch(sec, -1) {
		names = append(names, m[1])
	}
	if len(names) == 0 {
		t.Fatalf("%s: no codes in section 8", path)
	}
	return names
}

// section8 is the text of SPEC §8, up to the next section.
func section8(spec string) (string, bool) {
	_, sec, ok := strings.Cut(spec, "## 8. Every code")
	sec, _, _ = strings.Cut(sec, "\n## ")
	return sec, ok
}

// TestCodesMatchSpec checks that the code base's vocabulary is exactly the
// §8 table of SPEC.md, both ways, and in the same groups.
func TestCodesMatchSpec(t *testing.T) {
	want := specCodes(t, "../docs/SPEC.md")
	var got []string
	for _, c := range Codes() {
		got = append(got, c.String())
	}
	for _, n := range want {
		if !slices.Contains(got, n) {
			t.Errorf("SPEC code %s is not in the code base", n)
		}
	}
	for _, n := range got {
		if !slices.Contains(want, n) {
			t.Errorf("code %s is not in SPEC §8", n)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d codes, want %d (a duplicate?)", len(got), len(want))
	}
	if !slices.Equal(got, want) {
		t.Errorf("codes are not in SPEC order:\n got %v\nwant %v", got, want)
	}
}

// TestCodeKindsMatchSpec checks each code's group against the §8 rows.
func TestCodeKindsMatchSpec(t *testing.T) {
	b, err := os.ReadFile("../docs/SPEC.md")
	if err != nil {
		t.Fatal(err)
	}
	sec, _ := section8(string(b))
	rows := map[string]Kind{
		"invalid (exit 2)": KindInvalid, "inconclusive: evidence": KindEvidence,
		"inconclusive: checks": KindCheck, "fail": KindFail,
		"informational": KindInformational, "limitations": KindLimitation,
		"usage (exit 2": KindUsage,
	}
	code := regexp.MustCompile("`([a-z0-9_]+)`")
	n := 0
	for _, line := range strings.Split(sec, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 {
			continue
		}
		label := strings.TrimSpace(cells[1])
		var kind Kind
		for prefix, k := range rows {
			if strings.HasPrefix(label, prefix) {
				kind = k
			}
		}
		if kind == 0 {
			continue
		}
		for _, m := range code.FindAllStringSubmatch(cells[2], -1) {
			c, ok := ParseCode(m[1])
			if !ok {
				t.Errorf("%s: unknown code", m[1])
				continue
			}
			n++
			if c.Kind() != kind {
				t.Errorf("%s: got kind %d, want %d (%s)", m[1], c.Kind(), kind, label)
			}
		}
	}
	if n != len(Codes()) {
		t.Errorf("checked %d codes, want %d", n, len(Codes()))
	}
}

// TestSpecCopyIsCurrent checks docs/SPEC.md against the shared contract
// when the workspace has it beside the repository.
func TestSpecCopyIsCurrent(t *testing.T) {
	shared, err := os.ReadFile("../../shared/SPEC.md")
	if err != nil {
		t.Skip("no ../shared/SPEC.md beside the repository")
	}
	ours, err := os.ReadFile("../docs/SPEC.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(shared, ours) {
		t.Error("docs/SPEC.md differs from ../shared/SPEC.md: copy the contract again")
	}
}

// TestCodeTexts checks that every code has its fixed texts.
func TestCodeTexts(t *testing.T) {
	for _, c := range Codes() {
		if c.Meaning() == "" || c.Next() == "" || c.Kind() == 0 {
			t.Errorf("%s: missing meaning, next step or kind", c)
		}
		if got, ok := ParseCode(c.String()); !ok || got != c {
			t.Errorf("ParseCode(%s) = %v, %v", c, got, ok)
		}
	}
}

// TestLimitTexts checks that the code texts quote the limits as defined,
// and the limits SPEC names.
func TestLimitTexts(t *testing.T) {
	if MaxBytes != 16777216 || MaxRecords != 50000 || MaxEvents != 50000 || MaxDepth != 128 {
		t.Fatal("a limit differs from SPEC (16 MiB, 50,000 records and events, depth 128)")
	}
	for code, want := range map[Code]string{
		InputTooLarge: "16 MiB (16,777,216 bytes)", TooManyRecords: "50,000 records",
		TooManyEvents: "50,000 normalized events", NestingTooDeep: "128 levels",
	} {
		if !strings.Contains(code.Meaning(), want) {
			t.Errorf("%s: %q does not quote %q", code, code.Meaning(), want)
		}
	}
}

// TestPolicyMatchesSpec checks the policy document and its two digests
// against SPEC §6.5, which writes them out, and pins the digests here too:
// a change to the catalog, the servers or the canonical form changes every
// report's policy.sha256.
func TestPolicyMatchesSpec(t *testing.T) {
	b, err := os.ReadFile("../docs/SPEC.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "### 6.5 The catalog (policy)")
	sec, _, _ = strings.Cut(sec, "\n## ")
	if !ok {
		t.Fatal("SPEC has no §6.5")
	}
	doc := regexp.MustCompile("(?s)```json\n(.*?)\n```").FindStringSubmatch(sec)
	digests := regexp.MustCompile("`([0-9a-f]{64})`").FindAllStringSubmatch(sec, -1)
	if doc == nil || len(digests) != 2 {
		t.Fatalf("§6.5: want one JSON document and two digests, got %d digests", len(digests))
	}
	const (
		without = "aeddfa650c0a0cbf4a3120e9d6cd20b32d540646f915c123ea7ac1bbe3207c18"
		with    = "f638ee0b446a711134bffc295cc0f55cd899dc315257a30f6bf781dab1ffd476"
	)
	if digests[0][1] != without || digests[1][1] != with {
		t.Errorf("§6.5 digests %s, %s; want %s, %s", digests[0][1], digests[1][1], without, with)
	}
	if got := string(PolicyJSON(false)); got != doc[1] {
		t.Errorf("PolicyJSON(false):\n got %s\nwant %s", got, doc[1])
	}
	asserted := strings.Replace(doc[1], `"capture_authorized":false`, `"capture_authorized":true`, 1)
	if got := string(PolicyJSON(true)); got != asserted {
		t.Errorf("PolicyJSON(true):\n got %s\nwant %s", got, asserted)
	}
	for _, tc := range []struct {
		capture bool
		want    string
	}{{false, without}, {true, with}} {
		if got := PolicyDigest(tc.capture); got != tc.want {
			t.Errorf("PolicyDigest(%v) = %s, want %s", tc.capture, got, tc.want)
		}
	}
}
