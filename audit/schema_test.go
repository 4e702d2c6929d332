package audit_test

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/audit/protocol"
	"github.com/cairn-audit/cairn/normalize"
)

// schemaPath is where the JSON audit.Schema of the report ships.
const schemaPath = "../docs/report.schema.json"

type obj = map[string]any

func names(cs ...audit.Code) []string {
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = c.String()
	}
	return s
}

func codesOfKind(k audit.Kind) []audit.Code {
	var cs []audit.Code
	for _, c := range audit.Codes() {
		if c.Kind() == k {
			cs = append(cs, c)
		}
	}
	return cs
}

func closed(required []string, props obj) obj {
	return obj{"type": "object", "required": required, "properties": props, "additionalProperties": false}
}

func nullable(s obj) obj { return obj{"oneOf": []any{obj{"type": "null"}, s}} }

func checkSchema(codes ...audit.Code) obj {
	return closed([]string{"state", "codes"}, obj{
		"state": obj{"enum": []string{"pass", "fail", "inconclusive"}},
		"codes": obj{"type": "array", "uniqueItems": true, "items": obj{"enum": names(codes...)}},
	})
}

// reportSchema builds the draft 2020-12 schema of the report (SPEC §7.1)
// from the code table, so that the two cannot drift.
func reportSchema() obj {
	digest := obj{"type": "string", "pattern": "^[0-9a-f]{64}$"}
	count := obj{"type": "integer", "minimum": 0}
	countNames := []string{"calls", "memory_calls", "project_searches", "mutation_attempts", "opaque_calls",
		"narration", "reasoning", "stream_errors", "unknown_records", "incomplete_calls", "tool_discovery", "bookkeeping"}
	counts := obj{}
	for _, n := range countNames {
		counts[n] = count
	}
	// A place of the contract's vocabulary: a record, item or event type,
	// or a path of member names (Pi's are camelCase), "[]" marking an
	// array's elements.
	where := obj{"type": "string", "pattern": `^[a-z_][a-zA-Z_]*(\[\])?(\.[a-z_][a-zA-Z_]*(\[\])?)*$`}
	// The formats and harnesses are the format table's (SPEC §14.3), a
	// trajectory's harness one of those its harness member may name.
	var formatNames []string
	harnesses := []any{}
	addHarness := func(h string) {
		for _, have := range harnesses {
			if have == h {
				return
			}
		}
		harnesses = append(harnesses, h)
	}
	for _, f := range protocol.Formats() {
		formatNames = append(formatNames, f.Name)
		if f.Harness != "" {
			addHarness(f.Harness)
		}
	}
	for _, h := range normalize.Harnesses {
		addHarness(h)
	}
	harnesses = append(harnesses, nil)
	reportable := []audit.Code{}
	for _, c := range audit.Codes() {
		switch c.Kind() {
		case audit.KindEvidence, audit.KindCheck, audit.KindFail, audit.KindInformational:
			reportable = append(reportable, c)
		}
	}
	members := []string{"schema", "enabled", "status", "exit_code", "input", "policy", "checks", "counts", "findings", "error", "limitations"}
	enabled := closed(members, obj{
		"schema":    obj{"const": audit.Schema},
		"enabled":   obj{"const": true},
		"status":    obj{"enum": []string{"pass", "fail", "inconclusive", "invalid"}},
		"exit_code": obj{"enum": []int{0, 1, 2, 3}},
		"input": closed([]string{"format", "source", "harness", "sha256", "bytes", "records", "events"}, obj{
			"format":  obj{"enum": formatNames},
			"source":  obj{"enum": []string{"file", "stdin"}},
			"harness": obj{"enum": harnesses},
			"sha256":  nullable(digest),
			// stdin is read to its end, up to 1 GiB, after an early verdict
			"bytes":   obj{"type": "integer", "minimum": 0, "maximum": 1 << 30},
			"records": count,
			"events":  count,
		}),
		"policy": closed([]string{"catalog", "capture_authorized", "sha256"}, obj{
			// A built-in's name or a catalog file's (SPEC §16.2).
			"catalog":            obj{"type": "string", "pattern": `^[a-z0-9][a-z0-9._-]{0,63}/[0-9]{1,4}$`},
			"capture_authorized": obj{"type": "boolean"},
			"sha256":             digest,
		}),
		"checks": nullable(closed([]string{"evidence_complete", "memory_first", "retrieval_result", "direct_write_boundary"}, obj{
			"evidence_complete": checkSchema(codesOfKind(audit.KindEvidence)...),
			// An absence not proven is inconclusive with the codes that
			// cut the evidence short (SPEC §6); a fail of either check is
			// memory_server_unavailable when the server was not there.
			// A call whose input is unknown leaves either inconclusive
			// with its code (message_aborted, call_input_unknown).
			"memory_first": checkSchema(append([]audit.Code{audit.DispatchOrderUnknown, audit.ToolBeforeProjectSearch,
				audit.FirstSearchNotProjectScoped, audit.ProjectSearchAbsent, audit.MemoryServerUnavailable,
				audit.CallInputUnknown}, audit.AbsenceCut()...)...),
			"retrieval_result": checkSchema(append([]audit.Code{audit.ProjectSearchAbsent, audit.SearchResultMissing,
				audit.SearchResultError, audit.SearchResultUninterpretable, audit.MemoryServerUnavailable,
				audit.CallInputUnknown}, audit.AbsenceCut()...)...),
			// A stream that prints calls only once they finished, cut
			// short, cannot pass it: the turn code says why (SPEC §13).
			"direct_write_boundary": checkSchema(audit.DestructiveMutation, audit.DirectMutationUnauthorized, audit.UndeclaredMemoryTool,
				audit.OpaqueToolEffects, audit.CaptureAuthorizationAsserted, audit.TurnFailed, audit.TurnIncomplete),
		})),
		"counts": closed(countNames, counts),
		"findings": obj{"type": "array", "maxItems": audit.MaxFindings, "items": closed([]string{"code", "record", "where"}, obj{
			"code":   obj{"enum": names(reportable...)},
			"record": nullable(count),
			"where":  nullable(where),
		})},
		"error": nullable(closed([]string{"code", "record", "where"}, obj{
			"code":   obj{"enum": names(codesOfKind(audit.KindInvalid)...)},
			"record": nullable(count),
			"where":  nullable(where),
		})),
		"limitations": obj{"type": "array", "uniqueItems": true, "minItems": 3,
			"items": obj{"enum": names(codesOfKind(audit.KindLimitation)...)}},
	})
	statusExit := []any{}
	for _, st := range []audit.Status{audit.StatusPass, audit.StatusFail, audit.StatusInvalid, audit.StatusInconclusive} {
		status, code := string(st), st.ExitCode()
		then := obj{"properties": obj{"exit_code": obj{"const": code}}}
		if status == "invalid" {
			then["properties"].(obj)["checks"] = obj{"type": "null"}
			then["properties"].(obj)["error"] = obj{"type": "object"}
			then["properties"].(obj)["findings"] = obj{"maxItems": 0}
		} else {
			then["properties"].(obj)["checks"] = obj{"type": "object"}
			then["properties"].(obj)["error"] = obj{"type": "null"}
		}
		statusExit = append(statusExit, obj{"if": obj{"properties": obj{"status": obj{"const": status}}}, "then": then})
	}
	enabled["allOf"] = statusExit
	disabled := closed([]string{"schema", "enabled", "status"}, obj{
		"schema":  obj{"const": audit.Schema},
		"enabled": obj{"const": false},
		"status":  obj{"const": "disabled"},
	})
	return obj{
		"$schema":     "https://json-schema.org/draft/2020-12/schema",
		"$id":         "urn:cairn:eval:protocol:v1:report",
		"title":       "cairn eval protocol report (" + audit.Schema + ")",
		"description": "The report of cairn eval protocol --json: SPEC §7.1, or the disabled envelope of §2.1. Generated from the code table by audit/schema_test.go; CAIRN_TEST_UPDATE=1 go test ./audit rewrites it.",
		"oneOf":       []any{disabled, enabled},
	}
}

// TestReportSchemaIsCurrent keeps docs/report.schema.json equal to what the
// code table generates.
func TestReportSchemaIsCurrent(t *testing.T) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(reportSchema()); err != nil {
		t.Fatal(err)
	}
	if os.Getenv("CAIRN_TEST_UPDATE") == "1" {
		if err := os.WriteFile(schemaPath, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, buf.Bytes()) {
		t.Errorf("%s is stale: run CAIRN_TEST_UPDATE=1 go test ./audit", schemaPath)
	}
}
