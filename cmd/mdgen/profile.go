package main

// The -profile flag of emit, solve and bench: the tuning profile of the
// kernels' launch shapes (package runtime/tune, written by mdgen tune).

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
	"github.com/mdgen/mdgen/runtime/tune"
)

// profileFlag registers -profile on fs.
func profileFlag(fs *flag.FlagSet) *string {
	return fs.String("profile", "", "tuning profile of the kernels' launch shapes (written by mdgen tune; default: "+
		"os.UserConfigDir()/mdgen/tune.json when it exists; none: gpuabi.LaunchShape's fitted model)")
}

// loadProfile reads the tuning profile that -profile names (name), or the
// default one when it exists, and says on stderr which it uses. A named
// file that does not exist is an error; a profile that cannot be used (of
// another layout version or kernels, corrupt) is a warning, and nil: the
// fitted model. "none" and no default profile give nil quietly.
func loadProfile(name, cmd string, stderr io.Writer) (*tune.Profile, error) {
	if name == "none" {
		return nil, nil
	}
	path, explicit := name, name != ""
	if !explicit {
		var err error
		if path, err = tune.DefaultPath(); err != nil {
			return nil, nil
		}
		if _, err := os.Stat(path); err != nil {
			return nil, nil
		}
	}
	p, err := tune.Read(path)
	switch {
	case explicit && errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("%s: -profile: %w", cmd, err)
	case err != nil:
		fmt.Fprintf(stderr, "mdgen: warning: %s: %v; using the fitted launch shapes (gpuabi.LaunchShape)\n", cmd, err)
		return nil, nil
	}
	how := "tuning profile"
	if !explicit {
		how = "default tuning profile"
	}
	var devs []string
	for _, d := range p.Devices() {
		devs = append(devs, d.String())
	}
	fmt.Fprintf(stderr, "mdgen: %s: %s %s (%d entries; %s)\n", cmd, how, path, p.Entries(), strings.Join(devs, ", "))
	return p, nil
}

// installProfile loads the profile (loadProfile) and installs it for the
// process's GPU executors (tune.Install).
func installProfile(name, cmd string, stderr io.Writer) error {
	p, err := loadProfile(name, cmd, stderr)
	if err != nil {
		return err
	}
	tune.Install(p)
	return nil
}

// emitTuning returns the part of the profile that an emitted package of
// precision prec carries (runtime/tune JSON; nil: none).
func emitTuning(name string, prec mdops.Prec, stderr io.Writer) ([]byte, error) {
	p, err := loadProfile(name, "emit", stderr)
	if err != nil || p == nil {
		return nil, err
	}
	sub := p.Subset(prec)
	if sub.Entries() == 0 {
		fmt.Fprintf(stderr, "mdgen: emit: the tuning profile has no entries for %s data: the package keeps the fitted launch shapes\n", prec)
		return nil, nil
	}
	fmt.Fprintf(stderr, "mdgen: emit: the package carries %d tuned launch shapes of %s data\n", sub.Entries(), prec)
	return sub.Marshal()
}

// noteProfileDevice warns when an installed tuning profile has no entries
// for the device: its executors launch with the fitted model's shapes.
func noteProfileDevice(info cudadev.Info, cmd string, stderr io.Writer) {
	p := tune.Installed()
	if p == nil {
		return
	}
	d := tune.DeviceOf(info)
	if g := p.For(d); g == nil {
		var devs []string
		for _, o := range p.Devices() {
			devs = append(devs, o.String())
		}
		fmt.Fprintf(stderr, "mdgen: warning: %s: the tuning profile has no entries for %s (it has %s); using the fitted launch shapes\n", cmd, d, strings.Join(devs, ", "))
	} else {
		fmt.Fprintf(stderr, "mdgen: %s: %d tuned launch shapes of the evaluation and %d of the Newton linear algebra for %s\n", cmd, len(g.Entries), len(g.Newton), d)
	}
}
