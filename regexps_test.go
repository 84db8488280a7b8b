package browseragent

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The packages compile their regexps on first use (sync.OnceValue), so that
// a process does not pay at start-up for patterns it never runs. A broken
// pattern would then panic only when its rule first runs; this test compiles
// every constant pattern given to regexp.MustCompile in the tree, so it
// fails here instead.
func TestEveryRegexpCompiles(t *testing.T) {
	fset := token.NewFileSet()
	n := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "bench" || strings.HasPrefix(d.Name(), ".")) && path != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(node ast.Node) bool {
			call, ok := node.(*ast.CallExpr)
			if !ok || len(call.Args) != 1 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "MustCompile" {
				return true
			}
			if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "regexp" {
				return true
			}
			expr, ok := constantString(call.Args[0])
			if !ok {
				return true // built at run time: its own tests cover it
			}
			n++
			if _, err := regexp.Compile(expr); err != nil {
				t.Errorf("%s: %v", fset.Position(call.Pos()), err)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 50 {
		t.Errorf("found only %d constant patterns: the walk misses the tree", n)
	}
}

// constantString evaluates a string literal or a + of them.
func constantString(e ast.Expr) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(e.Value)
		return s, err == nil
	case *ast.BinaryExpr:
		if e.Op != token.ADD {
			return "", false
		}
		a, ok1 := constantString(e.X)
		b, ok2 := constantString(e.Y)
		return a + b, ok1 && ok2
	case *ast.ParenExpr:
		return constantString(e.X)
	}
	return "", false
}
