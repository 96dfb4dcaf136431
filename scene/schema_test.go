package scene

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluicephysics/sluice/params"
)

// validate is an independent checker for the JSON Schema subset the generator emits: type,
// properties, additionalProperties false, required, minimum/maximum (exclusive too), items,
// minItems/maxItems.
func validate(schema map[string]any, v any, path string) error {
	switch schema["type"] {
	case "object":
		o, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: not an object", path)
		}
		props, _ := schema["properties"].(map[string]any)
		for k, val := range o {
			ps, ok := props[k].(map[string]any)
			if !ok {
				return fmt.Errorf("%s.%s: additional property", path, k)
			}
			if err := validate(ps, val, path+"."+k); err != nil {
				return err
			}
		}
		req, _ := schema["required"].([]any)
		for _, r := range req {
			if _, ok := o[r.(string)]; !ok {
				return fmt.Errorf("%s.%s: required", path, r)
			}
		}
	case "array":
		a, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s: not an array", path)
		}
		if n, ok := schema["minItems"].(float64); ok && float64(len(a)) < n {
			return fmt.Errorf("%s: too few items", path)
		}
		if n, ok := schema["maxItems"].(float64); ok && float64(len(a)) > n {
			return fmt.Errorf("%s: too many items", path)
		}
		items, _ := schema["items"].(map[string]any)
		for i, e := range a {
			if err := validate(items, e, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case "number", "integer":
		x, ok := v.(float64)
		if !ok || (schema["type"] == "integer" && x != float64(int64(x))) {
			return fmt.Errorf("%s: not a %s", path, schema["type"])
		}
		if m, ok := schema["minimum"].(float64); ok && x < m {
			return fmt.Errorf("%s: below minimum", path)
		}
		if m, ok := schema["exclusiveMinimum"].(float64); ok && x <= m {
			return fmt.Errorf("%s: not above exclusiveMinimum", path)
		}
		if m, ok := schema["maximum"].(float64); ok && x > m {
			return fmt.Errorf("%s: above maximum", path)
		}
		if m, ok := schema["exclusiveMaximum"].(float64); ok && x >= m {
			return fmt.Errorf("%s: not below exclusiveMaximum", path)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("%s: not a boolean", path)
		}
	case "string":
		if _, ok := v.(string); !ok {
			return fmt.Errorf("%s: not a string", path)
		}
	}
	return nil
}

func loadSchema(t *testing.T) map[string]any {
	raw, err := json.Marshal(params.Schema(Scene{}, "sluice scene"))
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSchemaAcceptsExampleScenes(t *testing.T) {
	schema := loadSchema(t)
	files, _ := filepath.Glob("../examples/scenes/*.json")
	goo, _ := filepath.Glob("../examples/goo/scenes/*.json")
	buoy, _ := filepath.Glob("../examples/buoyancy/scenes/*.json")
	files = append(append(files, goo...), buoy...)
	for _, f := range append(files, "") {
		var data []byte
		if f == "" {
			data = []byte(good)
		} else {
			data, _ = os.ReadFile(f)
		}
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatal(err)
		}
		if err := validate(schema, v, ""); err != nil {
			t.Errorf("%s: schema rejects a valid scene: %v", f, err)
		}
	}
}

func TestSchemaRejectsWhatTheDecoderRejects(t *testing.T) {
	// Malformed scenes whose error is a single field's type, range, unknown key or missing key
	// are rejected by the schema too (cross-field rules such as min < max are the decoder's).
	schema := loadSchema(t)
	for _, c := range []struct{ find, replace string }{
		{`"particleRadius": 0.05`, `"particleRadius": -0.05`},
		{`"particleRadius": 0.05`, `"particleRadius": 0`},
		{`"density": 1000`, `"density": 0`},
		{`"duration": 0.1`, `"duration": "long"`},
		{`"duration": 0.1`, `"duration": 0.1, "imteStepSize": 1`},
		{`"max": [1,1,1]`, `"max": [1,1]`},
		{`"particleRadius": 0.05`, `"particleRadius": 0.05, "minIterations": 2.5`},
		{`"duration": 0.1`, `"duration": 0.1, "fps": 0`},
		{`"min": [0,0,0], "max": [0.5`, `"max": [0.5`},
		{`"density": 1000`, `"preset": 3`},
		{`"fluids": [{`, `"fluidMeshes": [{"name": "m"}], "fluids": [{`},
	} {
		bad := strings.Replace(good, c.find, c.replace, 1)
		if _, err := Parse([]byte(bad)); err == nil {
			t.Fatalf("decoder accepts %q", c.replace)
		}
		var v any
		json.Unmarshal([]byte(bad), &v)
		if err := validate(schema, v, ""); err == nil {
			t.Errorf("schema accepts %q", c.replace)
		}
	}
}
