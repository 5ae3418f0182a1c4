package gen

import (
	"fmt"
	"strings"

	. "github.com/dave/jennifer/jen"
	"github.com/mdgen/mdgen/stager"
	"github.com/mdgen/mdgen/stager/poly"
)

// Path tracking in an emitted package: Track (runtime/solver's
// Spec.Track over runtime/track) follows every path of the total-degree
// homotopy of a square system without a parameter, whose paths end at
// every isolated solution; the emitter writes the homotopy's name into
// the package's Spec (Homotopy). A package of any other system has no
// Track: a system with a parameter is solved along its series by Solve
// (the paths of a real Newton homotopy, as `mdgen system X:newton` writes,
// may end at a fold before t = 1: cyclic7's in examples/pathdemo does),
// and `mdgen track FILE` follows its start solutions; an over- or
// underdetermined system has no total-degree homotopy. The name is
// runtime/track's (track.TotalDegree); gen prints it and imports nothing
// of the run time.
const homotopyTotalDegree = "total-degree"

// The Track Example prints the summary and the first exampleTrackPaths
// paths with these formats; Emit has the same run made on the CPU
// (ExampleRunner.TrackExample) to write its // Output:. Coordinates are
// rounded to 10 decimals, so that the output does not change with the
// tracker's last bits.
const (
	trackSummary      = "%d paths: %d regular, %d singular, %d at infinity, %d failed; %d real, %d distinct\n"
	trackFinite       = "path %d: %s, multiplicity %d, %.10f\n"
	trackOther        = "path %d: %s\n"
	exampleTrackPaths = 4
)

// trackExampleWork bounds the work of the Track Example with an output
// (Emit tracks, and go test runs it): paths times convolution jobs times
// limb products, a proxy for the tracker's work (30 to 100 steps a path,
// each a few Newton iterations at the degree of the Padé approximants).
// katsura3 at 4 doubles (8 paths, 37 convolution jobs) is 4.7e3 and takes
// 0.5 s on a 2-core machine (at 2 doubles 0.05 s; katsura4 at 4 doubles,
// 1.5e4, takes 2.7 s).
const trackExampleWork = 5e3

// trackExample is what Emit knows of tracking the emitted system: the
// homotopy (or "" and why not), whether the Example has an output (long:
// too much work to run at emit time and under go test -short: then Emit
// has not tracked, and Track's errors show at run time), and the output.
type trackExample struct {
	homotopy string
	why      string
	long     bool
	output   string
}

// chooseTrack picks the package's homotopy and, when the work is small,
// runs the Track Example.
func chooseTrack(s EmitSpec, sys *poly.System, plan *stager.Plan, run ExampleRunner) trackExample {
	if s.Benchmark != "" {
		return trackExample{why: "a benchmark system has a series parameter"}
	}
	if len(sys.Polys) != len(sys.Vars) {
		return trackExample{why: fmt.Sprintf("%d equations in %d unknowns: tracking needs a square system", len(sys.Polys), len(sys.Vars))}
	}
	if sys.Param != "" {
		return trackExample{why: fmt.Sprintf("the system has a parameter %s: Solve follows its solution series (mdgen track FILE follows its start solutions)", sys.Param)}
	}
	tk := trackExample{homotopy: homotopyTotalDegree}
	paths := 1.0
	for i := range sys.Polys {
		d := sys.Polys[i].Degree()
		if d == 0 {
			return trackExample{why: fmt.Sprintf("equation %d is a constant: no total-degree homotopy", i+1)}
		}
		paths *= float64(d)
	}
	if paths*float64(plan.ConvJobs())*float64(s.Prec.N*s.Prec.N) > trackExampleWork {
		tk.long = true
		return tk
	}
	counts, path, err := run.TrackExample(s.Name, s.Text, s.Param, tk.homotopy, s.Prec)
	if err != nil {
		return trackExample{why: fmt.Sprintf("tracking: %v", err)}
	}
	var b strings.Builder
	fmt.Fprintf(&b, trackSummary, counts[0], counts[1], counts[2], counts[3], counts[4], counts[5], counts[6])
	for k := 0; k < min(counts[0], exampleTrackPaths); k++ {
		number, status, mult, point := path(k)
		if point == nil {
			fmt.Fprintf(&b, trackOther, number, status)
			continue
		}
		fmt.Fprintf(&b, trackFinite, number, status, mult, point)
	}
	tk.output = b.String()
	return tk
}

// The options of Track (forwarders to runtime/solver).
var trackOptionForwards = []forward{
	{"WithTrackPrecision", "WithTrackPrecision tracks at n doubles per number; 0 is the automatic rule (every path\nfrom 1 double, a failing path resumed at the next precision). Default: Precision.", []param{{"n", "int"}}},
	{"WithMaxPrecision", "WithMaxPrecision sets the last precision of the automatic rule (default 8).", []param{{"n", "int"}}},
	{"WithPade", "WithPade sets the degrees of the predictor's Padé approximants (default [2/1]).", []param{{"l", "int"}, {"m", "int"}}},
	{"WithPaths", "WithPaths tracks the paths numbered first to last (from 1, inclusive) only.", []param{{"first", "int64"}, {"last", "int64"}}},
	{"WithTrackWorkers", "WithTrackWorkers sets the paths tracked at once (default: one per CPU; the same bits).", []param{{"k", "int"}}},
	{"WithTrackDevices", "WithTrackDevices tracks on devs, batch paths at once on each (0: their default), such as\nthe GPUs of runtime/gpu/kernels.OpenTracker (built with -tags cuda; nvcc builds the kernels\nonce); the same bits as the CPU. The caller closes devs after Track.", []param{{"devs", "solver.TrackDevices"}, {"batch", "int"}}},
	{"WithTrackProgress", "WithTrackProgress calls f after every path with the numbers of paths done and failed.", []param{{"f", "func(done, failed int64)"}}},
	{"WithGamma", "WithGamma fixes gamma, of modulus 1, in gamma (1 - t) g(x) + t f(x) (default: solver.Gamma(seed)).", []param{{"g", "complex128"}}},
	{"WithSeed", "WithSeed seeds gamma and the projective charts, one per path (default solver.DefaultSeed).", []param{{"seed", "uint64"}}},
	{"WithAffine", "WithAffine tracks in the affine unknowns instead of projective coordinates.", nil},
}

// trackDoc is the package comment's paragraph on Track.
const trackDoc = `
Track solves the system: it follows every path of the total-degree
homotopy gamma (1 - t) g(x) + t f(x), g_i = x_i^(d_i) - 1 (in projective
coordinates, gamma from the seed), with runtime/track on the CPU (or the
GPUs: WithTrackDevices), and returns every path's endpoint with its status (regular, singular, at
infinity, failed), multiplicity, condition number and residual; the
regular and singular endpoints are the isolated solutions, each to every
digit of the precision its path ended at:

	res, err := Track()            // Track(WithTrackPrecision(0)): automatic precision per path
	fmt.Println(res.Summary)       // regular, singular, infinite, failed, real, distinct
	for _, sol := range res.Solutions {
		if sol.Finite() {
			fmt.Println(sol.Status, sol.Point()) // Text(v), Coef(v), Rat(v): every digit, the limbs, exact
		}
	}`

// emitTrackAPI writes the types, Track and its options.
func emitTrackAPI(f *File) {
	f.Line()
	f.Type().Defs(
		Comment("TrackOption configures one Track (the precision, the Padé degrees, the paths, ...)."),
		Id("TrackOption").Op("=").Qual(solverPath, "TrackOption"),
		Comment("TrackResult is the outcome of Track: the tracker's run (Homotopy, Options, Paths,"),
		Comment("Summary, Seconds) and Solutions, one per path."),
		Id("TrackResult").Op("=").Qual(solverPath, "TrackResult"),
		Comment("Solution is one path's endpoint: Status, Multiplicity, Cond, Residual, Prec, and its"),
		Comment("coordinates (Point, Float, Text, Coef, Rat)."),
		Id("Solution").Op("=").Qual(solverPath, "Solution"),
	)
	f.Line()
	f.Comment("Track follows every path of the total-degree homotopy from t = 0 to t = 1 at")
	f.Comment("Precision doubles (WithTrackPrecision to change), on every core of the CPU, and")
	f.Comment("returns every endpoint: the isolated solutions of the system, with the paths")
	f.Comment("that go to infinity or fail. The results do not depend on the number of workers.")
	f.Func().Id("Track").Params(Id("opts").Op("...").Id("TrackOption")).Params(Op("*").Id("TrackResult"), Error()).Block(
		Return(Id("spec").Dot("Track").Call(Id("opts").Op("..."))),
	)
	for _, o := range trackOptionForwards {
		o.emit(f, "TrackOption")
	}
}

// emitTrackTests writes ExampleTrack and TestTrackMatchesTracker: Track
// against runtime/track run directly on the same homotopy, bit for bit.
func emitTrackTests(f *File, tk trackExample, tParam *Statement, fatal func() *Statement) {
	logFatal := If(Err().Op("!=").Nil()).Block(Qual("log", "Fatal").Call(Err()))
	f.Line()
	f.Comment("ExampleTrack tracks every path on the CPU and prints the summary and the first")
	f.Comment("endpoints (rounded to 10 decimals).")
	if tk.long {
		f.Comment("It has no output to check (tracking at this size takes long), so go test")
		f.Comment("compiles it without running it.")
	}
	body := []Code{
		List(Id("res"), Err()).Op(":=").Id("Track").Call(),
		logFatal,
		Id("s").Op(":=").Id("res").Dot("Summary"),
		Qual("fmt", "Printf").Call(Lit(trackSummary), Len(Id("res").Dot("Solutions")), Id("s").Dot("Regular"), Id("s").Dot("Singular"),
			Id("s").Dot("Infinite"), Id("s").Dot("Failed"), Id("s").Dot("Real"), Id("s").Dot("Distinct")),
		For(List(Id("_"), Id("sol")).Op(":=").Range().Id("res").Dot("Solutions").Index(Empty(), Min(Len(Id("res").Dot("Solutions")), Lit(exampleTrackPaths)))).Block(
			If(Op("!").Id("sol").Dot("Finite").Call()).Block(
				Qual("fmt", "Printf").Call(Lit(trackOther), Id("sol").Dot("Number").Call(), Id("sol").Dot("Status")),
				Continue(),
			),
			Qual("fmt", "Printf").Call(Lit(trackFinite), Id("sol").Dot("Number").Call(), Id("sol").Dot("Status"), Id("sol").Dot("Multiplicity"), Id("sol").Dot("Point").Call()),
		),
	}
	if !tk.long {
		body = append(body, Comment("Output:"))
		for _, line := range strings.Split(strings.TrimSuffix(tk.output, "\n"), "\n") {
			body = append(body, Comment(line))
		}
	}
	f.Func().Id("ExampleTrack").Params().Block(body...)

	f.Line()
	f.Comment("TestTrackMatchesTracker checks that Track, on two workers, gives the bits of")
	f.Comment("runtime/track run directly on one worker on the same homotopy.")
	var skip []Code
	if tk.long {
		f.Comment("It is skipped with -short: tracking at this size takes long.")
		skip = append(skip, If(Qual("testing", "Short").Call()).Block(Id("t").Dot("Skip").Call(Lit("tracking at this size takes long"))))
	}
	body = append(skip,
		List(Id("got"), Err()).Op(":=").Id("Track").Call(Id("WithTrackWorkers").Call(Lit(2))),
		fatal(),
		List(Id("sys"), Err()).Op(":=").Id("System").Call(),
		fatal(),
	)
	body = append(body,
		List(Id("h"), Err()).Op(":=").Qual(trackPath, "NewTotalDegree").Call(Id("sys"),
			Qual(solverPath, "Gamma").Call(Qual(solverPath, "DefaultSeed")), True(), Qual(solverPath, "DefaultSeed")),
		fatal(),
	)
	body = append(body,
		List(Id("want"), Err()).Op(":=").Qual(trackPath, "Track").Call(Id("h"),
			Qual(trackPath, "Options").Values(Dict{Id("Prec"): Id("Precision"), Id("Workers"): Lit(1)}), Lit(0), Lit(0)),
		fatal(),
		If(Err().Op(":=").Qual(solverPath, "DiffTrack").Call(Id("got").Dot("Run"), Id("want")), Err().Op("!=").Nil()).Block(
			Id("t").Dot("Fatal").Call(Err()),
		),
		Id("t").Dot("Logf").Call(Lit("%d paths: %+v"), Len(Id("got").Dot("Solutions")), Id("got").Dot("Summary")),
	)
	f.Func().Id("TestTrackMatchesTracker").Params(tParam).Block(body...)
}

// forward is an option of the emitted package that forwards to
// runtime/solver: func name(params) ret { return solver.name(args) }.
type forward struct {
	name, doc string
	params    []param
}

type param struct{ name, typ string }

func (o forward) emit(f *File, ret string) {
	var params, args []Code
	for _, p := range o.params {
		var ty Code = Id(p.typ)
		switch p.typ {
		case "func(done, failed int64)":
			ty = Func().Params(List(Id("done"), Id("failed")).Int64())
		case "solver.TrackDevices":
			ty = Qual(solverPath, "TrackDevices")
		}
		params = append(params, Id(p.name).Add(ty))
		args = append(args, Id(p.name))
	}
	f.Line()
	comment(f, o.doc)
	f.Func().Id(o.name).Params(params...).Id(ret).Block(
		Return(Qual(solverPath, o.name).Call(args...)),
	)
}
