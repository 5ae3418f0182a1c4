package main

// mdgen track -gpu on several GPUs: a process per GPU. The parent hands
// out the paths from one queue to child processes (this binary, mdgen
// track with the same arguments, one GPU each, serving: serveTrack), a
// few at a time as each child's paths come back, so that a fast GPU
// tracks more (work stealing); it puts their first passes together and
// finishes as one run does (the crossed paths tracked again:
// track.TrackCrossed), the bits of one run for every path. A child that
// fails (its GPU, a crash) gives its paths in flight back to the queue
// and the run completes on the others, saying so.
//
// Why processes: on 4 H200s, katsura 15 at 4 doubles tracked in 4.2 to
// 4.8 s in one process, and in 3.1 to 3.2 s as 4 processes each with a
// quarter of the paths (docs/results.md, "Several GPUs: a process per
// GPU"). One process holds 16,384 workers' goroutines and one heap: its
// garbage collector was marking most of the run (44 cycles of 83 ms,
// against 40 of 15 ms on one GPU), and the host's scheduler was shared.
//
// The protocol, lines on the child's pipes: the parent writes the indices
// of the paths to track (0-based, within the child's -paths range, one a
// line) on the child's stdin and closes it when the run is over; the
// child writes one line {"workers":N} once its GPU is ready, then one
// shard record (shardPath) per path tracked, as soon as it is.

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
	"github.com/mdgen/mdgen/runtime/gpu/kernels"
	"github.com/mdgen/mdgen/runtime/track"
)

// serveEnv, set to 1 in a child's environment, makes mdgen track serve
// its parent (serveTrack) instead of tracking the run itself.
const serveEnv = "MDGEN_TRACK_SERVE"

// procSpec is how to start one child: its name in messages (GPU 2), the
// command line before the run's arguments (mdgen track), the flags of
// this child (-devices 2) and the environment added to the parent's.
type procSpec struct {
	name   string
	prefix []string
	flags  []string
	env    []string
}

// runProcs returns the children that track ts's run, nil for one process
// (gpuProcs; a variable, so that the tests run children on the CPU).
var runProcs = gpuProcs

// gpuProcs returns the children of a -gpu run on several GPUs (a process
// each), or nil when the run is one process: one GPU, -gpu-procs=false,
// the batched evaluations, a build without CUDA. (A child never gets
// here: runTrack serves before it tracks.)
func gpuProcs(ts *trackSetup) []procSpec {
	if !ts.gpu || !ts.gpuProcs || ts.gpuEvaluations || !cudadev.Enabled {
		return nil
	}
	ordinals := ts.devices
	if len(ordinals) == 0 {
		n, err := cudadev.Count()
		if err != nil {
			return nil // the one-process run says why it cannot use the GPU
		}
		for d := range n {
			ordinals = append(ordinals, d)
		}
	}
	if len(ordinals) < 2 {
		return nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	var env []string
	if os.Getenv("GOMAXPROCS") == "" {
		// The host's cores shared out: a child on more of them than its
		// share only contends with the others (measured: 16 of 64 each
		// beat 64 each on 4 GPUs).
		env = append(env, fmt.Sprintf("GOMAXPROCS=%d", max(2, runtime.NumCPU()/len(ordinals))))
	}
	var procs []procSpec
	for _, d := range ordinals {
		procs = append(procs, procSpec{name: fmt.Sprintf("GPU %d", d), prefix: []string{exe, "track"},
			flags: []string{"-devices", strconv.Itoa(d)}, env: env})
	}
	return procs
}

// serveTrack is a child's side (serveEnv): it tracks the paths of
// ts.first..ts.last whose indices come on in, each as soon as it is
// tracked written to out as a shard record (the first pass: the parent
// tracks crossed paths again), until in ends.
func serveTrack(ts *trackSetup, in io.Reader, out io.Writer, stderr io.Writer) error {
	count := ts.last - ts.first + 1
	opt := ts.opt
	if ts.gpu {
		defer useTrackGPU(&opt, count, ts.devices, ts.batch, ts.gpuEvaluations, ts.kernelDir, ts.nvccPath, stderr)()
		if len(opt.Devices) == 0 {
			return errors.New("track: serving on the GPU: no GPU to track on")
		}
	}
	workers := opt.Workers // as Track runs them
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = int(min(int64(workers), count))
	// The parent keeps at most maxSurplus paths beyond the workers in
	// flight: src holds them all, so its writes to stdin never block.
	src := make(chan int64, maxSurplus)
	go func() {
		defer close(src)
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			k, err := strconv.ParseInt(sc.Text(), 10, 64)
			if err != nil || k < 0 || k >= count {
				fmt.Fprintf(stderr, "mdgen: track: serving: bad path %q from the parent; stopping\n", sc.Text())
				return
			}
			src <- k
		}
	}()
	var mu sync.Mutex
	bw := bufio.NewWriter(out)
	line := func(v any) {
		b, err := json.Marshal(v)
		mu.Lock()
		defer mu.Unlock()
		if err == nil {
			_, err = bw.Write(append(b, '\n'))
		}
		if err == nil {
			err = bw.Flush()
		}
		if err != nil {
			// The parent is gone or cannot read: the paths would be
			// tracked for nobody. It gives them to the others.
			fmt.Fprintf(stderr, "mdgen: track: serving: writing to the parent: %v; stopping\n", err)
			os.Exit(1)
		}
	}
	line(map[string]int{"workers": workers})
	opt.FirstPass, opt.Source, opt.Progress = true, src, nil
	opt.PathDone = func(_ int64, p *track.Path) { line(shardRecord(p)) }
	if _, err := track.Track(ts.h, opt, ts.first, count); err != nil {
		return fmt.Errorf("track: %s: %w", ts.arg, err)
	}
	return nil
}

// maxSurplus is the most paths a child holds in flight beyond its
// workers (a sixteenth of them, at least 64).
const maxSurplus = 1024

// child is the parent's view of one child process.
type child struct {
	spec     procSpec
	cmd      *exec.Cmd
	stdin    io.WriteCloser
	in       *bufio.Writer
	window   int            // paths in flight it is given: its workers and a few more
	inFlight map[int64]bool // paths handed to it, not back yet
	alive    bool           // started and not ended
	failed   bool           // its paths in flight went back to the queue
	// tracked, ready and last: its paths back, when it was ready and
	// when its last path came back (since the children were started).
	tracked     int64
	ready, last time.Duration
}

// procEvent is a child's first line (workers), a path it tracked (path,
// read on its reader's goroutine: the records of several GPUs are more
// than one goroutine decodes), a line of its stderr (text), the end of
// its output (eof) or its exit (done).
type procEvent struct {
	c         *child
	workers   int
	path      *track.Path
	text      string
	end       error // with eof: a read error or a bad line; with done: its exit's
	eof, done bool
}

// trackProcesses tracks ts's range in the children procs (see the top of
// this file) and returns the run, with the bits of one Track of the range
// (FirstPass as ts.opt says), progress reported through opt.Progress.
//
// With chunks (-shards DIR), only the paths of chunks.ranges are tracked,
// in their order, each range handed to chunks.done as soon as its paths
// are all back (the first pass), and the run returned holds them
// unclassified: the caller puts the run together from its shards.
func trackProcesses(ts *trackSetup, opt track.Options, procs []procSpec, chunks *procChunks, stderr io.Writer) (*track.Run, error) {
	first, count := ts.first, ts.last-ts.first+1
	// ranges: what to track (0-based within the run), in order.
	ranges := [][2]int64{{0, count - 1}}
	if chunks != nil {
		ranges = nil
		for _, r := range chunks.ranges {
			ranges = append(ranges, [2]int64{r[0] - first, r[1] - first})
		}
	}
	todo := int64(0)
	remain := make([]int64, len(ranges))
	for i, r := range ranges {
		remain[i] = r[1] - r[0] + 1
		todo += remain[i]
	}
	hdr, err := newShardHeader(ts)
	if err != nil {
		return nil, err
	}
	filled, err := opt.Filled()
	if err != nil {
		return nil, err
	}
	names := make([]string, len(procs))
	for i, p := range procs {
		names[i] = p.name
	}
	fmt.Fprintf(stderr, "mdgen: track: a process for each of %s, the paths from one queue (-gpu-procs=false: a single process for all)\n", strings.Join(names, ", "))
	// The batch a GPU is at most its share of the paths, so that every
	// GPU gets some (as one process splits them).
	extra := []string{"-paths", fmt.Sprintf("%d:%d", first+1, ts.last+1)}
	if ts.gpu && ts.batch == 0 {
		if share := (todo + int64(len(procs)) - 1) / int64(len(procs)); share < int64(kernels.DefaultTrackBatch) {
			extra = append(extra, "-batch", strconv.FormatInt(share, 10))
		}
	}
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "MDGEN_CPUPROFILE=") { // the parent's profile, not overwritten by each child
			env = append(env, e)
		}
	}
	spawned := time.Now()
	events := make(chan procEvent, 256)
	children := make([]*child, len(procs))
	alive := 0
	var failures []track.DeviceFailure
	finished := false // every path is back
	// ended handles a child's exit.
	ended := func(c *child, err error) {
		c.alive = false
		alive--
		if err != nil && finished && !c.failed {
			fmt.Fprintf(stderr, "mdgen: track: %s: %v after its paths were done\n", c.spec.name, err)
		}
	}
	killAll := func(notReady bool) {
		for _, c := range children {
			if c != nil && c.alive && (!notReady || c.window == 0) {
				_ = c.cmd.Process.Kill()
			}
		}
	}
	// However the run ends, every child ends before this returns: on an
	// error at once (killed); else once it released its GPU, within a
	// minute (killed then), and at once if it never became ready. Its
	// events are read until it ended, so that no reader is left blocked.
	defer func() {
		for _, c := range children {
			if c != nil && c.alive && c.stdin != nil {
				_ = c.stdin.Close()
			}
		}
		killAll(finished)
		deadline := time.NewTimer(time.Minute)
		defer deadline.Stop()
		for alive > 0 {
			select {
			case ev := <-events:
				if ev.text != "" {
					fmt.Fprint(stderr, ev.text)
				}
				if ev.done {
					ended(ev.c, ev.end)
				}
			case <-deadline.C:
				fmt.Fprintf(stderr, "mdgen: track: children still running a minute after the run: killed\n")
				killAll(false)
			}
		}
	}()
	for i, p := range procs {
		c := &child{spec: p, inFlight: map[int64]bool{}}
		children[i] = c
		// The run's arguments with this child's flags, before a "--" of
		// the user's (after it they would be arguments).
		flags := append(slices.Clone(p.flags), extra...)
		args := slices.Clone(ts.args)
		if dd := slices.Index(args, "--"); dd >= 0 {
			args = slices.Insert(args, dd, flags...)
		} else {
			args = append(args, flags...)
		}
		args = append(slices.Clone(p.prefix[1:]), args...)
		c.cmd = exec.Command(p.prefix[0], args...)
		c.cmd.Env = append(append(slices.Clone(env), serveEnv+"=1"), p.env...)
		c.cmd.Stderr = &lineSender{c: c, events: events, prefix: p.name + ": "} // one goroutine of exec's writes it
		// Once it exited, its stderr is not waited for long (a process
		// it started may hold it).
		c.cmd.WaitDelay = 5 * time.Second
		stdout, err1 := c.cmd.StdoutPipe()
		stdin, err2 := c.cmd.StdinPipe()
		if err := errors.Join(err1, err2); err != nil {
			return nil, err
		}
		if err := c.cmd.Start(); err != nil {
			fmt.Fprintf(stderr, "mdgen: track: %s: %v; going on without it\n", p.name, err)
			failures = append(failures, track.DeviceFailure{Device: i, Err: err})
			continue
		}
		c.stdin, c.in, c.alive = stdin, bufio.NewWriter(stdin), true
		alive++
		go func() {
			br := bufio.NewReaderSize(stdout, 1<<16)
			limit := shardRecordLimit(len(hdr.Vars))
			for n := 0; ; n++ {
				line, err := readShardLine(br, limit)
				if len(line) > 0 && err == nil {
					if err = c.decode(line, n, hdr, events); err == nil {
						continue
					}
				}
				if errors.Is(err, io.EOF) {
					err = nil
				}
				events <- procEvent{c: c, end: err, eof: true}
				events <- procEvent{c: c, end: c.cmd.Wait(), done: true}
				return
			}
		}()
	}
	// The queue: the paths not yet handed out (ranges[cur] from next on,
	// then the ranges after it) and those back from a failed child.
	cur, next := 0, ranges[0][0]
	var back []int64
	left := func() bool { return len(back) > 0 || cur < len(ranges) }
	pop := func() int64 {
		if len(back) > 0 {
			k := back[len(back)-1]
			back = back[:len(back)-1]
			return k
		}
		k := next
		if next++; next > ranges[cur][1] {
			if cur++; cur < len(ranges) {
				next = ranges[cur][0]
			}
		}
		return k
	}
	// rangeOf is the index in ranges of path k.
	rangeOf := func(k int64) int {
		i, _ := slices.BinarySearchFunc(ranges, k, func(r [2]int64, k int64) int { return cmp.Compare(r[1], k) })
		return i
	}
	// feed tops c's paths in flight up to its window. A write that fails
	// (it ended: its output's end gives its paths back) stops feeding it.
	feed := func(c *child) {
		if !c.alive || c.window == 0 {
			return
		}
		sent := false
		for len(c.inFlight) < c.window && left() {
			k := pop()
			c.inFlight[k] = true
			if _, err := fmt.Fprintf(c.in, "%d\n", k); err != nil {
				c.window = 0
				return
			}
			sent = true
		}
		if sent && c.in.Flush() != nil {
			c.window = 0
		}
	}
	// failChild gives c's paths in flight to the others and stops it: its
	// output ended or was wrong before the run was over.
	failChild := func(c *child, err error) {
		if c.failed {
			return
		}
		if err == nil {
			err = fmt.Errorf("its output ended with %d paths in flight", len(c.inFlight))
		}
		for k := range c.inFlight {
			back = append(back, k)
		}
		slices.Sort(back) // the lowest first: pop takes the last
		slices.Reverse(back)
		fmt.Fprintf(stderr, "mdgen: track: %s failed (%v); its %d paths in flight go to the others\n", c.spec.name, err, len(c.inFlight))
		failures = append(failures, track.DeviceFailure{Device: slices.Index(children, c), Err: err, Requeued: len(c.inFlight)})
		c.inFlight, c.failed, c.window = nil, true, 0
		_ = c.stdin.Close()
		_ = c.cmd.Process.Kill()
		for _, o := range children {
			feed(o)
		}
	}

	run := &track.Run{Homotopy: ts.h, Options: filled, Paths: make([]track.Path, count), Scale: scaleOf(ts.h)}
	var done, failed int64
	var start time.Time
	for alive > 0 && done < todo {
		ev := <-events
		c := ev.c
		switch {
		case ev.text != "":
			fmt.Fprint(stderr, ev.text)
			continue
		case ev.done:
			ended(c, ev.end)
			continue
		case c.failed: // what it still said after it failed
			continue
		case ev.eof:
			failChild(c, ev.end)
			continue
		case ev.workers > 0: // it is ready
			if start.IsZero() {
				start = time.Now()
			}
			c.window = ev.workers + min(maxSurplus, max(64, ev.workers/16))
			c.ready = time.Since(spawned)
		default:
			p := ev.path
			k := p.Index - first
			if !c.inFlight[k] {
				failChild(c, fmt.Errorf("it sent path %d, which it was not given", p.Index+1))
				continue
			}
			delete(c.inFlight, k)
			run.Paths[k] = *p
			c.tracked, c.last = c.tracked+1, time.Since(spawned)
			done++
			if chunks != nil {
				if r := rangeOf(k); r < len(ranges) && ranges[r][0] <= k {
					if remain[r]--; remain[r] == 0 {
						if err := chunks.done(chunks.ranges[r], run.Paths[ranges[r][0]:ranges[r][1]+1]); err != nil {
							return nil, err
						}
					}
				}
			}
			if p.Status == track.Failed {
				failed++
			}
			if opt.Progress != nil {
				opt.Progress(done, failed)
			}
		}
		feed(c)
	}
	if done < todo {
		var errs []error
		for _, f := range failures {
			errs = append(errs, fmt.Errorf("%s: %w", procs[f.Device].name, f.Err))
		}
		return nil, fmt.Errorf("track: every process failed, %d paths not tracked: %w", todo-done, errors.Join(errs...))
	}
	// The run is over: the children end (releasing their GPUs, the
	// deferred wait above) while this process finishes it; the tracking
	// time stops before their ends.
	finished = true
	allBack := time.Since(spawned)
	for _, o := range children {
		if o.alive {
			_ = o.stdin.Close()
		}
	}
	run.DeviceFailures = failures
	switch {
	case chunks != nil: // the caller puts the run together from its shards
	case opt.FirstPass:
		track.Classify(run)
	default:
		if err := track.TrackCrossed(ts.h, opt, run); err != nil {
			return nil, err
		}
	}
	run.Seconds = time.Since(start).Seconds()
	// Where the paths went, and when: how evenly the queue kept the
	// GPUs busy, and how long each took to start.
	var share []string
	for _, c := range children {
		ready := "never ready"
		if c.ready > 0 {
			ready = fmt.Sprintf("ready %.2f s, last path %.2f s", c.ready.Seconds(), c.last.Seconds())
		}
		share = append(share, fmt.Sprintf("%s %d (%s)", c.spec.name, c.tracked, ready))
	}
	fmt.Fprintf(stderr, "mdgen: track: paths of each process: %s; every path back at %.2f s, the run done at %.2f s\n", strings.Join(share, ", "), allBack.Seconds(), time.Since(spawned).Seconds())
	return run, nil
}

// procChunks are the chunks of -shards DIR that trackProcesses tracks:
// ranges (0-based, inclusive, increasing, within the run's), each given
// to done with its paths (their first pass) once they are all back.
type procChunks struct {
	ranges [][2]int64
	done   func(r [2]int64, paths []track.Path) error
}

// decode sends the event of line n (0-based) of c's output.
func (c *child) decode(line []byte, n int, hdr *shardHeader, events chan<- procEvent) error {
	if n == 0 {
		var hello struct{ Workers int }
		if err := json.Unmarshal(line, &hello); err != nil || hello.Workers < 1 {
			return fmt.Errorf("not an mdgen track child: its first line is %q", strings.TrimSpace(string(line)))
		}
		events <- procEvent{c: c, workers: hello.Workers}
		return nil
	}
	var rec shardPath
	if err := json.Unmarshal(line, &rec); err != nil {
		return err
	}
	p, err := shardPathOf(&rec, hdr, rec.Path)
	if err != nil {
		return err
	}
	events <- procEvent{c: c, path: &p}
	return nil
}

// shardRecord is p's shard record: the status it was tracked with
// (Path.Tracked; a path not classified yet: Status).
func shardRecord(p *track.Path) shardPath {
	st := p.Tracked
	if st == 0 {
		st = p.Status
	}
	return shardPath{Path: p.Index + 1, Status: st.String(), Reason: p.Reason, Prec: p.Prec, X: p.X,
		T: floatText(p.T), Cond: floatText(p.Cond), Residual: floatText(p.Residual), Err: floatText(p.Err),
		Real: p.Real, Steps: p.Steps, Rejected: p.Rejected, Newton: p.Newton, Seconds: p.Seconds}
}

// lineSender sends each line written to it, prefix before it, as an
// event of its child (the parent prints them, so that its stderr has one
// writer).
type lineSender struct {
	c       *child
	events  chan<- procEvent
	prefix  string
	partial []byte
}

func (l *lineSender) Write(b []byte) (int, error) {
	l.partial = append(l.partial, b...)
	for {
		i := slices.Index(l.partial, '\n')
		if i < 0 {
			break
		}
		line := strings.TrimPrefix(string(l.partial[:i+1]), "mdgen: ")
		l.events <- procEvent{c: l.c, text: "mdgen: " + l.prefix + line}
		l.partial = l.partial[i+1:]
	}
	return len(b), nil
}
