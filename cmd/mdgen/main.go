// Command mdgen generates multiple-double arithmetic for Go and CUDA.
//
//	mdgen generate [-root dir] [-n 1,2,3,4,5,8,10,16]   write mdops/ and generated/cuda/
//	mdgen ops [-n list] [-samples k] [-json]            operation counts and measured accuracy
//
// Later subcommands (plan, eval, emit, bench) act on polynomial systems.
package main

import (
	"fmt"
	"os"
)

const usage = `usage: mdgen <command> [flags]

commands:
  generate   write the generated arithmetic (mdops/f<N>_gen.go, generated/cuda/*.cuh)
  ops        print flop counts and measured worst-case accurate bits per N and operation
  system     write a benchmark system (p1, p2, p3) in PHCpack's format
  plan       stage a system: jobs, layers, slots and memory at a degree
  eval       evaluate and differentiate a system at power series on the CPU (-verify: against math/big)
  emit       write a Go solver package for a system: kernels and job tables (.cu, nvcc), GPU or CPU back end

Run 'mdgen <command> -h' for the flags of a command.
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	var err error
	switch cmd, args := os.Args[1], os.Args[2:]; cmd {
	case "generate":
		err = runGenerate(args)
	case "ops":
		err = runOps(args, os.Stdout)
	case "plan":
		err = runPlan(args, os.Stdout)
	case "system":
		err = runSystem(args, os.Stdout)
	case "eval":
		err = runEval(args, os.Stdout)
	case "emit":
		err = runEmit(args, os.Stdout, os.Stderr)
	case "bench":
		err = runBench(args, os.Stdout)
	case "-h", "-help", "--help", "help":
		fmt.Print(usage)
		return
	default:
		fmt.Fprintf(os.Stderr, "mdgen: unknown command %q\n%s", cmd, usage)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "mdgen: %v\n", err)
		os.Exit(1)
	}
}
