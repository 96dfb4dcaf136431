package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/sluicephysics/sluice/components"
)

// solverSettings collects the --solver KEY=VALUE flags of sluice run, in the order given.
type solverSettings []string

func (s *solverSettings) String() string { return strings.Join(*s, " ") }

func (s *solverSettings) Set(v string) error {
	k, _, ok := strings.Cut(v, "=")
	if !ok || strings.TrimSpace(k) == "" {
		return errors.New("want KEY=VALUE, KEY a setting of the scene's solver block")
	}
	*s = append(*s, v)
	return nil
}

// applySolverSettings sets each KEY=VALUE in the solver block of a loaded scene (native or
// imported), in order: KEY is the setting's name in a native scene's "solver" object (sluice
// params lists them) and VALUE a JSON value; a VALUE that is not JSON is taken as a string. A
// key the block does not have is an error; the values are checked where the world is built,
// as the scene file's own are.
func applySolverSettings(s *components.Solver, settings []string) error {
	for _, kv := range settings {
		k, v, _ := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		raw := json.RawMessage(strings.TrimSpace(v))
		if !json.Valid(raw) {
			var err error
			if raw, err = json.Marshal(v); err != nil {
				return fmt.Errorf("--solver %s: %w", kv, err)
			}
		}
		doc, err := json.Marshal(map[string]json.RawMessage{k: raw})
		if err != nil {
			return fmt.Errorf("--solver %s: %w", kv, err)
		}
		known := false
		for _, name := range solverKeys() {
			known = known || name == k
		}
		if !known {
			return fmt.Errorf("--solver %s: the solver block has no setting %q", kv, k)
		}
		dec := json.NewDecoder(bytes.NewReader(doc))
		dec.DisallowUnknownFields()
		if err := dec.Decode(s); err != nil {
			return fmt.Errorf("--solver %s: %w", kv, err)
		}
	}
	return nil
}

// solverKeys are the JSON names of the solver block's settings (encoding/json would match a
// key case-insensitively; the flag takes the exact names only).
func solverKeys() []string {
	t := reflect.TypeOf(components.Solver{})
	keys := make([]string, 0, t.NumField())
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			keys = append(keys, name)
		}
	}
	return keys
}
