package sluice_test

import (
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
)

func TestElastoplasticImplicitLongDropMeasure(t *testing.T) {
	for _, y := range []float64{1e12, 5000} {
		w, err := sluice.NewWorld(components.DefaultSolver(), 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.AddBoundaryBox("tank", mgl64.Vec3{-0.5, 0, -0.5}, mgl64.Vec3{0.9, 1.5, 0.9}, true); err != nil {
			t.Fatal(err)
		}
		e, err := w.AddElastoplasticBlock("box", plasticMaterial(1000, 2e5, y), mgl64.Vec3{0, 0.5, 0}, mgl64.Vec3{0.4, 0.9, 0.4}, mgl64.Vec3{})
		if err != nil {
			t.Fatal(err)
		}
		h0 := height(w, e)
		vmax, sub, lo := 0.0, 0, 1.0
		for f := 1; f <= 600; f++ {
			st, err := w.Step(1.0 / 60)
			if err != nil {
				t.Fatal(err)
			}
			vmax, sub = max(vmax, st.MaxSpeed), sub+st.Substeps
			lo = min(lo, height(w, e)/h0)
			if f%60 == 0 {
				t.Logf("yield %g t=%d s: height %.4f lowest %.4f vmax %.3g substeps/frame %.1f sigma %.3f..%.3f", y, f/60, height(w, e)/h0, lo, vmax, float64(sub)/60, st.ElastoplasticMinSigma, st.ElastoplasticMaxSigma)
				vmax, sub = 0, 0
			}
		}
		w.Close()
	}
}

func TestElastoplasticImplicitDoughStepMeasure(t *testing.T) {
	for _, k := range []float64{2, 3} {
		s := components.DefaultSolver()
		// the dough preset's explicit limit 0.5·2r/c
		m := plasticMaterial(1150, 3e4, 1000)
		m.Elastoplastic.FlowRate = 20
		mod := m.Elastoplastic.Model()
		lim := mod.StableDt(s.Spacing(), 1150)
		s.DtMin, s.DtMax = k*lim, k*lim
		w, err := sluice.NewWorld(s, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.AddBoundaryBox("tank", mgl64.Vec3{-1, 0, -1}, mgl64.Vec3{1.4, 2.4, 1.4}, true); err != nil {
			t.Fatal(err)
		}
		if _, err := w.AddElastoplasticBlock("dough", m, mgl64.Vec3{0, 0.5, 0}, mgl64.Vec3{0.4, 0.9, 0.4}, mgl64.Vec3{}); err != nil {
			t.Fatal(err)
		}
		vmax, few, sub := 0.0, 0, 0
		for f := 0; f < 60; f++ {
			st, err := w.Step(1.0 / 60)
			if err != nil {
				t.Fatal(err)
			}
			vmax, few, sub = max(vmax, st.MaxSpeed), few+st.ElastoplasticFewNeighbors, sub+st.Substeps
		}
		t.Logf("k=%g (dt %.4f s): fastest %.2f m/s, %d detached, %d substeps", k, k*lim, vmax, few, sub)
		w.Close()
	}
}
