package params

import (
	"encoding/json"
	"reflect"
	"strings"
)

// Schema returns a JSON Schema (draft 2020-12) for the struct type of v, generated from the
// same declarations that drive decoding and validation: property names, types, defaults,
// ranges (minimum/maximum, exclusive for open bounds), descriptions with units, required
// keys, and additionalProperties false (unknown keys are errors). Editors use it to complete
// and check scene files.
func Schema(v any, title string) map[string]any {
	s := schemaOf(reflect.TypeOf(v), reflect.StructTag(""))
	s["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	s["title"] = title
	return s
}

func schemaOf(t reflect.Type, tag reflect.StructTag) map[string]any {
	s := map[string]any{}
	doc := tag.Get("doc")
	if u := tag.Get("unit"); u != "" && u != "1" {
		doc += " [" + u + "]"
	}
	if doc != "" {
		s["description"] = strings.TrimSpace(doc)
	}
	lo, hi, loOpen, hiOpen, rangeErr := ParseRange(tag.Get("range"))
	bounds := func(m map[string]any) {
		if rangeErr != nil {
			return
		}
		if !isInf(lo) {
			if loOpen {
				m["exclusiveMinimum"] = lo
			} else {
				m["minimum"] = lo
			}
		}
		if !isInf(hi) {
			if hiOpen {
				m["exclusiveMaximum"] = hi
			} else {
				m["maximum"] = hi
			}
		}
	}
	switch t.Kind() {
	case reflect.Float64, reflect.Float32:
		s["type"] = "number"
		bounds(s)
	case reflect.Int, reflect.Int64, reflect.Int32:
		s["type"] = "integer"
		bounds(s)
	case reflect.Bool:
		s["type"] = "boolean"
	case reflect.String:
		s["type"] = "string"
	case reflect.Array:
		item := map[string]any{"type": "number"}
		bounds(item)
		s["type"] = "array"
		s["items"] = item
		s["minItems"], s["maxItems"] = t.Len(), t.Len()
	case reflect.Slice:
		s["type"] = "array"
		s["items"] = schemaOf(t.Elem(), "")
	case reflect.Struct:
		s["type"] = "object"
		s["additionalProperties"] = false
		props := map[string]any{}
		var required []string
		for _, f := range declared(t) {
			name := jsonName(f)
			p := schemaOf(f.Type, f.Tag)
			if def, ok := f.Tag.Lookup("default"); ok {
				var dv any
				if f.Type.Kind() == reflect.String {
					dv = def
				} else if err := json.Unmarshal([]byte(def), &dv); err != nil {
					dv = def
				}
				p["default"] = dv
			}
			props[name] = p
			if f.Tag.Get("required") == "true" {
				required = append(required, name)
			}
		}
		s["properties"] = props
		if len(required) > 0 {
			s["required"] = required
		}
	}
	return s
}

func isInf(x float64) bool { return x > 1e308 || x < -1e308 }
