package probe

// BusyInterval is one stretch of time the browser's renderer main thread
// was running a task (parsing HTML, evaluating or calling script, a
// timer, style and layout), in ms since navigation start: the clock of
// the load's HAR. Nested tasks are merged into the outermost; What and URL
// are the outermost task's (or the first nested one's that names a URL).
type BusyInterval struct {
	StartMs float64 `json:"start_ms"`
	EndMs   float64 `json:"end_ms"`
	What    string  `json:"what,omitempty"` // the trace event's name: "EvaluateScript", "ParseHTML", ...
	URL     string  `json:"url,omitempty"`  // the script or document it ran, when the event says
}
