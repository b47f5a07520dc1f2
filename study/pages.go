package study

// PageNames lists the built-in page generators a study may name.
func PageNames() []string {
	return []string{"pageA", "pageB", "pageC", "twitter", "youtube", "imgur", "facebook", "google", "blogspot", "wordpress", "youm7"}
}
