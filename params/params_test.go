package params

import (
	"strings"
	"testing"
)

type inner struct {
	K float64 `json:"k" unit:"Pa" default:"5" range:"[0,10]" doc:"stiffness"`
}

type outer struct {
	Name  string  `json:"name" required:"true" doc:"name"`
	R     float64 `json:"r" unit:"m" default:"0.5" range:"(0,1]" doc:"radius"`
	N     int     `json:"n" default:"3" range:"[1,9]" doc:"count"`
	In    inner   `json:"in"`
	Items []inner `json:"items"`
}

func TestDefaultsDecodeValidate(t *testing.T) {
	var o outer
	Defaults(&o)
	if o.R != 0.5 || o.N != 3 || o.In.K != 5 {
		t.Fatalf("defaults %+v", o)
	}
	if err := Decode([]byte(`{"name":"a","items":[{},{"k":2}]}`), &o, ""); err != nil {
		t.Fatal(err)
	}
	if len(o.Items) != 2 || o.Items[0].K != 5 || o.Items[1].K != 2 {
		t.Fatalf("slice elements %+v: defaults must apply per element", o.Items)
	}
	o.Items[1].K = 11
	err := Validate(&o, "")
	if err == nil || err.Error() != "items[1].k: 11 Pa is above the maximum 10 (allowed range [0,10])" {
		t.Fatalf("validate: %v", err)
	}
	o.Items[1].K = 1
	o.R = 0
	if err := Validate(&o, "x"); err == nil || !strings.HasPrefix(err.Error(), "x.r: 0 m must be greater than 0") {
		t.Fatalf("validate: %v", err)
	}
}

func TestDescribeListsDeclarations(t *testing.T) {
	infos := Describe(outer{})
	if len(infos) != 5 || infos[1].Name != "r" || infos[1].Unit != "m" || infos[1].Range != "(0,1]" || !infos[0].Required {
		t.Fatalf("describe %+v", infos)
	}
}

type place struct {
	S float64 `json:"s" default:"1" range:"(0,10]" doc:"scale"`
}

type placed struct {
	Name string `json:"name" doc:"name"`
	place
}

func TestEmbeddedGroupsAreFlattened(t *testing.T) {
	// A parameter group declared once and embedded appears as plain keys of the embedding
	// struct: decoded, defaulted, validated and described there.
	var p placed
	Defaults(&p)
	if p.S != 1 {
		t.Fatalf("default not applied through the embedding: %+v", p)
	}
	if err := Decode([]byte(`{"name": "a", "s": 20}`), &p, "x"); err != nil {
		t.Fatal(err)
	}
	if err := Validate(&p, "x"); err == nil || !strings.HasPrefix(err.Error(), "x.s: 20 is above the maximum 10") {
		t.Fatalf("validate: %v", err)
	}
	if err := Decode([]byte(`{"place": {}}`), &p, "x"); err == nil {
		t.Fatal("the embedded struct's Go name accepted as a key")
	}
	if infos := Describe(placed{}); len(infos) != 2 || infos[1].Name != "s" {
		t.Fatalf("describe %+v", infos)
	}
}
