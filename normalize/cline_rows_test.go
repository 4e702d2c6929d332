package normalize

import (
	"slices"
	"testing"
)

// TestClineRowsFit guards the representation: every name has its bit in a
// uint64 and clineNameOf maps it back; every row's members and required
// members are names of clineNames, once each, the required among the
// members; every content row names its contentType; and ClinePlaces names
// each place once.
func TestClineRowsFit(t *testing.T) {
	if numClineNames > 64 {
		t.Fatalf("%d names do not fit a uint64 of bits", numClineNames)
	}
	for n := cnOther + 1; n < numClineNames; n++ {
		if got := clineNameOf([]byte(clineNames[n])); got != n {
			t.Errorf("clineNameOf(%q) = %d, want %d", clineNames[n], got, n)
		}
	}
	if clineNameOf([]byte("Type")) != cnOther || clineNameOf([]byte("")) != cnOther {
		t.Error("clineNameOf names a name outside clineNames")
	}
	for _, rows := range [][]clineRow{clineRecords, clineEvents} {
		for i, r := range rows {
			var names []clineName
			for _, m := range r.members {
				if m.name == cnOther || m.name == cnType || slices.Contains(names, m.name) {
					t.Errorf("%s: member %d is other, type, or twice", r.place, m.name)
				}
				names = append(names, m.name)
			}
			for _, req := range r.required {
				if !slices.Contains(names, req) {
					t.Errorf("%s: required %s is not a member", r.place, clineNames[req])
				}
			}
			content := &rows[i] == &clineEvents[evStartText] || &rows[i] == &clineEvents[evStartTool] ||
				&rows[i] == &clineEvents[evUpdateTool] || &rows[i] == &clineEvents[evEndText] || &rows[i] == &clineEvents[evEndTool]
			if content != (r.content != "") || content != slices.Contains(names, cnContentType) {
				t.Errorf("%s: a content row names its contentType and has it as a member, and only it", r.place)
			}
		}
	}
	places := ClinePlaces()
	sorted := slices.Clone(places)
	slices.Sort(sorted)
	if len(slices.Compact(sorted)) != len(places) {
		t.Errorf("ClinePlaces names a place twice: %v", places)
	}
}
