package scene

import (
	"math"
	"strings"
	"testing"

	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics/elastoplastic"
)

// TestElastoplasticPresetsMakeElastoplasticBodies: the dough, clay and snow presets give an
// elastoplasticBodies ball their density and elastoplastic group, the body is elastoplastic,
// and dropped on the floor for a third of a second it stays finite while every frame takes at
// least as many substeps as the explicit limit demands: Δt ≤ C·2r/c, c = √((λ+2μ)/ρ0)
// with the Lamé parameters of Young's modulus and Poisson's ratio, computed here from the
// closed forms (C = elastoplastic.StableCourant).
func TestElastoplasticPresetsMakeElastoplasticBodies(t *testing.T) {
	const sc = `{
  "solver": {"particleRadius": 0.025},
  "boundaries": [{"name": "tank", "min": [0, 0, 0], "max": [0.6, 0.6, 0.6]}],
  "elastoplasticBodies": [{"name": "ball", "shape": "sphere", "center": [0.3, 0.25, 0.3], "radius": 0.15, "angularVelocity": [0, 2, 0], "material": {"preset": "PRESET"}}]
}`
	for _, n := range []string{"dough", "clay", "snow"} {
		s, err := Parse([]byte(strings.Replace(sc, "PRESET", n, 1)))
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		want, _ := Preset(n, "")
		m := s.Elastoplastic[0].Material
		if m.RestDensity != want.RestDensity || m.Elastoplastic != want.Elastoplastic {
			t.Fatalf("%s: density %g, %+v; want the preset's %g, %+v", n, m.RestDensity, m.Elastoplastic, want.RestDensity, want.Elastoplastic)
		}
		ep := m.Elastoplastic
		mu := ep.YoungsModulus / (2 * (1 + ep.PoissonsRatio))
		lambda := ep.YoungsModulus * ep.PoissonsRatio / ((1 + ep.PoissonsRatio) * (1 - 2*ep.PoissonsRatio))
		limit := elastoplastic.StableCourant * 0.05 / math.Sqrt((lambda+2*mu)/m.RestDensity)
		w, err := s.Build(1)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		e, _ := w.BodyByName("ball")
		if ph := w.Body(e).Phase; ph != components.Elastoplastic {
			t.Fatalf("%s: the ball is %s", n, ph)
		}
		spun := false
		for _, v := range w.Particles(e).V {
			spun = spun || v.Len() > 0.1
		}
		if !spun {
			t.Errorf("%s: angularVelocity was not applied", n)
		}
		for i := 0; i < 20; i++ {
			st, err := w.Step(1.0 / 60)
			if err != nil {
				t.Fatalf("%s: step %d: %v", n, i, err)
			}
			if need := int(math.Ceil((1.0/60)/limit - 1e-9)); st.Substeps < need {
				t.Fatalf("%s: %d substeps in a frame, the explicit limit %.3g s needs at least %d", n, st.Substeps, limit, need)
			}
		}
		w.Close()
	}
}

func TestBadElastoplasticSceneNamesTheKey(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{`{"name": "b", "shape": "cone", "min": [0,0,0], "max": [0.2,0.2,0.2]}`, `elastoplasticBodies[0].shape: "cone" is not an elastoplastic body shape (box or sphere)`},
		{`{"name": "b", "min": [0,0,0], "max": [0.2,0,0.2]}`, `elastoplasticBodies[0].max[1]: 0 m must exceed min[1] = 0 m`},
		{`{"name": "b", "shape": "sphere", "radius": 0.01}`, `elastoplasticBodies[0].radius: 0.01 m is below the particle spacing 2r = 0.05 m`},
		{`{"name": "b", "min": [0,0,0], "max": [0.2,0.2,0.2], "material": {"elastoplastic": {"flowRate": -1}}}`, `elastoplasticBodies[0].material.elastoplastic.flowRate: -1 1/s is below the minimum 0 (allowed range [0,1e6])`},
	} {
		_, err := Parse([]byte(`{"elastoplasticBodies": [` + c.body + `]}`))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.body, err, c.want)
		}
	}
}
