package gen

import (
	"strings"

	. "github.com/dave/jennifer/jen"
)

const tunePath = "github.com/mdgen/mdgen/runtime/tune"

// emitTuning writes the tuning profile an emitted package carries
// (EmitSpec.Tuning) and the variable whose initialization installs it
// (tune.InstallJSON: the package's GPU executors then launch with its
// shapes on the GPUs it names); nothing without a profile, and the package
// keeps gpuabi.LaunchShape's fitted model.
func emitTuning(f *File, s EmitSpec) {
	if len(s.Tuning) == 0 {
		return
	}
	text := strings.TrimSpace(string(s.Tuning))
	lit := Lit(text)
	if !strings.Contains(text, "`") {
		lit = Op("`" + text + "`")
	}
	f.Line()
	f.Comment("tuningProfile is the part of the tuning profile mdgen emit read (runtime/tune's")
	f.Comment("JSON, written by mdgen tune) for this package's precision and kind of data: the")
	f.Comment("launch shapes of its kernels on the GPUs it names. Other GPUs get the fitted")
	f.Comment("model's (gpuabi.LaunchShape). The bits are the same with any shape.")
	f.Const().Id("tuningProfile").Op("=").Add(lit)
	f.Line()
	f.Comment("TuningErr is nil, or why the package launches with the fitted model's shapes")
	f.Comment("(a profile this runtime/tune cannot read: emit the package again). Its")
	f.Comment("initialization installs the profile for the program's GPU executors (tune.Install).")
	f.Var().Id("TuningErr").Op("=").Qual(tunePath, "InstallJSON").Call(Id("Name"), Id("tuningProfile"))
}
