package studyfile

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"

	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study/spec"
)

// profileFile is the TOML layout of a profile (spec.Profile):
//
//	name = "tuned"
//	description = "what it is for"
//	protocols = ["spdy/3.1"]
//	[settings]
//	cc = "bbr"
//	iw = 16
type profileFile struct {
	Name        string         `toml:"name"`
	Description string         `toml:"description"`
	Protocols   []string       `toml:"protocols"`
	Settings    map[string]any `toml:"settings"`
}

var profileName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// ParseProfileFile reads a profile file (ParseProfile).
func ParseProfileFile(path string) (*spec.Profile, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	p, err := ParseProfile(src)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// ParseProfile reads a profile's text: every setting must be a
// configuration field of probe.Fields (probe.ProfileField) with a valid
// value, and every protocol must take the settings (probe.Normalize).
// Whether this kernel offers its cc is asked when it runs
// (study.CheckHost, harness.Open). Errors name the line.
func ParseProfile(src []byte) (*spec.Profile, error) {
	var pf profileFile
	md, err := decodeTOML(src, &pf)
	if err != nil {
		return nil, err
	}
	lines := indexLines(src)
	for _, k := range md.Undecoded() {
		if len(k) == 2 && k[0] == "settings" {
			continue // checked below, one by one
		}
		return nil, fmt.Errorf("line %d: unknown key %q (keys: name, description, protocols, [settings])", lines.line(k.String()), k.String())
	}
	if !profileName.MatchString(pf.Name) {
		return nil, fmt.Errorf("line %d: name %q must be 1-64 letters, digits, '.', '_' or '-'", lines.line("name"), pf.Name)
	}
	p := &spec.Profile{Name: pf.Name, Description: pf.Description, Settings: map[string]string{}}
	for _, raw := range pf.Protocols {
		if pr, err := probe.ParseProtocol(raw); err == nil {
			raw = pr.Name // an alias (http/1.1) in its one spelling; Check refuses the unknown
		}
		p.Protocols = append(p.Protocols, raw)
	}
	for k, raw := range pf.Settings {
		v, err := profileSetting(k, raw)
		if err != nil {
			return nil, fmt.Errorf("line %d: settings.%s: %w", lines.line("settings."+k), k, err)
		}
		p.Settings[k] = v
	}
	if err := p.Check(); err != nil {
		return nil, fmt.Errorf("line %d: %w", lines.line("protocols"), err)
	}
	p.SetHash()
	return p, nil
}

// profileSetting checks one setting: a configuration field, a value of
// its kind and range. Whether this machine offers it (a cc) is the run's
// question, not the file's: study.CheckHost and harness.Open ask it
// before any load, so a profile reads the same on every machine.
func profileSetting(k string, raw any) (string, error) {
	if err := probe.ProfileField(k); err != nil {
		return "", err
	}
	f, _ := factorByName(k)
	str, err := scalarString(f, raw)
	if err != nil {
		return "", err
	}
	if str, err = f.canon(str); err != nil {
		return "", fmt.Errorf("%s: %w", show(raw), err)
	}
	return str, nil
}

// FormatProfile writes a profile in the file format ParseProfile reads.
func FormatProfile(p *spec.Profile) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# profile %s (written by spdylab; content hash %s)\n", p.Name, p.Hash)
	fmt.Fprintf(&b, "name = %s\n", strconv.Quote(p.Name))
	if p.Description != "" {
		fmt.Fprintf(&b, "description = %s\n", strconv.Quote(p.Description))
	}
	b.WriteString("protocols = [")
	for i, proto := range p.Protocols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(proto))
	}
	b.WriteString("]\n\n[settings]\n")
	for _, k := range p.Keys() {
		f, _ := probe.LookupField(k)
		v := p.Settings[k]
		if f.Kind == probe.KindString {
			v = strconv.Quote(v)
		}
		fmt.Fprintf(&b, "%s = %s\n", k, v)
	}
	return b.Bytes()
}

// readProfileFactor turns a study's profile factor value (a file, relative
// to the study file's folder) into the profile's label, keeping the
// profile in profiles; "" is no profile.
func readProfileFactor(raw, dir string, profiles map[string]*spec.Profile) (string, error) {
	if raw == "" {
		return "", nil
	}
	path := raw
	if !filepath.IsAbs(path) && dir != "" {
		path = filepath.Join(dir, path)
	}
	p, err := ParseProfileFile(path)
	if err != nil {
		return "", err
	}
	profiles[p.Label()] = p
	return p.Label(), nil
}

// withProfile applies matrix point v's profile: the point's values with
// the profile's settings and label where it applies (so the report's
// columns show what was loaded), and without a profile where it does not.
func (p *studyParser) withProfile(v map[string]string) map[string]string {
	if prof := p.profiles[v["profile"]]; prof != nil {
		return prof.Apply(v)
	}
	return v
}
