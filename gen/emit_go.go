package gen

import (
	"bytes"
	"fmt"
	"strings"

	. "github.com/dave/jennifer/jen"
	"github.com/mdgen/mdgen/stager"
)

// What the doc comments of an emitted package call the fingerprint of the
// plan and the GPU layout version.
const (
	planHashDoc      = "stager.Plan.Hash"
	layoutVersionDoc = "gpuabi.LayoutVersion"
)

const (
	solverPath   = "github.com/mdgen/mdgen/runtime/solver"
	gpuabiPath   = "github.com/mdgen/mdgen/gen/gpuabi"
	backendPath  = "github.com/mdgen/mdgen/runtime/backend"
	cpuPath      = "github.com/mdgen/mdgen/runtime/cpu"
	stagerPath   = "github.com/mdgen/mdgen/stager"
	polyPath     = "github.com/mdgen/mdgen/stager/poly"
	familiesPath = "github.com/mdgen/mdgen/stager/families"
	newtonPath   = "github.com/mdgen/mdgen/runtime/newton"
	mdopsPath    = "github.com/mdgen/mdgen/mdops"
	trackPath    = "github.com/mdgen/mdgen/runtime/track"
)

func newEmitFile(pkg, header string) *File {
	f := NewFile(pkg)
	f.HeaderComment(header)
	f.ImportName(backendPath, "backend")
	f.ImportName(cpuPath, "cpu")
	f.ImportName(solverPath, "solver")
	f.ImportName(gpuabiPath, "gpuabi")
	f.ImportName(stagerPath, "stager")
	f.ImportName(polyPath, "poly")
	f.ImportName(familiesPath, "families")
	f.ImportName(newtonPath, "newton")
	f.ImportName(mdopsPath, "mdops")
	f.ImportName(trackPath, "track")
	return f
}

// comment writes a comment of one or more lines: a line comment each (a
// string with a newline given to jennifer's Comment becomes a /* */ block).
func comment(f *File, text string) {
	for _, line := range strings.Split(text, "\n") {
		f.Comment(line)
	}
}

func renderGo(name string, f *File) ([]byte, error) {
	var buf bytes.Buffer
	if err := f.Render(&buf); err != nil {
		return nil, fmt.Errorf("emit: rendering %s: %w", name, err)
	}
	return formatGo(name, buf.Bytes()), nil
}

// emitGo returns <name>.go: constants, the compile-time guard on the GPU
// layout, the embedded fatbin folder (and system text), and the API, which
// forwards to runtime/solver.
func emitGo(s EmitSpec, plan *stager.Plan, hash uint64, sourceHash, header, nvcc string, tk trackExample) ([]byte, error) {
	f := newEmitFile(s.Package, header)
	pc := func(text string) {
		for _, line := range strings.Split(text, "\n") {
			f.PackageComment(line)
		}
	}
	pc(fmt.Sprintf("Package %s evaluates, differentiates and solves %s.", s.Package, s.describe()))
	pc(`Newton's method on Taylor series (runtime/newton) takes a solution at
t = 0 to the series of its solution path x(t) to degree Degree, every
coefficient to the working precision, with the residual, the condition
number and the time of each of its six stages: the bits of ` + "`mdgen solve`" + `
on the same system, precision, degree and start. It runs on a GPU when the
program has the GPU executor (build tag cuda), the fatbin is built and a
CUDA device is present (the evaluation and the linear algebra, on the
device: Result.LinearAlgebra), and on the CPU otherwise, with the same bits
either way.

	s, err := New()                // or New(WithCPU()), New(WithFatbin(path)), ...
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	starts, err := Starts()        // the start solutions of the system file, or Point(...)
	res, err := s.Solve(starts[0]) // or SolveAll(starts); Solve(start, WithDegree(0)) refines the root
	re, im := res.Text(0, 1)       // the coefficient of t in the series of the first variable
	fmt.Println(res.Residual, res.Cond, res.Times)

A Newton failure (a singular or ill-conditioned Jacobian at t = 0, a
diverging update, the step limit) is an error that wraps a
*newton.Failure (errors.Is(err, newton.ErrDiverging), ...), returned with
the Result of the last iterate; bad input is an error without a Result.`)
	if plan.NumPolys < plan.NumVars {
		pc(fmt.Sprintf(`This system has %d equations in %d unknowns: Newton needs at least as
many equations as unknowns, so Solve refuses it and the package evaluates.`, plan.NumPolys, plan.NumVars))
	}
	if tk.homotopy != "" {
		pc(trackDoc)
	}
	pc(`
The evaluation alone (the values and the Jacobian at series inputs):

	for v := 0; v < NumVars; v++ {
		s.SetInput(v, series[v]) // Layout().SlotLen() doubles each
	}
	err = s.Run()
	value, dp0dx0 := s.Value(0), s.Deriv(0, 0)
`)
	f.PackageComment(fmt.Sprintf("The kernels (evaluation, and Newton's linear algebra) and the job tables are in %s.cu. The package embeds the", s.Name))
	f.PackageComment(fmt.Sprintf("folder fatbin/, where nvcc puts %s.fatbin; mdgen emit runs nvcc when it", s.Name))
	f.PackageComment("finds it, or build it in this folder with")
	f.PackageComment("")
	f.PackageComment("\t" + nvcc)
	f.PackageComment("")
	f.PackageComment("The plan is staged again when first needed and checked against PlanHash;")
	f.PackageComment("the build fails when gpuabi.LayoutVersion changes: regenerate the")
	f.PackageComment("package then (mdgen emit " + s.Args + ").")

	f.Comment("What the package was emitted for.")
	f.Const().Defs(
		Comment("Name is the base name of the package's files: "+s.Name+".cu, fatbin/"+s.Name+".fatbin."),
		Id("Name").Op("=").Lit(s.Name),
		Comment("Precision is the number of doubles per number."),
		Id("Precision").Op("=").Lit(s.Prec.N),
		Comment("Degree is the truncation degree: series have Degree+1 coefficients."),
		Id("Degree").Op("=").Lit(s.Degree),
		Comment("Complex reports whether the data are complex."),
		Id("Complex").Op("=").Lit(s.Prec.Complex),
		Comment("NumVars is the number of variables: one input series each."),
		Id("NumVars").Op("=").Lit(plan.NumVars),
		Comment("NumPolys is the number of polynomials."),
		Id("NumPolys").Op("=").Lit(plan.NumPolys),
		Comment(fmt.Sprintf("ConvJobs is the number of convolution jobs, in %d layers.", len(plan.ConvLayers))),
		Id("ConvJobs").Op("=").Lit(plan.ConvJobs()),
		Comment(fmt.Sprintf("AddJobs is the number of addition jobs, in %d layers.", len(plan.AddLayers))),
		Id("AddJobs").Op("=").Lit(plan.AddJobs()),
		Comment("PlanHash is "+planHashDoc+" of the staged plan."),
		Id("PlanHash").Uint64().Op("=").Id(fmt.Sprintf("0x%016x", hash)),
		Comment("GPULayoutVersion is the version of the GPU contract ("+layoutVersionDoc+") the kernels follow."),
		Id("GPULayoutVersion").Op("=").Lit(gpuLayoutVersion()),
		Comment("FatbinName is the file in fatbin/ that nvcc builds from "+s.Name+".cu."),
		Id("FatbinName").Op("=").Lit(s.Name+".fatbin"),
		Comment("SourceHash is the SHA-256 of "+s.Name+".cu: a fatbin whose stamp names another source is stale."),
		Id("SourceHash").Op("=").Lit(sourceHash),
	)
	f.Line()
	f.Comment("This stops the build when gpuabi.LayoutVersion is not the version the")
	f.Comment("kernels of this package were emitted for: regenerate the package.")
	f.Var().Id("_").Op("=").Index(Lit(1)).Struct().Values().Index(
		Qual(gpuabiPath, "LayoutVersion").Op("-").Id("GPULayoutVersion"))
	f.Line()
	f.Comment("prec is Precision and Complex as one value, as the run time takes them.")
	f.Var().Id("prec").Op("=").Qual(mdopsPath, "Prec").Values(Dict{Id("N"): Id("Precision"), Id("Complex"): Id("Complex")})
	f.Line()
	f.Comment("fatbins holds fatbin/" + s.Name + ".fatbin when nvcc built it (and fatbin/README.txt always).")
	f.Comment("")
	f.Comment("//go:embed fatbin")
	f.Var().Id("fatbins").Qual("embed", "FS")

	specFields := Dict{
		Id("Name"):          Id("Name"),
		Id("Prec"):          Id("prec"),
		Id("Degree"):        Id("Degree"),
		Id("PlanHash"):      Id("PlanHash"),
		Id("LayoutVersion"): Id("GPULayoutVersion"),
		Id("Fatbins"):       Id("fatbins"),
		Id("FatbinName"):    Id("FatbinName"),
		Id("SourceHash"):    Id("SourceHash"),
		Id("NVCC"):          Lit(nvcc),
		Id("GPU"):           Id("newGPU"),
	}
	if s.Benchmark != "" {
		specFields[Id("Benchmark")] = Lit(s.Benchmark)
		specFields[Id("Seed")] = Lit(s.Seed)
	} else {
		f.Line()
		f.Comment("systemText is the system file.")
		f.Comment("")
		f.Comment("//go:embed " + s.systemFile())
		f.Var().Id("systemText").String()
		specFields[Id("Text")] = Id("systemText")
		specFields[Id("Param")] = Lit(s.Param)
	}
	if tk.homotopy != "" {
		specFields[Id("Homotopy")] = Lit(tk.homotopy)
	}
	f.Line()
	f.Var().Id("spec").Op("=").Op("&").Qual(solverPath, "Spec").Values(specFields)
	f.Line()
	f.Type().Defs(
		Comment("Solver evaluates the system and its Jacobian at power series, and solves it"),
		Comment("with Newton's method on Taylor series (see solver.Solver). It is not safe for"),
		Comment("concurrent use: make one per goroutine."),
		Id("Solver").Op("=").Qual(solverPath, "Solver"),
		Comment("Option configures New (the back end)."),
		Id("Option").Op("=").Qual(solverPath, "Option"),
		Comment("SolveOption configures one Solve or SolveAll (the degree, the limits, progress)."),
		Id("SolveOption").Op("=").Qual(solverPath, "SolveOption"),
		Comment("Start is a start point: the exact values of the variables at t = 0, in the"),
		Comment("order of the system's variables."),
		Id("Start").Op("=").Qual(solverPath, "Start"),
		Comment("Result is the outcome of Newton from one start: the series of every variable"),
		Comment("(Coef, Text, Rat, Series, Float), Residual, Cond, Steps, the six stage Times."),
		Id("Result").Op("=").Qual(solverPath, "Result"),
	)
	f.Line()
	f.Comment("New prepares a solver: on the GPU when it can, on the CPU otherwise")
	f.Comment("(Solver.FallbackReason says why).")
	f.Func().Id("New").Params(Id("opts").Op("...").Id("Option")).Params(Op("*").Id("Solver"), Error()).Block(
		Return(Qual(solverPath, "New").Call(Id("spec"), Id("opts").Op("..."))),
	)
	f.Line()
	f.Comment("Plan returns the staged plan (staged once, checked against PlanHash).")
	f.Func().Id("Plan").Params().Params(Op("*").Qual(stagerPath, "Plan"), Error()).Block(
		Return(Id("spec").Dot("Plan").Call()),
	)
	f.Line()
	f.Comment("System returns the system, rebuilt as the package stages it.")
	f.Func().Id("System").Params().Params(Op("*").Qual(polyPath, "System"), Error()).Block(
		Return(Id("spec").Dot("System").Call()),
	)
	f.Line()
	f.Comment("Starts returns the start solutions listed after the system in its file (none")
	f.Comment("when there is no list): at t = 0, ready for Solve and SolveAll.")
	f.Func().Id("Starts").Params().Params(Index().Id("Start"), Error()).Block(
		Return(Id("spec").Dot("Starts").Call()),
	)
	f.Line()
	f.Comment("Point returns the start with these real values (exactly).")
	f.Func().Id("Point").Params(Id("values").Op("...").Float64()).Id("Start").Block(
		Return(Qual(solverPath, "Point").Call(Id("values").Op("..."))),
	)
	f.Line()
	f.Comment("ComplexPoint returns the start with these complex values (exactly).")
	f.Func().Id("ComplexPoint").Params(Id("values").Op("...").Complex128()).Id("Start").Block(
		Return(Qual(solverPath, "ComplexPoint").Call(Id("values").Op("..."))),
	)
	f.Line()
	f.Comment("Layout returns the layout of one series (Degree+1 coefficients).")
	f.Func().Id("Layout").Params().Qual(backendPath, "Layout").Block(
		Return(Id("spec").Dot("Layout").Call()),
	)
	for _, o := range []struct{ name, doc, param, typ string }{
		{"WithFatbin", "WithFatbin loads the kernels from the fatbin at path instead of the embedded one.", "path", "string"},
		{"WithCPU", "WithCPU runs on the CPU without trying the GPU.", "", ""},
		{"RequireGPU", "RequireGPU makes New fail when the GPU cannot be used, instead of falling back.", "", ""},
		{"WithWorkers", "WithWorkers sets the goroutines of the CPU executor (default: one per CPU).", "n", "int"},
		{"WithDevice", "WithDevice picks the CUDA device (default 0).", "ordinal", "int"},
		{"WithModuleTables", "WithModuleTables says whether the GPU executor uses the job tables baked into the\nfatbin (default: yes for the embedded fatbin, no with WithFatbin).", "use", "bool"},
	} {
		emitForward(f, o.name, o.doc, o.param, o.typ, "Option")
	}
	for _, o := range []struct{ name, doc, param, typ string }{
		{"WithDegree", "WithDegree computes the series to degree d <= Degree only; d = 0 refines the root.", "d", "int"},
		{"WithMaxSteps", "WithMaxSteps limits the Newton steps of one start (0: newton.DefaultMaxSteps).", "k", "int"},
		{"WithMaxCond", "WithMaxCond sets the largest accepted condition estimate of the Jacobian at t = 0.", "c", "float64"},
		{"WithProgress", "WithProgress calls f after every Newton step.", "f", "func(newton.StepInfo)"},
	} {
		emitForward(f, o.name, o.doc, o.param, o.typ, "SolveOption")
	}
	if tk.homotopy != "" {
		emitTrackAPI(f) // gen/emit_track.go
	}
	f.Line()
	f.Comment("newGPU is the package's one call into the GPU executor (package runtime/gpu,")
	f.Comment("through solver.NewGPU: it opens the device and loads the fatbin).")
	f.Func().Id("newGPU").Params(
		Id("plan").Op("*").Qual(stagerPath, "Plan"), Id("fatbin").Index().Byte(), Id("cfg").Qual(solverPath, "GPUConfig"),
	).Params(Qual(backendPath, "Executor"), Error()).Block(
		Return(Qual(solverPath, "NewGPU").Call(Id("plan"), Id("fatbin"), Id("cfg"))),
	)
	emitTuning(f, s) // gen/profile.go
	return renderGo(s.Name+".go", f)
}

// emitForward writes func name(param typ) ret { return solver.name(param) }.
func emitForward(f *File, name, doc, param, typ, ret string) {
	var params, args []Code
	if param != "" {
		var ty Code = Id(typ)
		if typ == "func(newton.StepInfo)" {
			ty = Func().Params(Qual(newtonPath, "StepInfo"))
		}
		params = append(params, Id(param).Add(ty))
		args = append(args, Id(param))
	}
	f.Line()
	comment(f, doc)
	f.Func().Id(name).Params(params...).Id(ret).Block(
		Return(Qual(solverPath, name).Call(args...)),
	)
}

// emitGoTest returns <name>_test.go, the package's own tests.
func emitGoTest(s EmitSpec, header string, ex solveExample, tk trackExample) ([]byte, error) {
	f := newEmitFile(s.Package, header)
	sysCall := func() *Statement {
		if s.Benchmark != "" {
			fn := "BenchmarkSystem"
			if s.Prec.Complex {
				fn = "BenchmarkSystemComplex"
			}
			return Qual(familiesPath, fn).Call(Lit(s.Benchmark), Lit(s.Seed))
		}
		return Qual(polyPath, "Parse").Call(Id("Name"), Index().Byte().Parens(Id("systemText")),
			Qual(polyPath, "ParseOptions").Values(Dict{Id("Param"): Lit(s.Param)}))
	}
	fatal := func() *Statement {
		return If(Err().Op("!=").Nil()).Block(Id("t").Dot("Fatal").Call(Err()))
	}
	tParam := Id("t").Op("*").Qual("testing", "T")

	f.Comment("run sets the same random inputs into e and runs it.")
	f.Func().Id("run").Params(tParam, Id("e").Qual(backendPath, "Executor")).Block(
		Id("t").Dot("Helper").Call(),
		Id("in").Op(":=").Qual(backendPath, "RandomInputs").Call(Id("NumVars"), Id("Layout").Call(), Lit(1)),
		For(List(Id("v"), Id("x")).Op(":=").Range().Id("in")).Block(Id("e").Dot("SetInput").Call(Id("v"), Id("x"))),
		If(Err().Op(":=").Id("e").Dot("Run").Call(), Err().Op("!=").Nil()).Block(Id("t").Dot("Fatal").Call(Err())),
	)
	f.Line()
	f.Comment("TestPlan checks that the plan stages again with the emitted hash and sizes.")
	f.Func().Id("TestPlan").Params(tParam).Block(
		List(Id("p"), Err()).Op(":=").Id("Plan").Call(),
		fatal(),
		If(Id("p").Dot("ConvJobs").Call().Op("!=").Id("ConvJobs").Op("||").Id("p").Dot("AddJobs").Call().Op("!=").Id("AddJobs").
			Op("||").Id("p").Dot("NumVars").Op("!=").Id("NumVars").Op("||").Id("p").Dot("NumPolys").Op("!=").Id("NumPolys")).Block(
			Id("t").Dot("Fatalf").Call(Lit("plan: %d/%d jobs, %d vars, %d polys"), Id("p").Dot("ConvJobs").Call(),
				Id("p").Dot("AddJobs").Call(), Id("p").Dot("NumVars"), Id("p").Dot("NumPolys")),
		),
		If(Id("p").Dot("Hash").Call().Op("!=").Id("PlanHash")).Block(
			Id("t").Dot("Fatal").Call(Lit("plan hash differs")),
		),
	)
	f.Line()
	f.Comment("TestCPUMatchesRuntime compares the package's CPU path with cpu.New on")
	f.Comment("a plan staged directly from the system: same inputs, same checksum.")
	f.Func().Id("TestCPUMatchesRuntime").Params(tParam).Block(
		If(Qual("testing", "Short").Call()).Block(Id("t").Dot("Skip").Call(Lit("a full evaluation"))),
		List(Id("s"), Err()).Op(":=").Id("New").Call(Id("WithCPU").Call()),
		fatal(),
		Defer().Id("s").Dot("Close").Call(),
		If(Id("s").Dot("Backend").Call().Op("!=").Qual(solverPath, "CPU").Op("||").Id("s").Dot("FallbackReason").Call().Op("!=").Nil()).Block(
			Id("t").Dot("Fatalf").Call(Lit("WithCPU: backend %s, reason %v"), Id("s").Dot("Backend").Call(), Id("s").Dot("FallbackReason").Call()),
		),
		List(Id("sys"), Err()).Op(":=").Add(sysCall()),
		fatal(),
		List(Id("plan"), Err()).Op(":=").Qual(stagerPath, "Stage").Call(Id("sys"), Id("Degree")),
		fatal(),
		List(Id("ref"), Err()).Op(":=").Qual(cpuPath, "New").Call(Id("plan"), Id("prec"), Lit(0)),
		fatal(),
		Id("run").Call(Id("t"), Id("s").Dot("Executor").Call()),
		Id("run").Call(Id("t"), Id("ref")),
		List(Id("got"), Id("want")).Op(":=").Id("s").Dot("Checksum").Call().Op(",").
			Qual(backendPath, "Checksum").Call(Id("ref"), Id("plan").Dot("NumPolys"), Id("plan").Dot("NumVars")),
		If(Id("got").Op("!=").Id("want")).Block(Id("t").Dot("Fatalf").Call(Lit("checksum %s, cpu.New %s"), Id("got"), Id("want"))),
		Id("t").Dot("Logf").Call(Lit("checksum %s"), Id("got")),
	)
	f.Line()
	f.Comment("TestGPUMatchesCPU compares the GPU with the CPU bit for bit where the GPU")
	f.Comment("can be used (build tag cuda, a fatbin, a device); MDGEN_FATBIN names a")
	f.Comment("fatbin file to use instead of the embedded one, and MDGEN_MODULE_TABLES=1")
	f.Comment("makes the executor use (and check) the job tables baked into it. Elsewhere")
	f.Comment("it is skipped with the reason.")
	f.Func().Id("TestGPUMatchesCPU").Params(tParam).Block(
		List(Id("g"), Err()).Op(":=").Id("New").Call(Id("gpuOptions").Call().Op("...")),
		fatal(),
		Defer().Id("g").Dot("Close").Call(),
		If(Id("g").Dot("Backend").Call().Op("!=").Qual(solverPath, "GPU")).Block(
			Id("t").Dot("Skipf").Call(Lit("not on the GPU: %v"), Id("g").Dot("FallbackReason").Call()),
		),
		List(Id("c"), Err()).Op(":=").Id("New").Call(Id("WithCPU").Call()),
		fatal(),
		Defer().Id("c").Dot("Close").Call(),
		Id("run").Call(Id("t"), Id("g").Dot("Executor").Call()),
		Id("run").Call(Id("t"), Id("c").Dot("Executor").Call()),
		For(Id("p").Op(":=").Lit(0), Id("p").Op("<").Id("NumPolys"), Id("p").Op("++")).Block(
			Id("same").Call(Id("t"), Qual("fmt", "Sprintf").Call(Lit("value %d"), Id("p")), Id("g").Dot("Value").Call(Id("p")), Id("c").Dot("Value").Call(Id("p"))),
			For(Id("v").Op(":=").Lit(0), Id("v").Op("<").Id("NumVars"), Id("v").Op("++")).Block(
				Id("same").Call(Id("t"), Qual("fmt", "Sprintf").Call(Lit("d p%d / d x%d"), Id("p"), Id("v")),
					Id("g").Dot("Deriv").Call(Id("p"), Id("v")), Id("c").Dot("Deriv").Call(Id("p"), Id("v"))),
			),
		),
		Id("t").Dot("Logf").Call(Lit("GPU and CPU agree: checksum %s"), Id("g").Dot("Checksum").Call()),
	)
	f.Line()
	f.Comment("gpuOptions returns the options of the GPU tests: MDGEN_FATBIN names a fatbin")
	f.Comment("file to use instead of the embedded one, MDGEN_MODULE_TABLES=1 makes the")
	f.Comment("executor use (and check) the job tables baked into it.")
	f.Func().Id("gpuOptions").Params().Index().Id("Option").Block(
		Var().Id("opts").Index().Id("Option"),
		If(Id("p").Op(":=").Qual("os", "Getenv").Call(Lit("MDGEN_FATBIN")), Id("p").Op("!=").Lit("")).Block(
			Id("opts").Op("=").Append(Id("opts"), Id("WithFatbin").Call(Id("p"))),
		),
		If(Qual("os", "Getenv").Call(Lit("MDGEN_MODULE_TABLES")).Op("==").Lit("1")).Block(
			Id("opts").Op("=").Append(Id("opts"), Id("WithModuleTables").Call(True())),
		),
		Return(Id("opts")),
	)
	f.Line()
	f.Comment("same fails at the first double where the GPU's series differs from the CPU's.")
	f.Func().Id("same").Params(tParam, Id("what").String(), List(Id("gpu"), Id("cpu")).Index().Float64()).Block(
		Id("t").Dot("Helper").Call(),
		For(Id("i").Op(":=").Range().Id("cpu")).Block(
			If(Qual("math", "Float64bits").Call(Id("gpu").Index(Id("i"))).Op("!=").Qual("math", "Float64bits").Call(Id("cpu").Index(Id("i")))).Block(
				Id("w").Op(":=").Id("Layout").Call().Dot("W").Call(),
				Id("t").Dot("Fatalf").Call(Lit("%s: coefficient %d, double %d: GPU %v, CPU %v"), Id("what"),
					Id("i").Op("/").Id("w"), Id("i").Op("%").Id("w"), Id("gpu").Index(Id("i")), Id("cpu").Index(Id("i"))),
			),
		),
	)
	f.Line()
	emitExample(f, s, ex)
	if ex.ok || ex.long {
		var skip []Code
		f.Line()
		f.Comment("TestSolveMatchesNewton checks that Solve gives the bits of runtime/newton run")
		f.Comment("directly on the system (what mdgen solve runs), from every start solution of")
		if ex.long {
			f.Comment("the system file (none with -short: Newton at this size takes long).")
			skip = append(skip, If(Qual("testing", "Short").Call()).Block(Id("t").Dot("Skip").Call(Lit("Newton at this size takes long"))))
		} else {
			f.Comment("the system file (the first one with -short).")
		}
		f.Func().Id("TestSolveMatchesNewton").Params(tParam).Block(append(skip,
			List(Id("s"), Err()).Op(":=").Id("New").Call(Id("WithCPU").Call()),
			fatal(),
			Defer().Id("s").Dot("Close").Call(),
			List(Id("starts"), Err()).Op(":=").Id("Starts").Call(),
			fatal(),
			List(Id("sys"), Err()).Op(":=").Id("System").Call(),
			fatal(),
			List(Id("ref"), Err()).Op(":=").Qual(newtonPath, "New").Call(Id("sys"), Qual(newtonPath, "Options").Values(Dict{
				Id("Prec"): Id("prec"), Id("Degree"): Id("Degree"),
			})),
			fatal(),
			Defer().Id("ref").Dot("Close").Call(),
			For(List(Id("k"), Id("start")).Op(":=").Range().Id("starts")).Block(
				If(Qual("testing", "Short").Call().Op("&&").Id("k").Op(">").Lit(0)).Block(Break()),
				List(Id("got"), Id("gerr")).Op(":=").Id("s").Dot("Solve").Call(Id("start")),
				List(Id("want"), Err()).Op(":=").Id("ref").Dot("Solve").Call(Id("start")),
				fatal(),
				If(Id("got").Op("==").Nil()).Block(
					Id("t").Dot("Fatalf").Call(Lit("start %d: %v"), Id("k").Op("+").Lit(1), Id("gerr")),
				),
				If(Err().Op(":=").Qual(solverPath, "DiffResults").Call(Id("got").Dot("Result"), Id("want")), Err().Op("!=").Nil()).Block(
					Id("t").Dot("Fatalf").Call(Lit("start %d: %v"), Id("k").Op("+").Lit(1), Err()),
				),
			),
		)...)
		emitGPUSolveTest(f, tParam, fatal)
	}
	if tk.homotopy != "" {
		emitTrackTests(f, tk, tParam, fatal)
	}
	return renderGo(s.Name+"_test.go", f)
}

// emitExample writes the package's Example: Newton from the first start
// solution with the output Emit computed, or, when the system cannot be
// solved from a listed start, the evaluation (compiled, not run: it has no
// output to check).
func emitExample(f *File, s EmitSpec, ex solveExample) {
	logFatal := func() *Statement {
		return If(Err().Op("!=").Nil()).Block(Qual("log", "Fatal").Call(Err()))
	}
	if !ex.ok && !ex.long {
		why := "(no Newton example: " + strings.TrimSuffix(strings.ReplaceAll(ex.why, "\n", " "), ".") + ")."
		f.Comment("Example evaluates the system and its Jacobian at random series on the CPU")
		if ex.output == "" {
			f.Comment("and prints the checksum of the outputs. It has no output to check (the")
			f.Comment("evaluation takes long), so go test compiles it without running it")
			f.Comment(why)
		} else {
			f.Comment("and prints the checksum of the outputs, the same on every back end")
			f.Comment(why)
		}
		out := []Code{}
		if ex.output != "" {
			out = append(out, Comment("Output:"), Comment(strings.TrimSuffix(ex.output, "\n")))
		}
		stmts := []Code{
			List(Id("s"), Err()).Op(":=").Id("New").Call(Id("WithCPU").Call()),
			logFatal(),
			Defer().Id("s").Dot("Close").Call(),
			If(Err().Op(":=").Id("s").Dot("SetInputs").Call(Qual(backendPath, "RandomInputs").Call(Id("NumVars"), Id("Layout").Call(), Lit(1))),
				Err().Op("!=").Nil()).Block(Qual("log", "Fatal").Call(Err())),
			If(Err().Op(":=").Id("s").Dot("Run").Call(), Err().Op("!=").Nil()).Block(Qual("log", "Fatal").Call(Err())),
			Qual("fmt", "Println").Call(Lit("checksum"), Id("s").Dot("Checksum").Call()),
		}
		f.Func().Id("Example").Params().Block(append(stmts, out...)...)
		return
	}
	f.Comment("Example computes the series of the solution path from the first start")
	f.Comment("solution of the system file, on the CPU (the GPU gives the same bits).")
	if ex.long {
		f.Comment("It has no output to check (Newton at this size takes long), so go test")
		f.Comment("compiles it without running it.")
	}
	body := []Code{
		List(Id("s"), Err()).Op(":=").Id("New").Call(Id("WithCPU").Call()),
		logFatal(),
		Defer().Id("s").Dot("Close").Call(),
		List(Id("starts"), Err()).Op(":=").Id("Starts").Call(),
		logFatal(),
		List(Id("res"), Err()).Op(":=").Id("s").Dot("Solve").Call(Id("starts").Index(Lit(0))),
		logFatal(),
		Qual("fmt", "Printf").Call(Lit(exampleSummary), Id("res").Dot("Steps"), Id("res").Dot("Residual"), Id("res").Dot("Cond")),
		For(Id("k").Op(":=").Lit(0), Id("k").Op("<=").Min(Id("Degree"), Lit(exampleTerms-1)), Id("k").Op("++")).Block(
			List(Id("re"), Id("im")).Op(":=").Id("res").Dot("Text").Call(Lit(0), Id("k")),
			Qual("fmt", "Printf").Call(Lit(exampleCoef), Id("res").Dot("Vars").Index(Lit(0)), Id("k"), Id("re"), Id("im")),
		),
	}
	if ex.ok {
		body = append(body, Comment("Output:"))
		for _, line := range strings.Split(strings.TrimSuffix(ex.output, "\n"), "\n") {
			body = append(body, Comment(line))
		}
	}
	f.Func().Id("Example").Params().Block(body...)
}

// emitGPUSolveTest writes TestGPUSolveMatchesCPU: Newton from the first
// start solution on the GPU, with the linear algebra on the device (the
// package's fatbin carries its kernels), against the CPU, bit for bit.
func emitGPUSolveTest(f *File, tParam *Statement, fatal func() *Statement) {
	f.Line()
	f.Comment("TestGPUSolveMatchesCPU solves from the first start solution on the GPU and")
	f.Comment("on the CPU and compares the bits (the series, residual, condition number,")
	f.Comment("steps) where the GPU can be used (see gpuOptions); there the linear algebra")
	f.Comment("must run on the device too, with the Newton kernels of the package's fatbin.")
	f.Comment("The emitted degree runs twice (the second Solve reuses the back end), then a")
	f.Comment("lower degree and root refinement (degree 0), which stage plans of their own.")
	f.Comment("Elsewhere it is skipped with the reason.")
	f.Func().Id("TestGPUSolveMatchesCPU").Params(tParam).Block(
		List(Id("g"), Err()).Op(":=").Id("New").Call(Id("gpuOptions").Call().Op("...")),
		fatal(),
		Defer().Id("g").Dot("Close").Call(),
		If(Id("g").Dot("Backend").Call().Op("!=").Qual(solverPath, "GPU")).Block(
			Id("t").Dot("Skipf").Call(Lit("not on the GPU: %v"), Id("g").Dot("FallbackReason").Call()),
		),
		List(Id("starts"), Err()).Op(":=").Id("Starts").Call(),
		fatal(),
		List(Id("c"), Err()).Op(":=").Id("New").Call(Id("WithCPU").Call()),
		fatal(),
		Defer().Id("c").Dot("Close").Call(),
		For(List(Id("_"), Id("d")).Op(":=").Range().Index().Int().Values(Id("Degree"), Id("Degree"), Id("Degree").Op("/").Lit(2), Lit(0))).Block(
			List(Id("got"), Err()).Op(":=").Id("g").Dot("Solve").Call(Id("starts").Index(Lit(0)), Id("WithDegree").Call(Id("d"))),
			fatal(),
			If(Id("got").Dot("LinearAlgebra").Op("!=").Qual(solverPath, "GPU")).Block(
				Id("t").Dot("Fatalf").Call(Lit("degree %d: the linear algebra ran on the %s: %v"), Id("d"), Id("got").Dot("LinearAlgebra"), Id("got").Dot("LinearAlgebraReason")),
			),
			List(Id("want"), Err()).Op(":=").Id("c").Dot("Solve").Call(Id("starts").Index(Lit(0)), Id("WithDegree").Call(Id("d"))),
			fatal(),
			If(Err().Op(":=").Qual(solverPath, "DiffResults").Call(Id("got").Dot("Result"), Id("want").Dot("Result")), Err().Op("!=").Nil()).Block(
				Id("t").Dot("Fatalf").Call(Lit("degree %d: GPU against CPU: %v"), Id("d"), Err()),
			),
			Id("t").Dot("Logf").Call(Lit("degree %d: GPU (evaluation and linear algebra) and CPU agree: %d steps, residual %.1e, condition %.1e; stages on the GPU %v, on the CPU %v"),
				Id("d"), Id("got").Dot("Steps"), Id("got").Dot("Residual"), Id("got").Dot("Cond"), Id("got").Dot("Times"), Id("want").Dot("Times")),
		),
	)
}
