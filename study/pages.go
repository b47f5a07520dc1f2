package study

import (
	"strings"

	"github.com/spdylab/spdylab/page"
)

// PageNames lists the built-in page generators a study may name.
func PageNames() []string { return page.Names() }

// checkGenericPage validates a "generic:..." page spec by building it once.
func checkGenericPage(spec string) error {
	_, err := page.Generate(spec, 1, 1, "")
	return err
}

func isGenericPage(v string) bool { return strings.HasPrefix(v, "generic:") }
