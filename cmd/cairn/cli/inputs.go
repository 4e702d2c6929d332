package cli

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/alecthomas/kong"

	"github.com/cairn-audit/cairn/audit/protocol"
)

// inputs are eval protocol's input flags: one --NAME PATH flag per row of
// the format table (protocol.Formats, SPEC §14.3), all in one xor group.
// They are the fields of a struct type made from the table when the
// grammar is built (kong reads it as a plugin), so that a new format is a
// row of the table, not a field here; field i is the flag of row i.
type inputs struct {
	formats []protocol.Format
	v       reflect.Value // a pointer to the struct
}

func newInputs() inputs {
	return inputs{formats: protocol.Formats(), v: reflect.New(inputsType())}
}

// inputsType is the struct type of the input flags, made once: the table
// does not change while cairn runs.
var inputsType = sync.OnceValue(func() reflect.Type {
	fs := protocol.Formats()
	fields := make([]reflect.StructField, len(fs))
	for i, f := range fs {
		fields[i] = reflect.StructField{
			Name: fmt.Sprintf("Input%d", i),
			Type: reflect.TypeFor[inputFlag](),
			Tag:  reflect.StructTag(fmt.Sprintf(`name:%q placeholder:"PATH" xor:"input"`, f.Name)),
		}
	}
	return reflect.StructOf(fields)
})

// plugin is the struct for kong.Plugins.
func (in inputs) plugin() any { return in.v.Interface() }

func (in inputs) flag(i int) *inputFlag {
	return in.v.Elem().Field(i).Addr().Interface().(*inputFlag)
}

// chosen is the format and path of the input flag given, and false when
// none was.
func (in inputs) chosen() (format, path string, ok bool) {
	for i, f := range in.formats {
		if fl := in.flag(i); fl.set {
			return f.Name, fl.path, true
		}
	}
	return "", "", false
}

// flagList is "--a PATH, --b PATH or --c PATH".
func (in inputs) flagList() string {
	words := make([]string, len(in.formats))
	for i, f := range in.formats {
		words[i] = "--" + f.Name + " PATH"
	}
	return orList(words)
}

// inputFlag is an input path flag that may be given once: kong lets a
// repeated flag's last value win, which would audit another file than the
// caller may think.
type inputFlag struct {
	path string
	set  bool
}

func (f *inputFlag) Decode(ctx *kong.DecodeContext) error {
	if f.set {
		return errors.New("an input flag was given more than once")
	}
	if err := ctx.Scan.PopValueInto("path", &f.path); err != nil {
		return err
	}
	f.set = true
	return nil
}

// formatNames lists the table's format names: eval batch's --format
// values.
func formatNames() []string {
	var names []string
	for _, f := range protocol.Formats() {
		names = append(names, f.Name)
	}
	return names
}

// wrap breaks text into lines of at most width bytes at spaces.
func wrap(text string, width int) string {
	var b strings.Builder
	n := 0
	for i, w := range strings.Fields(text) {
		switch {
		case i == 0:
		case n+1+len(w) > width:
			b.WriteByte('\n')
			n = 0
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}
