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
	"github.com/mdgen/mdgen/runtime/track"
)

// serveEnv, set to 1 in a child's environment, makes mdgen track serve
// its parent (serveTrack) instead of tracking the run itself.
const serveEnv = "MDGEN_TRACK_SERVE"

// procSpec is how to start one child: its name in messages (GPU 2), the
// command line and the environment added to the parent's.
type procSpec struct {
	name string
	args []string
	env  []string
}

// runProcs returns the children that track ts's run, nil for one process
// (gpuProcs; a variable, so that the tests run children on the CPU).
var runProcs = gpuProcs

// gpuProcs returns the children of a -gpu run on several GPUs (a process
// each), or nil when the run is one process: one GPU, -gpu-procs=false,
// the batched evaluations, a build without CUDA, or a child itself.
func gpuProcs(ts *trackSetup) []procSpec {
	if !ts.gpu || !ts.gpuProcs || ts.gpuEvaluations || !cudadev.Enabled || os.Getenv(serveEnv) != "" {
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
		args := append([]string{exe, "track"}, ts.args...)
		args = append(args, "-devices", strconv.Itoa(d))
		procs = append(procs, procSpec{name: fmt.Sprintf("GPU %d", d), args: args, env: env})
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
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	src := make(chan int64, 1024)
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
	var writeErr error
	line := func(v any) {
		b, err := json.Marshal(v)
		mu.Lock()
		defer mu.Unlock()
		if writeErr != nil {
			return
		}
		if err == nil {
			_, err = bw.Write(append(b, '\n'))
		}
		if err == nil {
			err = bw.Flush()
		}
		writeErr = err
	}
	line(map[string]int{"workers": workers})
	opt.FirstPass, opt.Source, opt.Progress = true, src, nil
	opt.PathDone = func(_ int64, p *track.Path) { line(shardRecord(p)) }
	_, err := track.Track(ts.h, opt, ts.first, count)
	if err != nil {
		return fmt.Errorf("track: %s: %w", ts.arg, err)
	}
	return writeErr
}

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
	stderr      *prefixLineWriter // its stderr, each line named
}

// procEvent is a child's first line (workers), a path it tracked (path,
// read on its reader's goroutine: the records of several GPUs are more
// than one goroutine decodes), the end of its output (eof) or its exit
// (done).
type procEvent struct {
	c         *child
	workers   int
	path      *track.Path
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
	fmt.Fprintf(stderr, "mdgen: track: a process for each of %s, the paths from one queue (-gpu-procs=false: one process)\n", strings.Join(names, ", "))
	rangeArg := fmt.Sprintf("%d:%d", first+1, ts.last+1)
	spawned := time.Now()
	events := make(chan procEvent, 256)
	children := make([]*child, len(procs))
	defer func() { // on an error: end them all
		for _, c := range children {
			if c != nil && c.alive {
				_ = c.cmd.Process.Kill()
			}
		}
	}()
	alive := 0
	var failures []track.DeviceFailure
	fail := func(i int, err error, requeued int) {
		failures = append(failures, track.DeviceFailure{Device: i, Err: err, Requeued: requeued})
	}
	for i, p := range procs {
		c := &child{spec: p, inFlight: map[int64]bool{}, stderr: &prefixLineWriter{w: stderr, prefix: p.name + ": "}}
		children[i] = c
		args := append(slices.Clone(p.args[1:]), "-paths", rangeArg)
		c.cmd = exec.Command(p.args[0], args...)
		c.cmd.Env = append(append(os.Environ(), serveEnv+"=1"), p.env...)
		c.cmd.Stderr = c.stderr
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
			fail(i, err, 0)
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

	run := &track.Run{Homotopy: ts.h, Options: filled, Paths: make([]track.Path, count), Scale: scaleOf(ts.h)}
	var done, failed int64
	var start time.Time
	// ended handles a child's exit.
	ended := func(c *child, err error) {
		c.alive = false
		alive--
		if err != nil && !c.failed {
			fmt.Fprintf(stderr, "mdgen: track: %s: %v after its paths were done\n", c.spec.name, err)
		}
	}
	for alive > 0 && done < todo {
		ev := <-events
		c := ev.c
		i := slices.Index(children, c)
		switch {
		case ev.eof:
			// Its output ended before the run did: whatever it still
			// holds is tracked elsewhere, and it is stopped.
			err := ev.end
			if err == nil {
				err = fmt.Errorf("its output ended with %d paths in flight", len(c.inFlight))
			}
			for k := range c.inFlight {
				back = append(back, k)
			}
			slices.Sort(back) // the lowest first: pop takes the last
			slices.Reverse(back)
			fmt.Fprintf(stderr, "mdgen: track: %s failed (%v); its %d paths in flight go to the others\n", c.spec.name, err, len(c.inFlight))
			fail(i, err, len(c.inFlight))
			c.inFlight, c.failed, c.window = nil, true, 0
			_ = c.stdin.Close()
			_ = c.cmd.Process.Kill()
			for _, o := range children {
				feed(o)
			}
			continue
		case ev.done:
			ended(c, ev.end)
			continue
		}
		if ev.workers > 0 { // it is ready
			if start.IsZero() {
				start = time.Now()
			}
			c.window = ev.workers + max(64, ev.workers/16)
			c.ready = time.Since(spawned)
		} else {
			p := ev.path
			k := p.Index - first
			if !c.inFlight[k] {
				return nil, fmt.Errorf("%s: path %d, which it was not given", c.spec.name, p.Index+1)
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
	allBack := time.Since(spawned)
	// The run is over: the children end (releasing their GPUs) while this
	// process finishes it; the tracking time stops before their ends.
	for _, o := range children {
		if o.alive {
			_ = o.stdin.Close()
		}
	}
	defer func() {
		for alive > 0 {
			if ev := <-events; ev.done {
				ended(ev.c, ev.end)
			}
		}
	}()
	if done < todo {
		var errs []error
		for _, f := range failures {
			errs = append(errs, fmt.Errorf("%s: %w", procs[f.Device].name, f.Err))
		}
		return nil, fmt.Errorf("track: every process failed, %d paths not tracked: %w", todo-done, errors.Join(errs...))
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
		share = append(share, fmt.Sprintf("%s %d (ready %.2f s, last path %.2f s)", c.spec.name, c.tracked, c.ready.Seconds(), c.last.Seconds()))
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

// prefixLineWriter writes each line to w with prefix before it.
type prefixLineWriter struct {
	mu      sync.Mutex
	w       io.Writer
	prefix  string
	partial []byte
}

func (p *prefixLineWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.partial = append(p.partial, b...)
	for {
		i := slices.Index(p.partial, '\n')
		if i < 0 {
			break
		}
		line := p.partial[:i+1]
		if rest, ok := strings.CutPrefix(string(line), "mdgen: "); ok {
			line = []byte(rest)
		}
		if _, err := fmt.Fprintf(p.w, "mdgen: %s%s", p.prefix, line); err != nil {
			return 0, err
		}
		p.partial = p.partial[i+1:]
	}
	return len(b), nil
}
