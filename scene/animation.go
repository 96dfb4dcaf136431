package scene

import (
	"fmt"

	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/systems"
)

// AnimationField is an animation field of the scene (components.AnimationField;
// docs/animation.md): a shape inside which the fluid's velocity, microrotation or position is
// overwritten by math expressions every substep.
type AnimationField struct {
	Name string `json:"name" required:"true" doc:"unique animation field name"`
	components.AnimationField
}

// validateAnim checks every field's keys, relations and expressions and that names are
// unique among the fields.
func (s *Scene) validateAnim() error {
	seen := map[string]bool{}
	for i := range s.Anim {
		a := &s.Anim[i]
		path := fmt.Sprintf("animationFields[%d]", i)
		if seen[a.Name] {
			return fmt.Errorf("%s.name: %q is used by another animation field", path, a.Name)
		}
		seen[a.Name] = true
		if _, err := systems.NewAnimField(a.Name, path, a.AnimationField, s.Solver.Dimensions); err != nil {
			return err
		}
	}
	return nil
}

// addAnim adds the scene's animation fields to w, in the scene's order.
func (s *Scene) addAnim(w *sluice.World) error {
	for i := range s.Anim {
		if err := w.AddAnimationField(s.Anim[i].Name, s.Anim[i].AnimationField); err != nil {
			return fmt.Errorf("animationFields[%d]: %w", i, err)
		}
	}
	return nil
}
