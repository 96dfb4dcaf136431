package scene

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

func TestCorpusAnimatedBody(t *testing.T) {
	corpusFiles(t)
	// AnimatedBody_2D.json: the reference moves RigidBodies[1] (a dragon) by a Python script;
	// sluice imports it as a static wall where placed, says so, and runs the scene.
	sc, warns, err := ImportSPlisHSPlasH(filepath.Join(corpus, "AnimatedBody_2D.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(fmt.Sprint(warns), "RigidBodies[1].isAnimated") {
		t.Errorf("no warning names RigidBodies[1].isAnimated: %v", warns)
	}
	if len(sc.Meshes) != 2 || len(sc.Rigid) != 0 {
		t.Fatalf("%d walls and %d rigid bodies, want the tank and the dragon as 2 walls", len(sc.Meshes), len(sc.Rigid))
	}
	w, err := sc.Build(0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for i := 0; i < 3; i++ {
		if _, err := w.Step(1.0 / 60); err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
	}
}
