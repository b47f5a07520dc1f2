package harness

import (
	"fmt"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
)

// applyMethod gives the bench the page under c's methodology (compute,
// deps, until, redirects; page/method.go): the site is written from it and
// the loader discovers by it, so both agree.
func applyMethod(c probe.Condition, m *page.Manifest) (*page.Manifest, error) {
	if !page.MethodChanges(c) {
		return m, nil
	}
	out, _, err := m.ApplyMethod(c)
	if err != nil {
		return nil, fmt.Errorf("harness: %w", err)
	}
	return out, nil
}
