package spec

// EstLoadOverhead is estLoadOverhead for the external tests.
const EstLoadOverhead = estLoadOverhead

// EstBrowserOverhead is estBrowserOverhead for the external tests.
const EstBrowserOverhead = estBrowserOverhead
