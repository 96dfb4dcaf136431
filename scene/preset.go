package scene

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/params"
	"github.com/sluicephysics/sluice/presets"
)

// PresetNames lists the embedded presets.
func PresetNames() []string { return presets.Names() }

// Preset returns the embedded or scene-local preset name decoded and validated as a material
// (dir is the scene folder; "" for embedded presets only).
func Preset(name, dir string) (components.Material, error) {
	raw, label, err := presetObject(name, dir, "preset")
	if err != nil {
		return components.Material{}, err
	}
	data, _ := json.Marshal(raw)
	return decodePreset(data, label)
}

// decodePreset decodes and validates a preset's JSON as a material; errors name the file.
func decodePreset(data []byte, label string) (components.Material, error) {
	m := components.DefaultMaterial()
	if err := params.Decode(data, &m, ""); err != nil {
		return m, fmt.Errorf("preset %s: %w", label, err)
	}
	if err := m.Validate(""); err != nil {
		return m, fmt.Errorf("preset %s: %w", label, err)
	}
	return m, nil
}

// presetObject finds preset name (see the lookup order above) and returns its top-level keys,
// after checking that it decodes and validates as a material on its own. path is the JSON
// path of the "preset" key, for errors.
func presetObject(name, dir, path string) (map[string]json.RawMessage, string, error) {
	var data []byte
	label := name
	switch {
	case strings.HasSuffix(strings.ToLower(name), ".json"):
		file := resolve(dir, name)
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, "", &params.Error{Path: path, Msg: fmt.Sprintf("preset file: %v", err)}
		}
		data, label = b, file
	default:
		if dir != "" && !strings.ContainsAny(name, `/\`) {
			local := filepath.Join(dir, "presets", name+".json")
			if b, err := os.ReadFile(local); err == nil {
				data, label = b, local
			}
		}
		if data == nil {
			b, ok := presets.Read(name)
			if !ok {
				return nil, "", &params.Error{Path: path, Msg: fmt.Sprintf("%q is not a material preset (known: %s; or a path ending in .json, relative to the scene file)",
					name, strings.Join(presets.Names(), ", "))}
			}
			data, label = b, "presets/"+name+".json (embedded)"
		}
	}
	if _, err := decodePreset(data, label); err != nil {
		return nil, "", &params.Error{Path: path, Msg: err.Error()}
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return nil, "", &params.Error{Path: path, Msg: fmt.Sprintf("preset %s: %v", label, err)}
	}
	if _, ok := obj["preset"]; ok {
		return nil, "", &params.Error{Path: path, Msg: fmt.Sprintf("preset %s names a preset itself; presets do not chain", label)}
	}
	return obj, label, nil
}

// ExpandPresets returns the scene JSON data with every material's preset merged under the
// material's own keys (dir is the scene folder, "" when there is none). Data that is not
// valid JSON is returned unchanged, for the decoder to report with its line and column.
//
// A material preset is a JSON file with the keys of a material object. A material that names
// one with "preset" starts from the preset's values; the keys it gives itself win, and nested
// groups (viscoelastic) merge key by key, so {"preset": "slime", "viscoelastic": {"c": 0.05}}
// is slime with a softer c. A name is looked up, in order, as
//
//   - a path, when it ends in .json (relative to the scene file's folder);
//   - <scene folder>/presets/<name>.json, so a modder's edited copy overrides the shipped one;
//   - the presets embedded in sluice (package presets; `sluice presets` lists them).
//
// Presets are expanded in the JSON text before decoding, under every object key named
// "material", so each material key stays declared once (components.Material) and a preset
// can hold exactly what a scene's material can.
func ExpandPresets(data []byte, dir string) ([]byte, error) {
	if !json.Valid(data) {
		return data, nil
	}
	var top any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // numbers pass through exactly as written
	if err := dec.Decode(&top); err != nil {
		return data, nil
	}
	changed, err := expandIn(top, "", dir)
	if err != nil || !changed {
		return data, err
	}
	return json.Marshal(top)
}

// expandIn walks v and expands the preset of every object under a "material" key.
func expandIn(v any, path, dir string) (bool, error) {
	changed := false
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys) // errors in a fixed order
		for _, k := range keys {
			p := pathJoin(path, k)
			if m, ok := x[k].(map[string]any); ok && k == "material" {
				c, err := expandMaterial(m, p, dir)
				if err != nil {
					return false, err
				}
				changed = changed || c
				continue
			}
			c, err := expandIn(x[k], p, dir)
			if err != nil {
				return false, err
			}
			changed = changed || c
		}
	case []any:
		for i := range x {
			c, err := expandIn(x[i], fmt.Sprintf("%s[%d]", path, i), dir)
			if err != nil {
				return false, err
			}
			changed = changed || c
		}
	}
	return changed, nil
}

// expandMaterial merges the preset named by m["preset"] (when it is a string; any other type
// is left for the decoder to report) under m's keys, in place.
func expandMaterial(m map[string]any, path, dir string) (bool, error) {
	name, ok := m["preset"].(string)
	if !ok {
		return false, nil
	}
	raw, _, err := presetObject(name, dir, path+".preset")
	if err != nil {
		return false, err
	}
	for k, rv := range raw {
		dec := json.NewDecoder(bytes.NewReader(rv))
		dec.UseNumber()
		var pv any
		if err := dec.Decode(&pv); err != nil {
			return false, &params.Error{Path: path + ".preset", Msg: err.Error()}
		}
		_, given := m[k]
		m[k] = merge(pv, m[k], given)
	}
	return true, nil
}

// merge returns the explicit value over the preset's: objects merge key by key (explicit
// keys win), anything else is replaced when given.
func merge(preset, explicit any, given bool) any {
	if !given {
		return preset
	}
	po, ok1 := preset.(map[string]any)
	eo, ok2 := explicit.(map[string]any)
	if !ok1 || !ok2 {
		return explicit
	}
	out := make(map[string]any, len(po)+len(eo))
	for k, v := range po {
		out[k] = v
	}
	for k, v := range eo {
		out[k] = merge(po[k], v, true)
	}
	return out
}

func pathJoin(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
