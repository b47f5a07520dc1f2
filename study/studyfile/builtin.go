package studyfile

import (
	"embed"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/spdylab/spdylab/study/spec"
)

//go:embed builtin/*.toml
var builtinFS embed.FS

// Builtin returns the built-in study with the given name.
func Builtin(name string) (*spec.Study, error) { return builtin(name, "") }

func builtin(name, pages string) (*spec.Study, error) {
	src, err := builtinFS.ReadFile("builtin/" + name + ".toml")
	if err != nil {
		return nil, &NotFoundError{Name: name}
	}
	s, err := ParsePages(src, "", pages)
	if err != nil {
		return nil, fmt.Errorf("built-in study %s: %w", name, err)
	}
	return s, nil
}

// BuiltinNames lists the built-in studies, quick first.
func BuiltinNames() []string {
	ents, _ := builtinFS.ReadDir("builtin")
	var names []string
	for _, e := range ents {
		names = append(names, strings.TrimSuffix(e.Name(), ".toml"))
	}
	sort.Slice(names, func(i, j int) bool {
		if (names[i] == "quick") != (names[j] == "quick") {
			return names[i] == "quick"
		}
		return names[i] < names[j]
	})
	return names
}

// Load resolves what the user named: a study file path if it exists or
// looks like one, otherwise a built-in study.
func Load(nameOrPath string) (*spec.Study, error) { return LoadPages(nameOrPath, "") }

// isStudyFile tells a study file from a built-in study's name.
func isStudyFile(nameOrPath string) bool {
	if strings.HasSuffix(nameOrPath, ".toml") || strings.ContainsRune(nameOrPath, os.PathSeparator) {
		return true
	}
	_, err := os.Stat(nameOrPath)
	return err == nil
}

// NotFoundError is Load's error for a name that is neither a built-in
// study nor a study file that exists.
type NotFoundError struct {
	Name string
	File bool // Name is a path (it ends in .toml or holds a /)
}

func (e *NotFoundError) Error() string {
	if e.File {
		return fmt.Sprintf("no study file %s", e.Name)
	}
	return fmt.Sprintf("no built-in study %q (built-in: %s)", e.Name, strings.Join(BuiltinNames(), ", "))
}
