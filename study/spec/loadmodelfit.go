package spec

import (
	"path/filepath"
	"slices"
)

// LoadModelFitStores are the finished stores the load model's weights
// (loadmodel.go) were fitted on, by their output folders' names
// (BENCHMARKS.md, "The load model and the pace", 2026-11-27): the 13
// finished under /work/runs that evening. The ETA's pace window and
// class scales were chosen on the same stores. An error measured on one
// of them is in sample; a store of a study the model never saw
// (study2-loss, checked the same night) says how it does elsewhere, so a
// replay of the model or the ETA reports the two apart.
var LoadModelFitStores = []string{"fidb", "fidb2", "rec30", "s1-j16", "s1-profile20", "s1auto2", "s1full",
	"s3rev", "s6pages", "study6", "tune-rec", "tune-study1", "tune-study1b"}

// LoadModelFittedOn reports whether the store in dir is one the load
// model was fitted on (by the folder's name, as LoadModelFitStores names
// them; a link to one counts under its own name).
func LoadModelFittedOn(dir string) bool {
	return slices.Contains(LoadModelFitStores, filepath.Base(filepath.Clean(dir)))
}

// SplitByFit deals store folders into those the load model was fitted on
// and the others, each in the given order, for a replay's output.
func SplitByFit(dirs []string) (fitted, other []string) {
	for _, d := range dirs {
		if LoadModelFittedOn(d) {
			fitted = append(fitted, d)
		} else {
			other = append(other, d)
		}
	}
	return fitted, other
}
