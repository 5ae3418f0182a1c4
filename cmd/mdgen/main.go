// Command mdgen generates multiple-double arithmetic for Go and CUDA and
// evaluates polynomial systems at power series with it.
//
//	mdgen generate [-n list] [-root dir | -o dir]       write mdops/ and generated/cuda/
//	mdgen ops [-n list] [-samples k] [-json]            operation counts and measured accuracy
//	mdgen system NAME                                   write a system in PHCpack's format
//	mdgen plan sys.txt -degree d                        the staging's sizes
//	mdgen track sys.txt [-prec P|auto] [-o f]          every isolated solution by homotopy continuation
//	mdgen merge SHARDS... [-o f] [-json]                the shards of a run (track -shard, -shards, -slurm) as one run
//	mdgen solve sys.txt -prec N -degree d [-start f]    Newton's method on Taylor series (root refinement at d = 0)
//	mdgen eval sys.txt -prec N -degree d [-verify]      evaluate and differentiate on the CPU
//	mdgen emit sys.txt -prec N -degree d                write a solver package
//	mdgen sys.txt [-prec N] [-degree d]                 write a solver package into ./sys (emit, -prec 4 -degree 16)
//	mdgen bench [...]                                   the GPU table beside PHCpack's
//	mdgen tune [...]                                    fit the kernels' launch shapes to the GPU: a tuning profile
//	mdgen version                                       module, Go and VCS versions
//
// Exit status: 0 on success (and for -h), 2 for a usage error (a bad flag or
// flag value, a missing argument), 1 for any other error.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"

	"github.com/mdgen/mdgen/internal/atomicfile"
)

// usage lists every command; keep it in step with run's switch (TestUsageListsEveryCommand).
const usage = `usage: mdgen <command> [flags]
       mdgen FILE [flags]   write the solver package for the system in FILE into ./<name> (emit -prec 4 -degree 16)

commands:
  track      solve a system: track every path of a homotopy (total degree, or one with start solutions) to t = 1
  merge      put the shards of a run of track (-shard, -shards, -slurm) together: the output of the whole run
  solve      Newton's method on Taylor series from start solutions (root refinement with -degree 0); -gpu on a device
  eval       evaluate and differentiate a system at power series on the CPU (-verify: against math/big)
  plan       stage a system: jobs, layers, slots and memory at a degree
  system     write a system (p1, p2, p3 and other families) in PHCpack's format
  emit       write a Go solver package for a system: kernels and job tables (.cu, nvcc), GPU or CPU back end
  bench      time the evaluation on the GPU (or -cpu) beside PHCpack's published numbers
  tune       search the kernels' launch shapes on the GPU and write a tuning profile (emit, solve, bench use it)
  ops        print flop counts and measured worst-case accurate bits per N and operation
  generate   write the generated arithmetic (mdops/f<N>_gen.go, generated/cuda/*.cuh) in the repository
  version    print the module version, the Go version and the VCS revision (also: mdgen -version)

Run 'mdgen <command> -h' for the flags of a command.
`

func main() {
	// An interrupted run leaves no temporary file of an output behind.
	atomicfile.RemoveOnSignal()
	stop := startCPUProfile(os.Getenv("MDGEN_CPUPROFILE"), os.Stderr)
	status := run(os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(status)
}

// startCPUProfile writes a Go CPU profile of the command to path when it
// is not empty (MDGEN_CPUPROFILE: where the host's time of a GPU run goes,
// docs/gpu.md, "Profiling"), and returns what stops it. A run stopped by
// a signal writes no profile.
func startCPUProfile(path string, stderr io.Writer) (stop func()) {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		if err = pprof.StartCPUProfile(f); err != nil {
			f.Close()
			os.Remove(path)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "mdgen: MDGEN_CPUPROFILE: %v (no profile written)\n", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintf(stderr, "mdgen: MDGEN_CPUPROFILE: %v\n", err)
		}
	}
}

// command is a subcommand: its name and what runs it with its arguments.
type command struct {
	name string
	run  func(args []string, stdout, stderr io.Writer) error
}

// commands are the subcommands run dispatches to, in usage's order.
var commands = []command{
	{"track", runTrack},
	{"merge", runMerge},
	{"solve", runSolve},
	{"eval", runEval},
	{"plan", runPlan},
	{"system", func(args []string, stdout, _ io.Writer) error { return runSystem(args, stdout) }},
	{"emit", runEmit},
	{"bench", func(args []string, stdout, _ io.Writer) error { return runBench(args, stdout) }},
	{"tune", runTune},
	{"ops", runOps},
	{"generate", runGenerate},
	{"version", runVersion},
}

// lookupCommand returns the command named name (-version and --version
// name version).
func lookupCommand(name string) (command, bool) {
	if name == "-version" || name == "--version" {
		name = "version"
	}
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// run runs the command line args (without the program name) and returns
// the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) < 1 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	cmd, rest := args[0], args[1:]
	if c, ok := lookupCommand(cmd); ok {
		err = c.run(rest, stdout, stderr)
	} else {
		switch cmd {
		case "-h", "-help", "--help":
			fmt.Fprint(stdout, usage)
			return 0
		case "help":
			if len(rest) == 0 {
				fmt.Fprint(stdout, usage)
				return 0
			}
			return run([]string{rest[0], "-h"}, stdout, stderr)
		default:
			if !isFileArg(cmd) {
				fmt.Fprintf(stderr, "mdgen: unknown command %q\n%s", cmd, usage)
				return 2
			}
			err = runEmitFile(args, stdout, stderr)
		}
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0 // the command printed its usage
	case isUsageError(err):
		fmt.Fprintf(stderr, "mdgen: %v\n", err)
		return 2
	default:
		fmt.Fprintf(stderr, "mdgen: %v\n", err)
		return 1
	}
}
