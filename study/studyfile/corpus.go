package studyfile

import (
	"fmt"
	"path/filepath"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/study/spec"
)

// A study over real pages names a folder of them in its page factor:
// page = ["dir:PATH"] (or pages = "dir:PATH") is one value per page of the
// folder (page.ExpandSpec). A built-in study cannot know the user's folder,
// so it writes "dir:$PAGES", which `spdylab run STUDY --pages DIR` fills
// in (or "har:$PAGES/NAME.har" for one page of that folder). Without --pages, the [[matrix]] blocks that need it are left out (a
// study's synthetic part still runs; PagesOmitted says what was dropped),
// and a study that is nothing but such blocks is an error naming how to
// get pages.

// pagesAlias is the plural spelling of the page factor, for a corpus:
// pages = "dir:PATH".
const pagesAlias = "pages"

// factorAlias maps a study file's key to the factor it names.
func factorAlias(key string) string {
	if key == pagesAlias {
		return "page"
	}
	return key
}

// expandingCanon wraps a one-value canonicaliser: page values that name a
// corpus become one canonical value per page; used reports whether the
// user's folder (dir:$PAGES) was read.
func expandingCanon(canon func(*factor, string) (string, error), dir, pages string) (func(*factor, string) ([]string, error), *bool) {
	used := new(bool)
	return func(f *factor, raw string) ([]string, error) {
		if f.name != "page" || !page.IsCorpusSpec(raw) && !page.IsCorpusPage(raw) {
			v, err := canon(f, raw)
			return []string{v}, err
		}
		specs, err := page.ExpandSpec(raw, dir, pages)
		if err != nil {
			return nil, err
		}
		*used = *used || raw == page.CorpusPlaceholder || page.IsCorpusPage(raw)
		out := make([]string, len(specs))
		for i, sp := range specs {
			if out[i], err = canon(f, sp); err != nil {
				return nil, err
			}
		}
		return out, nil
	}, used
}

// checkCorpusUse runs once the blocks are read: a study whose every block
// needs the user's pages cannot run without them, and --pages given to a
// study that has no use for it is a mistake worth saying.
func checkCorpusUse(s *spec.Study, blocks int, used bool, pages string) error {
	switch {
	case blocks == 0 && s.PagesOmitted > 0:
		return fmt.Errorf("study %s runs on real pages: %w", s.Name, page.ErrNoCorpus)
	case pages != "" && !used:
		return fmt.Errorf("study %s takes no --pages (no page factor of it is %q)", s.Name, page.CorpusPlaceholder)
	}
	if pages != "" {
		abs, err := filepath.Abs(pages)
		if err != nil {
			return err
		}
		s.Pages = abs
	}
	return nil
}

// LoadPages is Load for a study that may run on a folder of real pages
// (--pages; "" = none).
func LoadPages(nameOrPath, pages string) (*spec.Study, error) {
	if isStudyFile(nameOrPath) {
		return parseFile(nameOrPath, pages)
	}
	return builtin(nameOrPath, pages)
}
