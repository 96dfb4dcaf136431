package game

import (
	"strings"
	"testing"
)

// TestSurfaceStyleChecks checks the declared defaults pass their own ranges and that values
// outside them are refused naming the field, and that an unknown fluid look is refused
// naming the look.
func TestSurfaceStyleChecks(t *testing.T) {
	st := DefaultSurfaceStyle()
	if err := st.Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	if st.FilterRadius != 4 || st.FilterIterations != 3 || st.FilterScale != 2 || st.DepthFalloff != 4 || st.AbsorptionDepth != 0.05 || st.Refraction != 0.08 {
		t.Fatalf("defaults %+v, want the declared 4 r, 3 iterations, scale 2, 4 r, 0.05 m, 0.08 /m", st)
	}
	for _, c := range []struct {
		set  func(s *SurfaceStyle)
		want string
	}{
		{func(s *SurfaceStyle) { s.FilterRadius = -1 }, "surface.filterRadius"},
		{func(s *SurfaceStyle) { s.FilterIterations = 9 }, "surface.filterIterations"},
		{func(s *SurfaceStyle) { s.FilterScale = 3 }, "surface.filterScale"},
		{func(s *SurfaceStyle) { s.FilterScale = 0 }, "surface.filterScale"},
		{func(s *SurfaceStyle) { s.DepthFalloff = 0 }, "surface.depthFalloff"},
		{func(s *SurfaceStyle) { s.AbsorptionDepth = 0 }, "surface.absorptionDepth"},
		{func(s *SurfaceStyle) { s.Refraction = 2 }, "surface.refraction"},
	} {
		s := DefaultSurfaceStyle()
		c.set(&s)
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one naming %s", s, err, c.want)
		}
	}
	if err := checkLook("glass"); err == nil || !strings.Contains(err.Error(), `"glass"`) || !strings.Contains(err.Error(), "surface, marbles") {
		t.Errorf("look glass: error %v, want one naming it and the looks", err)
	}
	for _, l := range Looks() {
		if err := checkLook(l); err != nil {
			t.Errorf("look %s: %v", l, err)
		}
	}
}
