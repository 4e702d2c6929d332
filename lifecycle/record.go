package lifecycle

import (
	"encoding/binary"
	"slices"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/stream"
)

// Record is what the audit needs of one codex exec record. Payloads are
// kept as references into the record's bytes, valid until the next record.
type Record struct {
	Type RecordType
	// Unknown lists the places, each once, where a member name or an enum
	// value not in the contract was found (SPEC §4.3): names of the
	// contract's vocabulary (the object that holds the member), never the
	// input's.
	Unknown []string
	// Where is, for a rejected record, the place in the contract's
	// vocabulary of what was wrong (for schema_violation, the member that
	// is missing or of the wrong type); "" when there is none to give.
	Where string
	Item  Item
}

// UnknownField reports whether the record holds a member name or enum value
// not in the contract.
func (r *Record) UnknownField() bool { return len(r.Unknown) > 0 }

func (r *Record) unknown(where string) {
	if !slices.Contains(r.Unknown, where) {
		r.Unknown = append(r.Unknown, where)
	}
}

// violation rejects the record as a schema violation at where.
func (r *Record) violation(where string) audit.Code {
	r.Where = where
	return audit.SchemaViolation
}

// Item is an item record's item.
type Item struct {
	Type ItemType
	// Key identifies the item by its id; Identity digests what may not
	// change over its lifecycle (SPEC §4.3). The lifecycle keeps these
	// digests, not ids or payloads.
	Key      stream.Key
	Identity stream.Key
	// Num is N when the id is codex's own form item_N (decimal, no leading
	// zero, below maxItemNum), else -1; two different ids never share a Num.
	Num    int
	Status Status

	// mcp_tool_call only.
	Server, Tool []byte // unescaped; never reported
	Arguments    []byte // raw JSON
	Result       []byte // raw JSON, nil when absent
	Error        []byte // raw JSON, nil when absent
	// The raw members content and structured_content of an object Result,
	// nil when absent: read with the result's other members, so that
	// nothing walks a result twice.
	Content, StructuredContent []byte
}

// itemKey is an item id's Key: stream.KeyOf(id), except for codex's own
// ids, item_N with N its Num, which N tells from every other id: those
// are keyed by N with a mark, without hashing. Another id's key is random
// per process (stream.KeyOf's seeds), so none can be made to equal one of
// these 2^20, and by accident the odds are 2^-108 an id.
func itemKey(id []byte, num int) stream.Key {
	if num < 0 {
		return stream.KeyOf(id)
	}
	var k stream.Key
	binary.LittleEndian.PutUint64(k[:8], uint64(num))
	k[15] = 0x80
	return k
}

// maxItemNum bounds the item numbers kept as bits (a 128 KiB bitset at
// most); larger ones go the way of any other id.
const maxItemNum = 1 << 20

// itemNum is N for an id item_N as codex numbers its items, else -1.
func itemNum(id []byte) int {
	const prefix = "item_"
	if len(id) <= len(prefix) || len(id) > len(prefix)+7 || string(id[:len(prefix)]) != prefix {
		return -1
	}
	digits := id[len(prefix):]
	if digits[0] == '0' && len(digits) > 1 {
		return -1
	}
	n := 0
	for _, c := range digits {
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	if n >= maxItemNum {
		return -1
	}
	return n
}

// Decoder turns checked records into Records. It holds scratch space.
type Decoder struct {
	hash    keyHash
	text    []byte         // a small call's framed identity, raw or canonical
	checker stream.Checker // for decode
	// recent maps the digest of an MCP call's raw identity (arguments as
	// written) to its identity, for the calls seen last: a call's later
	// records nearly always repeat its arguments byte for byte, and then
	// need not be canonicalized again.
	recent [recentCalls]struct{ raw, identity stream.Key }
}

// recentCalls is how many calls Decoder.recent remembers: more than are
// usually in flight at once.
const recentCalls = 64

// name is a member name of the contract (besides type, item and id) as a
// small number, noName for any other: the decoder looks names up with one
// switch, and the allowed members of each object in arrays.
type name uint8

const (
	noName name = iota
	nThreadID
	nUsage
	nError
	nMessage
	nText
	nCommand
	nAggregatedOutput
	nExitCode
	nStatus
	nChanges
	nServer
	nTool
	nArguments
	nResult
	nSenderThreadID
	nReceiverThreadIDs
	nPrompt
	nAgentsStates
	nQuery
	nAction
	nItems
	nInputTokens
	nCachedInputTokens
	nOutputTokens
	nReasoningOutputTokens
	nPath
	nKind
	nCompleted
	nContent
	nStructuredContent
	nMeta
	nResults
	numNames
)

func nameOf(b []byte) name {
	switch string(b) {
	case "thread_id":
		return nThreadID
	case "usage":
		return nUsage
	case "error":
		return nError
	case "message":
		return nMessage
	case "text":
		return nText
	case "command":
		return nCommand
	case "aggregated_output":
		return nAggregatedOutput
	case "exit_code":
		return nExitCode
	case "status":
		return nStatus
	case "changes":
		return nChanges
	case "server":
		return nServer
	case "tool":
		return nTool
	case "arguments":
		return nArguments
	case "result":
		return nResult
	case "sender_thread_id":
		return nSenderThreadID
	case "receiver_thread_ids":
		return nReceiverThreadIDs
	case "prompt":
		return nPrompt
	case "agents_states":
		return nAgentsStates
	case "query":
		return nQuery
	case "action":
		return nAction
	case "items":
		return nItems
	case "input_tokens":
		return nInputTokens
	case "cached_input_tokens":
		return nCachedInputTokens
	case "output_tokens":
		return nOutputTokens
	case "reasoning_output_tokens":
		return nReasoningOutputTokens
	case "path":
		return nPath
	case "kind":
		return nKind
	case "completed":
		return nCompleted
	case "content":
		return nContent
	case "structured_content":
		return nStructuredContent
	case "_meta":
		return nMeta
	case "results":
		return nResults
	}
	return noName
}

// fields gives the declared type of each member an object may have; 0 for
// a name it may not have.
type fields [numNames]fieldType

type fieldType uint8

const (
	tString fieldType = 1 << iota
	tNull
	tInteger // a number without fraction or exponent
	tNumber
	tBool
	tObject
	tArray

	tAny = tString | tNull | tNumber | tBool | tObject | tArray
)

func typeOK(v []byte, want fieldType) bool {
	switch stream.TypeOf(v) {
	case stream.String:
		return want&tString != 0
	case stream.Null:
		return want&tNull != 0
	case stream.Bool:
		return want&tBool != 0
	case stream.Object:
		return want&tObject != 0
	case stream.Array:
		return want&tArray != 0
	case stream.Number:
		return want&tNumber != 0 || want&tInteger != 0 && stream.IsInteger(v)
	}
	return false
}

// decode reads a record that a stream.Checker with Locate accepted (for tests).
// Its error codes are SchemaViolation and DuplicateKey (a twice-named id
// outside web_search).
func (d *Decoder) decode(line []byte, rec *Record) audit.Code {
	d.checker.Locate = Locate
	if d.checker.Check(line) != 0 {
		return audit.SchemaViolation // not a checked record
	}
	return d.DecodeChecked(line, &d.checker.Located, rec)
}

// DecodeChecked is decode for the record line that a stream.Checker has
// accepted, reading the members it located (loc, only read) instead of
// walking the record again.
func (d *Decoder) DecodeChecked(line []byte, loc *stream.Located, rec *Record) audit.Code {
	*rec = Record{Unknown: rec.Unknown[:0]}
	// The record's type and item and the item's id and type are found
	// first, by where their spans are (-1: absent); the other members are
	// read once those are known. The item's are read here, so that an id
	// named twice outside a web_search is found before anything else
	// about the record.
	typ, item := -1, -1
	for i := range loc.Root {
		switch string(loc.Root[i].Name(line)) {
		case "type":
			typ = i
		case "item":
			item = i
		}
	}
	id, itemType, ids := -1, -1, 0
	for i := range loc.Child {
		switch string(loc.Child[i].Name(line)) {
		case "id":
			// A web_search's second id (the search call id) is ignored.
			if ids++; ids == 1 {
				id = i
			}
		case "type":
			itemType = i
		}
	}
	if ids > 1 && (itemType < 0 || !stream.TextIs(loc.Child[itemType].Value(line), "web_search")) {
		// The checker lets the object under "item" name id twice; only a
		// web_search item may (SPEC §4.1), whatever the record's type.
		rec.Where = "item.id"
		return audit.DuplicateKey
	}
	if typ < 0 || stream.TypeOf(loc.Root[typ].Value(line)) != stream.String {
		return rec.violation("type")
	}
	t := recordTypeOf(loc.Root[typ].Text(line))
	rec.Type = t
	if t == UnknownRecord {
		// An unknown record is judged as a whole; its members are its own.
		return 0
	}
	desc := &recordTypes[t]
	bad := noName // the first member found of the wrong type (never noName)
	for i := range loc.Root {
		if i == typ || i == item {
			continue
		}
		name, value := loc.Root[i].In(line)
		n := nameOf(name)
		want := desc.members[n]
		if want == 0 {
			rec.unknown(desc.name)
			continue
		}
		ok := typeOK(value, want)
		switch {
		case !ok:
		case n == nUsage:
			// usage is free-form: codex keeps adding counters (SPEC §4).
			ok = typedObject(value, &usageFields, nil, "")
		case n == nError:
			ok = typedObject(value, &messageFields, rec, recordPaths[t][n])
		}
		if !ok && bad == noName {
			bad = n
		}
	}
	if bad != noName {
		return rec.violation(recordPaths[t][bad])
	}
	switch t {
	case ItemStarted, ItemUpdated, ItemCompleted:
		if item < 0 || stream.TypeOf(loc.Root[item].Value(line)) != stream.Object {
			return rec.violation(desc.name + ".item")
		}
		return d.decodeItem(line, loc.Child, id, itemType, loc.Grandchild, rec)
	}
	if item >= 0 {
		rec.unknown(desc.name)
	}
	return 0
}

// typedObject checks the members of obj that fields names for their types
// (false: a schema violation). Another name is an unknown field of rec at
// where, the object's place, or is allowed when rec is nil: a free-form
// object such as usage.
func typedObject(obj []byte, allowed *fields, rec *Record, where string) bool {
	ok := true
	stream.Members(obj, func(name, value []byte) bool {
		want := allowed[nameOf(name)]
		switch {
		case want == 0:
			if rec != nil {
				rec.unknown(where)
			}
		case !typeOK(value, want):
			ok = false
		}
		return ok
	})
	return ok
}

// closedResult is typedObject for an MCP result (a closed object), from
// the members the checker located in the record line, and keeps its content and
// structured_content in it.
func closedResult(line []byte, members []stream.Span, it *Item, rec *Record) bool {
	for i := range members {
		name, value := members[i].In(line)
		n := nameOf(name)
		switch want := mcpResultFields[n]; {
		case want == 0:
			rec.unknown(whereResult)
		case !typeOK(value, want):
			return false
		case n == nContent:
			it.Content = value
		case n == nStructuredContent:
			it.StructuredContent = value
		}
	}
	return true
}

// decodeItem reads an item from its members, located in line (members),
// of which id and typ are its id and type (-1: absent), and the members of
// its result object where it has one.
func (d *Decoder) decodeItem(line []byte, members []stream.Span, id, typ int, result []stream.Span, rec *Record) audit.Code {
	it := &rec.Item
	if typ < 0 || stream.TypeOf(members[typ].Value(line)) != stream.String {
		return rec.violation("item.type")
	}
	typText := members[typ].Text(line)
	t := itemTypeOf(typText)
	it.Type = t
	if id < 0 || stream.TypeOf(members[id].Value(line)) != stream.String || len(members[id].Value(line)) <= 2 {
		return rec.violation(itemIDPaths[t])
	}
	idText := members[id].Text(line)
	desc := &itemTypes[t]
	// An MCP call's server, tool and arguments go straight into the item,
	// as they are read (few values live across the loop: each costs a
	// spill per member); the server and tool are unquoted after it.
	for i := range members {
		if t == UnknownItem {
			break // an unknown item is judged as a whole
		}
		if i == typ {
			continue
		}
		name, value := members[i].In(line)
		if string(name) == "id" {
			continue
		}
		n := nameOf(name)
		want := desc.members[n]
		if want == 0 {
			rec.unknown(desc.name)
			continue
		}
		path := itemPaths[t][n]
		if !typeOK(value, want) {
			return rec.violation(path)
		}
		bad := false
		switch n {
		case nStatus:
			st := statusOf(stream.Unquote(value))
			if st == OtherStatus || !hasStatusValue(t, st) {
				st = OtherStatus
				rec.unknown(path)
			}
			it.Status = st
		case nServer:
			it.Server = value
		case nTool:
			it.Tool = value
			if t == CollabToolCall && !oneOf(stream.Text(value), collabTools) {
				rec.unknown(path)
			}
		case nArguments:
			it.Arguments = value
		case nResult:
			it.Result = value
			bad = stream.TypeOf(value) == stream.Object && !closedResult(line, result, it, rec)
		case nError:
			it.Error = value
			bad = stream.TypeOf(value) == stream.Object && !typedObject(value, &messageFields, rec, path)
		case nChanges:
			bad = !closedElements(value, &changeFields, rec, whereChange, "kind", whereChangeKind, changeKinds)
			path = whereChange
		case nItems:
			bad = !closedElements(value, &todoFields, rec, whereTodo, "", "", nil)
			path = whereTodo
		case nReceiverThreadIDs:
			bad = !stringElements(value)
		}
		if bad {
			return rec.violation(path)
		}
	}
	if t == McpToolCall {
		if code := mcpCall(it, rec); code != 0 {
			return code
		}
	} else {
		it.Tool = nil // a collab_tool_call's: not kept
	}
	it.Num = itemNum(idText)
	it.Key = itemKey(idText, it.Num)
	it.Identity = d.identity(idText, typText, it, it.Arguments)
	return 0
}

// mcpCall checks that an MCP call's item has its server, tool, arguments
// and status, and unquotes the server and tool. A present member's value
// is never empty; a present status is never NoStatus.
func mcpCall(it *Item, rec *Record) audit.Code {
	switch {
	case it.Server == nil:
		return rec.violation(itemPaths[McpToolCall][nServer])
	case it.Tool == nil:
		return rec.violation(itemPaths[McpToolCall][nTool])
	case it.Arguments == nil:
		return rec.violation(itemPaths[McpToolCall][nArguments])
	case it.Status == NoStatus:
		return rec.violation(itemPaths[McpToolCall][nStatus])
	}
	it.Server = stream.Unquote(it.Server)
	it.Tool = stream.Unquote(it.Tool)
	return 0
}

// stringElements reports whether every element of the array arr is a
// string.
func stringElements(arr []byte) bool {
	ok := true
	stream.Elements(arr, func(e []byte) bool {
		ok = stream.TypeOf(e) == stream.String
		return ok
	})
	return ok
}

// identity digests what an item may not change between its records: id and
// type, and for mcp_tool_call server, tool and arguments as a JSON value.
// The machine compares the identities of records with one id (one Key)
// only, so an item of a known type other than mcp_tool_call, which has
// nothing else to keep, needs no digest of its own: its Key with the type's
// number mixed in tells its types apart, and a digest (any other identity)
// meets such a value by chance once in 2^128.
func (d *Decoder) identity(id, typ []byte, it *Item, args []byte) stream.Key {
	switch it.Type {
	case McpToolCall:
		return d.callIdentity(id, typ, it, args)
	case UnknownItem:
		return d.typeIdentity(id, typ)
	default:
		k := it.Key
		k[0] ^= byte(it.Type)
		return k
	}
}

// typeIdentity is the identity of an item of an unknown type: its id and
// the type's text.
func (d *Decoder) typeIdentity(id, typ []byte) stream.Key {
	d.text = appendField(appendField(d.text[:0], id), typ)
	return stream.KeyOf(d.text)
}

// smallArguments is the longest arguments value whose canonical form is
// built in Decoder.text before it is digested; a longer one is written
// to the digest in pieces (stream.WriteCanonical), never held whole. The
// two give the same bytes, so the same identity.
const smallArguments = 16 << 10

// callIdentity is an MCP call's identity: its id, type, server, tool and
// arguments in canonical form, or what Decoder.recent remembers for the
// same raw bytes (equal raw digests mean equal bytes, see KeyOf). Both
// digests are of the pieces framed as appendField frames them (a length,
// then the bytes), except that the canonical arguments, the last piece,
// have their length after them: it is known only once they are written.
// The framing stays unambiguous. A small call's pieces are framed in
// Decoder.text and digested at once (KeyOf); a large call's are streamed
// (keyHash), so that no copy of its arguments, or of their canonical form,
// is made. The two give the same keys for the same bytes.
func (d *Decoder) callIdentity(id, typ []byte, it *Item, args []byte) stream.Key {
	if len(args) <= smallArguments {
		b := appendField(d.text[:0], id)
		b = appendField(b, typ)
		b = appendField(b, it.Server)
		b = appendField(b, it.Tool)
		n := len(b)
		b = appendField(b, args)
		raw := stream.KeyOf(b)
		slot := &d.recent[raw[0]%recentCalls]
		if slot.raw != raw {
			b = stream.AppendCanonical(b[:n], args)
			b = binary.BigEndian.AppendUint64(b, uint64(len(b)-n))
			slot.raw, slot.identity = raw, stream.KeyOf(b)
		}
		d.text = b[:0]
		return slot.identity
	}
	h := &d.hash
	h.Reset()
	h.field(id)
	h.field(typ)
	h.field(it.Server)
	h.field(it.Tool)
	h.field(args)
	raw := h.Sum()
	slot := &d.recent[raw[0]%recentCalls]
	if slot.raw != raw {
		h.Reset()
		h.field(id)
		h.field(typ)
		h.field(it.Server)
		h.field(it.Tool)
		h.length(uint64(stream.WriteCanonical(h, args)))
		slot.raw, slot.identity = raw, h.Sum()
	}
	return slot.identity
}

// keyHash is a stream.KeyHash that frames what it digests as appendField
// frames it.
type keyHash struct{ stream.KeyHash }

func (k *keyHash) length(n uint64) {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], n)
	k.Write(b[:])
}

// field writes f as appendField frames it.
func (k *keyHash) field(f []byte) {
	k.length(uint64(len(f)))
	k.Write(f)
}

func appendField(b, f []byte) []byte {
	b = binary.BigEndian.AppendUint64(b, uint64(len(f)))
	return append(b, f...)
}

func oneOf(s string, set []string) bool {
	for _, v := range set {
		if v == s {
			return true
		}
	}
	return false
}

// closedElements checks an array of closed objects, found at where;
// enumField, when set, names a member whose value must be in enum, found at
// enumWhere.
func closedElements(arr []byte, allowed *fields, rec *Record, where, enumField, enumWhere string, enum []string) bool {
	ok := true
	stream.Elements(arr, func(e []byte) bool {
		if stream.TypeOf(e) != stream.Object || !typedObject(e, allowed, rec, where) {
			ok = false
			return false
		}
		if enumField != "" {
			stream.Members(e, func(name, value []byte) bool {
				if string(name) == enumField && !oneOf(stream.Text(value), enum) {
					rec.unknown(enumWhere)
				}
				return true
			})
		}
		return true
	})
	return ok
}
