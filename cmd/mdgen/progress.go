package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// progress reports the advance of long work on a writer, normally stderr:
//
//	p := newProgress(os.Stderr)
//	for i := range n { work(i); p.count("verify", i+1, n) }
//	p.done()
//
// Nothing is printed during the first second (short work stays silent).
// On a terminal (a character device) one line is rewritten in place with
// \r, at most 4 times a second; anywhere else (CI logs, files, pipes) each
// update is a line of its own, at most one every 10 seconds, so logs stay
// short and free of \r. Lines look like
//
//	mdgen: verify 300/1820 (16%, 3s)
//	mdgen: eval run 1/3, layer 2/15 (40%, 12s)
//
// A progress is safe for concurrent use.
type progress struct {
	mu       sync.Mutex
	w        io.Writer
	tty      bool          // rewrite one line with \r
	delay    time.Duration // quiet time after start
	interval time.Duration // least time between two updates
	now      func() time.Time
	start    time.Time
	last     time.Time // of the last update printed
	shown    bool      // a \r line is open
	width    int       // of the longest \r line so far
}

// progressQuiet is how long new work stays silent (a variable for the tests).
var progressQuiet = time.Second

// newProgress returns a progress printer on w; its clock starts now.
func newProgress(w io.Writer) *progress {
	p := &progress{w: w, tty: isTerminal(w), delay: progressQuiet, now: time.Now}
	p.interval = 10 * time.Second
	if p.tty {
		p.interval = 250 * time.Millisecond
	}
	p.start = p.now()
	return p
}

// isTerminal reports whether w is a file on a character device (a
// terminal), without dependencies beyond os.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// count reports done of total units of the work called what
// ("verify 300/1820 (16%, 3s)").
func (p *progress) count(what string, done, total int) {
	if total <= 0 {
		return
	}
	p.fraction(fmt.Sprintf("%s %d/%d", what, done, total), float64(done)/float64(total))
}

// fraction reports the work called what as done to the fraction f in
// [0, 1] ("eval run 1/3, layer 2/15 (40%, 12s)"); f < 0: not known
// ("building cyclic256:newton (75s)").
func (p *progress) fraction(what string, f float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if now.Sub(p.start) < p.delay || (now.Sub(p.last) < p.interval && !p.last.IsZero()) {
		return
	}
	p.last = now
	line := fmt.Sprintf("mdgen: %s (%.0f%%, %s)", what, 100*f, now.Sub(p.start).Round(time.Second))
	if f < 0 {
		line = fmt.Sprintf("mdgen: %s (%s)", what, now.Sub(p.start).Round(time.Second))
	}
	if p.tty {
		// Spaces wipe the rest of a longer line before.
		p.width = max(p.width, len(line))
		fmt.Fprintf(p.w, "\r%-*s", p.width, line)
		p.shown = true
	} else {
		fmt.Fprintln(p.w, line)
	}
}

// done ends the current work: on a terminal it ends the open line. The
// clock restarts, so the next work is quiet for its first second too.
func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprintln(p.w)
	}
	p.shown, p.width = false, 0
	p.start, p.last = p.now(), time.Time{}
}
