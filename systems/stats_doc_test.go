package systems_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestStatsKeysAreDocumented: every JSON key of the per-step statistics (StepStats and the
// structs it holds) has a row in docs/stats.md, so a stat cannot be added without saying what
// it means.
func TestStatsKeysAreDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/stats.md")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"StepStats": true, "BodyStats": true, "RigidStats": true, "Removal": true, "ReducedStats": true, "WindStats": true, "FlipStats": true, "DiffuseStats": true}
	fset := token.NewFileSet()
	found := 0
	for _, file := range []string{"stats.go", "rigid.go", "flip.go"} {
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok || !want[ts.Name.Name] {
				return true
			}
			found++
			for _, fld := range ts.Type.(*ast.StructType).Fields.List {
				if fld.Tag == nil {
					continue
				}
				tag := reflect.StructTag(strings.Trim(fld.Tag.Value, "`")).Get("json")
				key, _, _ := strings.Cut(tag, ",")
				if key == "" || key == "-" {
					continue
				}
				if !strings.Contains(string(doc), "`"+key+"`") {
					t.Errorf("%s: the stats key %q has no row in docs/stats.md", ts.Name.Name, key)
				}
			}
			return false
		})
	}
	if found != len(want) {
		t.Fatalf("found %d of the %d stats structs: were they renamed or moved?", found, len(want))
	}
}
