package nvcc

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/mdgen/mdgen/internal/atomicfile"
)

// RunFatbin runs nvcc (a path, see Find) with args in the folder dir and
// returns nvcc's output. The output file, the argument after "-o"
// (relative to dir), is written under a temporary name and renamed when
// nvcc succeeds, so that a failed or interrupted build leaves no partial
// fatbin. While nvcc runs, progress (when not nil) is called every
// interval with the time elapsed.
func RunFatbin(nvcc, dir string, args []string, interval time.Duration, progress func(elapsed time.Duration)) ([]byte, error) {
	at := slices.Index(args, "-o")
	if at < 0 || at+1 >= len(args) {
		return nil, errors.New("nvcc: no -o in the arguments")
	}
	out := args[at+1]
	var output bytes.Buffer
	err := atomicfile.Produce(filepath.Join(dir, filepath.FromSlash(out)), 0o644, func(tmp string) error {
		targs := slices.Clone(args)
		targs[at+1] = filepath.ToSlash(filepath.Join(filepath.Dir(out), filepath.Base(tmp)))
		cmd := exec.Command(nvcc, targs...)
		cmd.Dir = dir
		cmd.Stdout, cmd.Stderr = &output, &output
		start := time.Now()
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("starting nvcc: %w", err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		var tick <-chan time.Time
		if progress != nil && interval > 0 {
			t := time.NewTicker(interval)
			defer t.Stop()
			tick = t.C
		}
		for {
			select {
			case err := <-done:
				if err != nil {
					return fmt.Errorf("nvcc failed (%v) after %.1f s", err, time.Since(start).Seconds())
				}
				return nil
			case <-tick:
				progress(time.Since(start))
			}
		}
	})
	return output.Bytes(), err
}
