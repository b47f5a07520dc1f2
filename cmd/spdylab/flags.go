package main

import (
	"errors"
	"flag"
	"strings"
)

// Flag helpers every command shares.

// parseInterspersed parses flags that may come before or after the
// positional arguments, as users type `run quick -j 2` and `run -j 2 quick`,
// and returns the positional ones.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// stringList is a repeatable string flag (--server A --server B).
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ", ") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// flagExit is the exit status for a flag parse error: 0 after -h (the
// usage was asked for), 2 for bad flags (the flag package printed why).
func flagExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	return 2
}
