package probe

import "flag"

// FieldFlags are command-line flags generated from Fields: one per field
// of a FlagGroup, named Field.FlagName, with the field's default and help.
// Values validates them with the field's Canon, so a bad value is refused
// in the words of the study factors' errors, naming the flag and value.
type FieldFlags struct {
	fs   *flag.FlagSet
	vals []*fieldFlag
}

// fieldFlag is one field's flag.Value: the value as given.
type fieldFlag struct {
	f     *Field
	value string
}

func (x *fieldFlag) String() string {
	if x == nil || x.f == nil {
		return ""
	}
	return x.value
}

func (x *fieldFlag) Set(s string) error {
	x.value = s
	return nil
}

// Kind is the field's kind (KindString, KindInt), for help texts.
func (x *fieldFlag) Kind() string { return x.f.Kind }

// IsBoolFlag lets a bool field's flag stand alone (--dns for --dns=true).
func (x *fieldFlag) IsBoolFlag() bool { return x.f != nil && x.f.Kind == KindBool }

// RegisterFieldFlags defines the flags of group's fields on fs. defaults
// replaces some fields' defaults (by field name; `spdylab load` has a
// default page).
func RegisterFieldFlags(fs *flag.FlagSet, group FlagGroup, defaults map[string]string) *FieldFlags {
	ff := &FieldFlags{fs: fs}
	for i := range Fields {
		f := &Fields[i]
		if f.Flag != group {
			continue
		}
		x := &fieldFlag{f: f, value: f.Default}
		if d, ok := defaults[f.Name]; ok {
			x.value = d
		}
		ff.vals = append(ff.vals, x)
		fs.Var(x, f.FlagName(), f.Help)
	}
	return ff
}

// Values are the flags' canonical values by field name (the default for
// a flag not given); an error names the flag and its value.
func (ff *FieldFlags) Values() (map[string]string, error) {
	v := make(map[string]string, len(ff.vals))
	for _, x := range ff.vals {
		c, err := x.f.Canon(x.value)
		if err != nil && x.value == "" && !x.f.Required {
			c, err = "", nil // "" is "not given" for the refining fields
		}
		if err != nil {
			return nil, &FieldError{Field: "--" + x.f.FlagName(), Value: x.value, Err: err}
		}
		v[x.f.Name] = c
	}
	return v, nil
}

// Given tells whether field name's flag was on the command line.
func (ff *FieldFlags) Given(name string) bool {
	f, ok := LookupField(name)
	if !ok {
		return false
	}
	given := false
	ff.fs.Visit(func(fl *flag.Flag) { given = given || fl.Name == f.FlagName() })
	return given
}

// FlagError rewrites a FieldError or DelayConflictError from
// BuildCondition in flag terms ("--ge-down" for "ge_down").
func FlagError(err error) error {
	if dc, ok := err.(*DelayConflictError); ok {
		flag := func(name string) string { f, _ := LookupField(name); return "--" + f.FlagName() }
		named := *dc
		named.Names = [3]string{flag("rtt"), flag("delay_down"), flag("delay_up")}
		return &named
	}
	fe, ok := err.(*FieldError)
	if !ok {
		return err
	}
	f, _ := LookupField(fe.Field)
	return &FieldError{Field: "--" + f.FlagName(), Value: fe.Value, Err: fe.Err}
}
