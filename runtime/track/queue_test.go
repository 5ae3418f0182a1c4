package track

import (
	"testing"
	"time"
)

// TestPathQueue: a worker with no path while another holds one waits
// (idle first), gets the path when it is put back (busy after), and the
// queue ends when every path is finished; a stopped queue hands out
// nothing.
func TestPathQueue(t *testing.T) {
	q := newPathQueue(2)
	a, ok1 := q.take(nil, nil)
	b, ok2 := q.take(nil, nil)
	if a != 0 || b != 1 || !ok1 || !ok2 {
		t.Fatalf("took %d %v, %d %v", a, ok1, b, ok2)
	}
	q.finish()
	var idle, busy bool
	got := make(chan int64)
	go func() {
		k, ok := q.take(func() { idle = true }, func() { busy = true })
		if !ok {
			k = -1
		}
		got <- k
	}()
	select {
	case k := <-got:
		t.Fatalf("took %d while path 1 was in flight", k)
	case <-time.After(20 * time.Millisecond):
	}
	q.putBack(1)
	if k := <-got; k != 1 || !idle || !busy {
		t.Fatalf("took %d (idle %v, busy %v), want the path put back", k, idle, busy)
	}
	go func() {
		_, ok := q.take(func() {}, func() { t.Error("busy without a path") })
		if ok {
			got <- 0
		}
		got <- -1
	}()
	q.finish()
	if k := <-got; k != -1 {
		t.Fatal("a path after the last")
	}
	if left := q.left(); left != 0 {
		t.Fatalf("%d paths left", left)
	}
	q = newPathQueue(3)
	q.take(nil, nil)
	q.stop()
	if _, ok := q.take(nil, nil); ok || q.left() != 2 {
		t.Fatalf("a stopped queue: took %v, %d left", ok, q.left())
	}
}
