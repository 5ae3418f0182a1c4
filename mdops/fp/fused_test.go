package fp

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// TestNoFusableProducts: in the packages whose float64s are results or
// decide them (the arithmetic, the staging and scaling of systems, Newton,
// the tracker, the back ends), no float product is added to or
// subtracted from anything without an explicit float64 conversion: x*y +
// z, z - x*y, z += x*y. The Go spec lets a compiler fuse those into an
// FMA, rounded once, and amd64 with GOAMD64=v3, arm64 and others do, so a
// run's bits would depend on the platform (and no device could follow
// them); float64(x*y) rounds the product first everywhere. The generated
// arithmetic is written so by gen; this keeps the hand-written code so.
func TestNoFusableProducts(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the module's packages")
	}
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo | packages.NeedFiles, Dir: "../.."}
	pkgs, err := packages.Load(cfg, "./mdops/...", "./stager/...", "./runtime/...")
	if err != nil {
		t.Fatal(err)
	}
	isFloat := func(tv types.Type) bool {
		b, ok := tv.(*types.Basic)
		if !ok && tv != nil {
			b, ok = tv.Underlying().(*types.Basic)
		}
		return ok && b.Info()&types.IsFloat != 0
	}
	checked := 0
	for _, p := range pkgs {
		for _, e := range p.Errors {
			t.Errorf("%s: %v", p.PkgPath, e)
		}
		info := p.TypesInfo
		// product reports whether e is a float product computed at run
		// time (constants fold exactly).
		product := func(e ast.Expr) bool {
			b, ok := ast.Unparen(e).(*ast.BinaryExpr)
			return ok && b.Op == token.MUL && isFloat(info.TypeOf(b)) && info.Types[b].Value == nil
		}
		for _, f := range p.Syntax {
			name := p.Fset.Position(f.Pos()).Filename
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			checked++
			ast.Inspect(f, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.BinaryExpr:
					if (x.Op == token.ADD || x.Op == token.SUB) && isFloat(info.TypeOf(x)) && (product(x.X) || product(x.Y)) {
						t.Errorf("%s: a float product added or subtracted unrounded: write float64(x*y)", p.Fset.Position(x.Pos()))
					}
				case *ast.AssignStmt:
					if (x.Tok == token.ADD_ASSIGN || x.Tok == token.SUB_ASSIGN) && len(x.Rhs) == 1 && product(x.Rhs[0]) && isFloat(info.TypeOf(x.Lhs[0])) {
						t.Errorf("%s: a float product accumulated unrounded: write += float64(x*y)", p.Fset.Position(x.Pos()))
					}
				}
				return true
			})
		}
	}
	if checked < 50 {
		t.Fatalf("only %d files checked: the packages did not load", checked)
	}
}
