package tune

import (
	"fmt"
	"sync"

	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/gpu"
	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
	"github.com/mdgen/mdgen/stager"
)

// installed is the profile the process's GPU executors follow (Install).
var (
	installMu sync.Mutex
	installed *Profile
)

// Install makes the GPU executors of this process (runtime/gpu, when
// their Options.Shape is nil) and its GPU Newton back ends (gpu.NewtonShape)
// take the launch shapes of profile p on the device they run on: its entries are added to those installed before (an
// entry of the same device and key replaces the earlier one). A nil or
// empty profile installs nothing.
func Install(p *Profile) {
	if p.Entries() == 0 {
		return
	}
	installMu.Lock()
	defer installMu.Unlock()
	if installed == nil {
		installed = New()
	}
	for _, g := range p.GPUs {
		for _, e := range g.Entries {
			installed.Put(g.Device, g.MaxShared, g.Tuned, e)
		}
		for _, e := range g.Newton {
			installed.PutNewton(g.Device, g.MaxShared, g.Tuned, e)
		}
	}
	snapshot := installed.clone()
	gpu.DeviceShape = func(info cudadev.Info, plan *stager.Plan) gpuabi.ShapeFunc {
		g := snapshot.For(DeviceOf(info))
		if g == nil {
			return nil
		}
		return g.Shapes(plan.ConvJobs(), len(plan.ConvLayers))
	}
	gpu.NewtonShape = func(info cudadev.Info, p mdops.Prec, vars int) *gpuabi.LAShape {
		return snapshot.For(DeviceOf(info)).NewtonShape(p, vars)
	}
}

// Uninstall returns the process's GPU executors to gpuabi.LaunchShape.
func Uninstall() {
	installMu.Lock()
	defer installMu.Unlock()
	installed = nil
	gpu.DeviceShape = nil
	gpu.NewtonShape = nil
}

// Installed returns a copy of the installed profile (nil when none).
func Installed() *Profile {
	installMu.Lock()
	defer installMu.Unlock()
	if installed == nil {
		return nil
	}
	return installed.clone()
}

// InstallJSON parses the profile text (an emitted package's: name says
// whose) and installs it; a profile that does not parse, or is of another
// version, installs nothing and the error says why (the executors keep
// gpuabi.LaunchShape).
func InstallJSON(name, text string) error {
	p, err := Parse([]byte(text))
	if err != nil {
		return fmt.Errorf("%s: the tuning profile it was emitted with: %w; using the fitted launch shapes", name, err)
	}
	Install(p)
	return nil
}
