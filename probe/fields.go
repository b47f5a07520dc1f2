package probe

import (
	"fmt"
	"strconv"
	"strings"
)

// This file is the one definition of the settings a study factor and a
// command-line flag both set: each Field names the setting (the factor;
// its flag is the name with '-' for '_'), its type, canonical default,
// validation (Canon, which also gives the one spelling) and help, and how
// it goes into a Condition (apply). study/spec builds its factors from
// Fields, netem's and `spdylab load`'s flags are generated from them
// (FieldFlags), and both build their Condition with BuildCondition, so a
// one-cell study and `spdylab load` with no flags mean the same thing.
//
// To add a setting: add its Condition field (with omitempty or omitzero,
// so stored condition hashes keep their meaning) and one Field entry here
// with its default equal to that zero value's meaning. Its position is the
// study matrix's expansion order (the first varies slowest) and the
// reports' column order, so existing entries keep their order.

// Kinds of a Field's value: the TOML type a study file must give.
const (
	KindString = "string"
	KindInt    = "int"
	KindBool   = "bool"
)

// FlagGroup says which command defines a Field's flag.
type FlagGroup int

const (
	// FlagNone: a study factor only (the protocol is load's --proto list;
	// rate is the studies' shorthand for down and up).
	FlagNone FlagGroup = iota
	// FlagLink: netem's link flags, shared by `spdylab shell`, `link check`
	// and `load`.
	FlagLink
	// FlagLoad: `spdylab load`'s own flags.
	FlagLoad
)

// Field is one setting of a condition.
type Field struct {
	Name string // the study factor; the flag is Name with '_' -> '-'
	Kind string // KindString, KindInt or KindBool
	// Default is the canonical value used when the setting is not given;
	// "" with Required means there is none.
	Default  string
	Required bool
	Help     string
	// Canon validates one value and returns its canonical spelling, so
	// "0.01" and "1%" are the same loss everywhere.
	Canon func(v string) (string, error)
	Flag  FlagGroup
	// OnLink fields describe the emulated link: without one (no_link) they
	// are not applied and the condition's Link stays zero.
	OnLink bool
	// Transport fields are TCP knobs of the testbed (congestion control,
	// initial windows): they mean the same to every protocol over TCP,
	// HTTPS included (FieldAppliesTo).
	Transport bool
	// Setup fields describe the experiment (the page and its servers, the
	// protocol, the client, the view) rather than how a protocol is
	// configured, so a profile may not set them (ProfileField).
	Setup bool
	// Scope, for a setting that configures some protocols only, says
	// which; the other protocols of a bench ignore it (applies.go has the
	// rule). nil: every protocol.
	Scope *Scope
	// apply sets the setting in c from v, the canonical values of every
	// field (a few fields read their partners: rtt the one-way delays,
	// loss its direction and the Gilbert-Elliott models, queue the
	// per-direction queues, rate down and up). nil: a partner reads it.
	apply func(c *Condition, v map[string]string) error
}

// FlagName is the field's command-line flag.
func (f Field) FlagName() string {
	b := []byte(f.Name)
	for i := range b {
		if b[i] == '_' {
			b[i] = '-'
		}
	}
	return string(b)
}

// LookupField finds a field by its name.
func LookupField(name string) (Field, bool) {
	for _, f := range Fields {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

// FieldNames lists every field in table order.
func FieldNames() []string {
	n := make([]string, len(Fields))
	for i, f := range Fields {
		n[i] = f.Name
	}
	return n
}

// FieldDefaults are the canonical defaults of every field.
func FieldDefaults() map[string]string {
	d := make(map[string]string, len(Fields))
	for _, f := range Fields {
		d[f.Name] = f.Default
	}
	return d
}

// BuildCondition turns canonical field values into a Condition; a field
// missing from v takes its default. Without a link (no_link true) the
// OnLink fields are not read, so they may hold anything (the studies' "none").
// `stack = 2012` first fills in the pieces v does not give (ExpandStack).
// The result is not normalised (NewCondition is): netem's flags build only
// the link of a condition, which names no page.
func BuildCondition(v map[string]string) (Condition, error) {
	v = ExpandStack(v) // the pieces `stack = 2012` sets, unless v gives them
	all := make(map[string]string, len(Fields))
	for _, f := range Fields {
		val, ok := v[f.Name]
		if !ok {
			val = f.Default
		}
		all[f.Name] = val
	}
	var c Condition
	noLink := all["no_link"] == "true"
	for _, f := range Fields {
		if f.apply == nil || (noLink && f.OnLink) {
			continue
		}
		if err := f.apply(&c, all); err != nil {
			return c, err
		}
	}
	c.NoLink = noLink
	if !noLink {
		c.Link.Shared = all["per_shard_links"] != "true"
	}
	return c, nil
}

// NewCondition is BuildCondition checked by Normalize, with the fields
// whose defaults are stored empty (client, browser profile, renderer
// costs, priority, scheduler, SCTP knobs) in their stored spelling.
func NewCondition(v map[string]string) (Condition, error) {
	c, err := BuildCondition(v)
	if err != nil {
		return c, err
	}
	return Normalize(c)
}

// FieldError names the field and the value at fault.
type FieldError struct {
	Field, Value string
	Err          error
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("%s %s: %v", e.Field, strconv.Quote(e.Value), e.Err)
}

func (e *FieldError) Unwrap() error { return e.Err }

// TransportFor reports whether field name is a transport knob that means
// the same to a load over protocol proto (a Transport field and a protocol
// carried by TCP): spdylab tune gives these to its second baseline, HTTPS
// with the same transport knobs as the tuned protocol.
func TransportFor(name, proto string) bool {
	f, ok := LookupField(name)
	p, known := LookupProtocol(proto)
	return ok && known && f.Transport && p.Transport == TransportTCP
}

// ProfileField says whether a profile (a named configuration, spdylab
// tune's result) may set field name, and if not, why.
func ProfileField(name string) error {
	f, ok := LookupField(name)
	switch {
	case !ok:
		return fmt.Errorf("unknown setting %q (settings: %s)", name, strings.Join(FieldNames(), ", "))
	case f.OnLink:
		return fmt.Errorf("%s describes the emulated link, not a configuration; vary it in the study instead", name)
	case f.Setup:
		return fmt.Errorf("%s describes the experiment, not a configuration; vary it in the study instead", name)
	}
	return nil
}
