package loader

import "sync"

// scriptOrder is the HTML parser's rule for when the root document's
// parser-blocking scripts run: in document order, each once it has loaded
// and every stylesheet the document named before it has loaded too (the
// style sheets that block scripts). What a script does when it runs (the
// requests it inserts, the style gate it releases) waits until then.
// A loader that runs each script the moment its bytes arrive sends, on
// the youtube study page over HTTPS, its first script's images 50 ms
// before the stylesheet ahead of it has loaded, where Chromium's wait for
// that stylesheet.
//
// Entries are tracked by URL key, so a resource the document names twice,
// or that another parent requested first, is one place in the order.
type scriptOrder struct {
	on bool

	mu     sync.Mutex
	queue  []*orderedItem          // document order; the head is the next to clear
	byKey  map[string]*orderedItem // every item still in the queue
	loaded map[string]bool         // keys that completed before the document named them
}

type orderedItem struct {
	key  string
	done bool   // loaded
	run  func() // what it does when it runs; set when it loads
}

func newScriptOrder(on bool) *scriptOrder {
	return &scriptOrder{on: on, byKey: map[string]*orderedItem{}, loaded: map[string]bool{}}
}

// named records a stylesheet or parser-blocking script the root document
// names, in the order its bytes name them.
func (o *scriptOrder) named(key string) {
	if !o.on {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.byKey[key] != nil || o.loaded[key] {
		return // already in the order, or already loaded: blocks nothing
	}
	it := &orderedItem{key: key}
	o.queue = append(o.queue, it)
	o.byKey[key] = it
}

// completed notes that the resource with key has loaded; run is what it
// does when it runs (a no-op for a stylesheet). run is called before
// completed returns when nothing ahead of it waits, else by the completed
// call that clears the way; either way every run is called in document
// order, outside the lock.
func (o *scriptOrder) completed(key string, run func()) {
	if !o.on {
		run()
		return
	}
	o.mu.Lock()
	it := o.byKey[key]
	if it == nil {
		o.loaded[key] = true
		o.mu.Unlock()
		run()
		return
	}
	it.done, it.run = true, run
	ready := o.clearLocked()
	o.mu.Unlock()
	for _, r := range ready {
		r.run()
	}
}

// clearLocked takes every loaded item off the head of the queue, in
// order, and returns them: the first item not loaded holds all behind it.
func (o *scriptOrder) clearLocked() []*orderedItem {
	var ready []*orderedItem
	for len(o.queue) > 0 && o.queue[0].done {
		it := o.queue[0]
		o.queue = o.queue[1:]
		delete(o.byKey, it.key)
		o.loaded[it.key] = true
		ready = append(ready, it)
	}
	return ready
}
