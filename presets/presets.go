// Package presets holds sluice's material presets: JSON files with the keys of a scene's
// material object (see the parameter reference in docs/scenes.md), embedded in the binary so that
// "preset": "honey" works in a scene's material from anywhere. A modder copies a file next to
// a scene (into a presets/ folder beside it, or anywhere as a path) and edits it; the scene
// loader in package scene resolves the names and merges the preset under the material's own
// keys.
package presets

import (
	"embed"
	"io/fs"
	"slices"
	"strings"
)

//go:embed *.json
var files embed.FS

// Names lists the embedded presets, sorted.
func Names() []string {
	ents, err := fs.ReadDir(files, ".")
	if err != nil {
		panic("presets: embedded folder unreadable: " + err.Error())
	}
	var out []string
	for _, e := range ents {
		if name, ok := strings.CutSuffix(e.Name(), ".json"); ok {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// Read returns the JSON text of the embedded preset name, and false when there is none.
func Read(name string) ([]byte, bool) {
	if name == "" || strings.ContainsAny(name, `/\`) {
		return nil, false
	}
	data, err := files.ReadFile(name + ".json")
	return data, err == nil
}
