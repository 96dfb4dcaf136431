// Package params turns one declaration per parameter into defaults, strict JSON decoding and
// validation (DESIGN §6). A parameter is a struct field with tags:
//
//	Radius float64 `json:"particleRadius" unit:"m" default:"0.025" range:"(0,1]" doc:"particle radius r"`
//
// json is the config name, unit its SI unit, default its value when the key is absent, range an
// interval ("[a,b]", "(a,b)", "inf" for no bound) that the value must lie in, required:"true"
// makes the key mandatory, and doc is the one-line description. Decode rejects unknown keys and
// names every error by its JSON path, the value and the allowed range:
//
//	bodies[2].material.viscosity: -5 m^2/s is below the minimum 0
package params

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// Error is a parameter error at a JSON path.
type Error struct {
	Path string
	Msg  string
}

func (e *Error) Error() string { return e.Path + ": " + e.Msg }

func errf(path, format string, a ...any) error {
	if path == "" {
		path = "(top level)"
	}
	return &Error{Path: path, Msg: fmt.Sprintf(format, a...)}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// Info describes one declared parameter, for docs and schemas.
type Info struct {
	Name, Unit, Default, Range, Doc string
	Required                        bool
	Type                            string
}

// Describe lists the parameters declared on struct type t (a struct or pointer to one), in
// field order, without descending into nested structs.
func Describe(v any) []Info {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var out []Info
	for _, f := range declared(t) {
		name := jsonName(f)
		out = append(out, Info{Name: name, Unit: f.Tag.Get("unit"), Default: f.Tag.Get("default"),
			Range: f.Tag.Get("range"), Doc: f.Tag.Get("doc"), Required: f.Tag.Get("required") == "true",
			Type: f.Type.String()})
	}
	return out
}

// declared lists the declared fields of struct type t in order, flattening anonymous embedded
// structs without a json tag (a shared group of parameters such as a placement is declared
// once and embedded wherever it applies). Each entry carries its index path for FieldByIndex.
func declared(t reflect.Type) []reflect.StructField {
	var out []reflect.StructField
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct && f.Tag.Get("json") == "" {
			for _, g := range declared(f.Type) {
				g.Index = append([]int{i}, g.Index...)
				out = append(out, g)
			}
			continue
		}
		if jsonName(f) != "" {
			out = append(out, f)
		}
	}
	return out
}

func jsonName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	n := strings.Split(f.Tag.Get("json"), ",")[0]
	if n == "-" || n == "" {
		return ""
	}
	return n
}

// Defaults sets every field with a default tag, recursing into nested structs. It panics on a
// malformed default, which is a programming error in the declaration.
func Defaults(ptr any) {
	setDefaults(reflect.ValueOf(ptr).Elem())
}

func setDefaults(v reflect.Value) {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() && !f.Anonymous {
			continue
		}
		fv := v.Field(i)
		if def, ok := f.Tag.Lookup("default"); ok {
			if err := json.Unmarshal([]byte(defaultJSON(fv, def)), fv.Addr().Interface()); err != nil {
				panic(fmt.Sprintf("params: bad default %q on %s.%s: %v", def, t.Name(), f.Name, err))
			}
			continue
		}
		if fv.Kind() == reflect.Struct {
			setDefaults(fv)
		}
	}
}

func defaultJSON(v reflect.Value, def string) string {
	if v.Kind() == reflect.String {
		return strconv.Quote(def)
	}
	return def
}

// Decode reads the JSON object data into ptr (a pointer to a struct already holding its
// defaults) strictly: unknown keys, wrong types and missing required keys are errors naming the
// path. It does not check ranges; call Validate afterwards.
func Decode(data []byte, ptr any, path string) error {
	if !json.Valid(data) {
		var probe any
		err := json.Unmarshal(data, &probe)
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := lineCol(data, se.Offset)
			hint := ""
			if at := data[max(0, min(int(se.Offset)-1, len(data))):]; bytes.HasPrefix(at, []byte("NaN")) || bytes.HasPrefix(at, []byte("Inf")) || bytes.HasPrefix(at, []byte("-Inf")) {
				hint = " (NaN and Infinity are not JSON numbers)"
			}
			return fmt.Errorf("invalid JSON at line %d, column %d: %v%s", line, col, se, hint)
		}
		return fmt.Errorf("invalid JSON: %v", err)
	}
	return decode(json.RawMessage(data), reflect.ValueOf(ptr).Elem(), path)
}

func lineCol(data []byte, off int64) (int, int) {
	line, col := 1, 1
	for i := int64(0); i < off-1 && i < int64(len(data)); i++ {
		if data[i] == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}

func decode(raw json.RawMessage, v reflect.Value, path string) error {
	if string(bytes.TrimSpace(raw)) == "null" {
		return errf(path, "null is not a value here: leave the key out to keep the default")
	}
	switch v.Kind() {
	case reflect.Array:
		var arr []json.RawMessage
		if err := json.Unmarshal(raw, &arr); err != nil {
			return errf(path, "expected %s, got %s", typeName(v.Type()), short(raw))
		}
		if len(arr) != v.Len() {
			return errf(path, "expected %s, got %d", typeName(v.Type()), len(arr))
		}
	case reflect.Struct:
		if isVector(v.Type()) {
			break
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
			return errf(path, "expected an object, got %s", short(raw))
		}
		if k, dup := duplicateKey(raw); dup {
			return errf(join(path, k), "key given twice (the first would be silently dropped)")
		}
		t := v.Type()
		fields := declared(t)
		byName := map[string]int{}
		var names []string
		for i, f := range fields {
			n := jsonName(f)
			byName[n] = i
			names = append(names, n)
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			i, ok := byName[k]
			if !ok {
				return errf(join(path, k), "unknown key (allowed: %s)", strings.Join(names, ", "))
			}
			if err := decode(obj[k], v.FieldByIndex(fields[i].Index), join(path, k)); err != nil {
				return err
			}
		}
		for _, f := range fields {
			if n := jsonName(f); f.Tag.Get("required") == "true" {
				if _, ok := obj[n]; !ok {
					return errf(join(path, n), "required key is missing (%s)", f.Tag.Get("doc"))
				}
			}
		}
		return nil
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Struct && !isVector(v.Type().Elem()) {
			var arr []json.RawMessage
			if err := json.Unmarshal(raw, &arr); err != nil {
				return errf(path, "expected an array, got %s", short(raw))
			}
			s := reflect.MakeSlice(v.Type(), len(arr), len(arr))
			for i := range arr {
				e := s.Index(i)
				setDefaults(e)
				if err := decode(arr[i], e, fmt.Sprintf("%s[%d]", path, i)); err != nil {
					return err
				}
			}
			v.Set(s)
			return nil
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v.Addr().Interface()); err != nil {
		return errf(path, "expected %s, got %s", typeName(v.Type()), short(raw))
	}
	return nil
}

func isVector(t reflect.Type) bool { return t.Kind() == reflect.Array }

// duplicateKey returns the first key that appears twice in the JSON object raw (which
// json.Unmarshal would take silently, the last value winning).
func duplicateKey(raw json.RawMessage) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", false
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return "", false
		}
		k, _ := t.(string)
		if seen[k] {
			return k, true
		}
		seen[k] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return "", false
		}
	}
	return "", false
}

func typeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Float64, reflect.Float32:
		return "a number"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "an integer"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Array:
		return fmt.Sprintf("an array of %d numbers", t.Len())
	case reflect.Slice:
		return "an array"
	}
	return t.String()
}

func short(raw json.RawMessage) string {
	s := strings.TrimSpace(string(raw))
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return s
}

// Validate checks every float and integer field against its range tag and every float (also
// inside arrays) for NaN and ±Inf, recursing into nested structs and slices of structs.
func Validate(ptr any, path string) error {
	return validate(reflect.ValueOf(ptr).Elem(), path)
}

func validate(v reflect.Value, path string) error {
	for _, f := range declared(v.Type()) {
		name := jsonName(f)
		fv := v.FieldByIndex(f.Index)
		p := join(path, name)
		unit := f.Tag.Get("unit")
		switch fv.Kind() {
		case reflect.Float64:
			if err := checkNumber(fv.Float(), f.Tag.Get("range"), unit, p); err != nil {
				return err
			}
		case reflect.Int:
			if err := checkNumber(float64(fv.Int()), f.Tag.Get("range"), unit, p); err != nil {
				return err
			}
		case reflect.Array:
			for k := 0; k < fv.Len(); k++ {
				if fv.Index(k).Kind() == reflect.Float64 {
					if err := checkNumber(fv.Index(k).Float(), f.Tag.Get("range"), unit, fmt.Sprintf("%s[%d]", p, k)); err != nil {
						return err
					}
				}
			}
		case reflect.Struct:
			if err := validate(fv, p); err != nil {
				return err
			}
		case reflect.Slice:
			if fv.Type().Elem().Kind() == reflect.Struct {
				for k := 0; k < fv.Len(); k++ {
					if err := validate(fv.Index(k), fmt.Sprintf("%s[%d]", p, k)); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

func checkNumber(x float64, rng, unit, path string) error {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return errf(path, "%v is not a finite number", x)
	}
	if rng == "" {
		return nil
	}
	lo, hi, loOpen, hiOpen, err := ParseRange(rng)
	if err != nil {
		panic(fmt.Sprintf("params: bad range %q at %s: %v", rng, path, err))
	}
	u := ""
	if unit != "" && unit != "1" {
		u = " " + unit
	}
	if x < lo || (loOpen && x == lo) {
		if loOpen {
			return errf(path, "%g%s must be greater than %g (allowed range %s)", x, u, lo, rng)
		}
		return errf(path, "%g%s is below the minimum %g (allowed range %s)", x, u, lo, rng)
	}
	if x > hi || (hiOpen && x == hi) {
		if hiOpen {
			return errf(path, "%g%s must be less than %g (allowed range %s)", x, u, hi, rng)
		}
		return errf(path, "%g%s is above the maximum %g (allowed range %s)", x, u, hi, rng)
	}
	return nil
}

// ParseRange parses an interval such as "(0,1]" or "[0,inf)".
func ParseRange(r string) (lo, hi float64, loOpen, hiOpen bool, err error) {
	r = strings.TrimSpace(r)
	if len(r) < 5 || !strings.ContainsAny(r[:1], "[(") || !strings.ContainsAny(r[len(r)-1:], "])") {
		return 0, 0, false, false, fmt.Errorf("want [a,b] or (a,b)")
	}
	loOpen, hiOpen = r[0] == '(', r[len(r)-1] == ')'
	parts := strings.Split(r[1:len(r)-1], ",")
	if len(parts) != 2 {
		return 0, 0, false, false, fmt.Errorf("want two bounds")
	}
	parse := func(s string) (float64, error) {
		s = strings.TrimSpace(s)
		switch s {
		case "inf", "+inf":
			return math.Inf(1), nil
		case "-inf":
			return math.Inf(-1), nil
		}
		return strconv.ParseFloat(s, 64)
	}
	if lo, err = parse(parts[0]); err != nil {
		return
	}
	hi, err = parse(parts[1])
	return
}
