package gen

import (
	"fmt"
	"go/token"
	"strings"
)

// The names of an emitted package, in one home: the base name of its
// files (-name, or the system file's name) and its package name (-pkg, or
// the folder's name) must give a package that builds on every platform.
// A file name's last '_'-separated element must not be a GOOS, a GOARCH
// or "test" (go build would then leave the file out on other platforms,
// or take it for a test); go:embed patterns and nvcc's command line take
// the name as it is, so it has no glob characters, blanks or a leading
// '-'; the package is no command (main) and no name the go command treats
// specially.

// knownOS and knownArch are the GOOS and GOARCH values (and reserved ones)
// that a file name suffix constrains, as go/build lists them.
var (
	knownOS   = strings.Fields("aix android darwin dragonfly freebsd hurd illumos ios js linux nacl netbsd openbsd plan9 solaris wasip1 windows zos")
	knownArch = strings.Fields("386 amd64 amd64p32 arm armbe arm64 arm64be loong64 mips mipsle mips64 mips64le mips64p32 mips64p32le " +
		"ppc ppc64 ppc64le riscv riscv64 s390 s390x sparc sparc64 wasm")
)

// constrainedSuffix returns the suffix ("_test", "_windows", "_arm64") of
// name that would make go build treat name+".go" as a test or keep it to
// one platform, or "".
func constrainedSuffix(name string) string {
	parts := strings.Split(name, "_")
	if len(parts) < 2 {
		return ""
	}
	last := parts[len(parts)-1]
	for _, known := range [][]string{{"test"}, knownOS, knownArch} {
		for _, k := range known {
			if last == k {
				return "_" + last
			}
		}
	}
	return ""
}

// CheckName returns an error unless name can be the base name of an
// emitted package's files (name.go, name_test.go, name.cu,
// fatbin/name.fatbin): ASCII letters, digits, '_', '-' and '.', starting
// with a letter or digit, and no suffix that constrains the build.
func CheckName(name string) error {
	if name == "" {
		return fmt.Errorf("an empty file name")
	}
	for i, r := range name {
		ok := r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || i > 0 && strings.ContainsRune("_-.", r))
		if !ok {
			return fmt.Errorf("%q is not a usable file name: use ASCII letters, digits, '_', '-' and '.', starting with a letter or digit", name)
		}
	}
	if suf := constrainedSuffix(name); suf != "" {
		return fmt.Errorf("%q is not a usable file name: go build would take %s.go for %s (use another name, e.g. %s_sys)",
			name, name, map[bool]string{true: "a test file", false: "a file of one platform only"}[suf == "_test"], name)
	}
	return nil
}

// CheckMain refuses package main for a folder that has no func main of
// its own (hasMain): the emitted package is a library (New, Solver)
// without one, so only a command's folder (a go:generate directive in
// package main) can take it.
func CheckMain(pkg string, hasMain bool) error {
	if pkg == "main" && !hasMain {
		return fmt.Errorf("the package cannot be main here: it is a library (New, Solver) without func main, and the folder has none; import it from a command, or emit into the command's folder")
	}
	return nil
}

// CheckPackage returns an error unless pkg can be the emitted package's
// name: an ASCII identifier that is no keyword, not "_" and no name the
// go command treats specially (documentation, a _test suffix). main is
// CheckMain's to decide.
func CheckPackage(pkg string) error {
	for _, r := range pkg {
		if r >= 128 {
			return fmt.Errorf("%q is not a usable package name: use ASCII letters, digits and '_'", pkg)
		}
	}
	switch {
	case !token.IsIdentifier(pkg) || token.IsKeyword(pkg) || pkg == "_":
		return fmt.Errorf("%q is not a valid package name (a Go identifier, no keyword)", pkg)
	case pkg == "documentation" || strings.HasSuffix(pkg, "_test"):
		return fmt.Errorf("%q is not a usable package name: the go command treats it specially", pkg)
	}
	return nil
}
