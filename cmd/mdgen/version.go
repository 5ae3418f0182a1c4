package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
)

// versionInfo is what `mdgen version` reports, from the build information
// the Go toolchain embeds (debug.ReadBuildInfo).
type versionInfo struct {
	Module    string `json:"module"`
	Version   string `json:"version"` // "(devel)" for a build in the repository; "" when unknown
	Go        string `json:"go"`
	Platform  string `json:"platform"`
	Revision  string `json:"vcs_revision,omitempty"`
	Time      string `json:"vcs_time,omitempty"`
	Modified  bool   `json:"vcs_modified,omitempty"`
	GOAMD64   string `json:"goamd64,omitempty"`
	BuildTags string `json:"tags,omitempty"`
}

func readVersion() versionInfo {
	v := versionInfo{Module: "github.com/mdgen/mdgen", Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	if bi.Main.Path != "" {
		v.Module = bi.Main.Path
	}
	v.Version = bi.Main.Version
	if bi.GoVersion != "" {
		v.Go = bi.GoVersion
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		case "GOAMD64":
			v.GOAMD64 = s.Value
		case "-tags":
			v.BuildTags = s.Value
		}
	}
	return v
}

// String is the one-line form: "mdgen (devel) github.com/mdgen/mdgen,
// go1.26.8 linux/amd64, vcs 153ed34 2026-11-21T10:00:00Z (modified)".
func (v versionInfo) String() string {
	ver := v.Version
	if ver == "" {
		ver = "(unknown version)"
	}
	parts := []string{fmt.Sprintf("mdgen %s %s", ver, v.Module), v.Go + " " + v.Platform}
	if v.GOAMD64 != "" {
		parts[1] += " GOAMD64=" + v.GOAMD64
	}
	if v.BuildTags != "" {
		parts = append(parts, "tags "+v.BuildTags)
	}
	if v.Revision != "" {
		rev := "vcs " + v.Revision
		if v.Time != "" {
			rev += " " + v.Time
		}
		if v.Modified {
			rev += " (modified)"
		}
		parts = append(parts, rev)
	}
	return strings.Join(parts, ", ")
}

func runVersion(args []string, out, stderr io.Writer) error {
	fs := newFlagSet("version", "usage: mdgen version [-json]\n\nPrints the module version, the Go version and the VCS revision mdgen was built from."+"\n", stderr)
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := parseFlags(fs, args, out); err != nil {
		return err
	}
	if err := checkArgs(fs, 0, "no arguments"); err != nil {
		return err
	}
	v := readVersion()
	if *asJSON {
		return writeJSON(out, v)
	}
	_, err := fmt.Fprintln(out, v)
	return err
}
