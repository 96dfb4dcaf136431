package game

import "github.com/sluicephysics/sluice/physics/rigid"

// SunDirection is the direction the view's sun shines along (world space, towards the scene):
// from the upper left in front, the directional light Run adds for the meshes. Rigid bodies'
// shadows are cast along it.
var SunDirection = [3]float64{0.4, -1, -0.8}

// ShadowOpacity is how much of the floor a rigid body's shadow darkens.
const ShadowOpacity = 0.35

// shadowLift is how far above the floor a shadow is drawn (m), so that it does not fight the
// floor's own faces for the depth test.
const shadowLift = 1e-3

// ProjectShadow writes into out the shadow on the plane y = floor of a mesh at pose p, cast
// along the direction d (d[1] < 0): each model-space vertex s (three floats a vertex in pos)
// is placed at x = X + R(Q)·s and moved along d to the plane, x + t·d with
// t = (floor − x_y)/d_y, lifted by shadowLift. A vertex already below the plane stays where it
// is projected from above (t ≤ 0 is clamped to 0: it is drawn at its own place), so a body
// sunk into the floor is not turned inside out. g3n has no shadow maps; this planar projected
// shadow (Blinn 1988, "Me and my (fake) shadow") is the classic substitute for one light and
// one receiving plane. out must have len(pos) floats.
func ProjectShadow(pos []float32, p *Pose, floor float64, d [3]float64, out []float32) {
	r := rigid.Quat(p.Q).Matrix()
	for k := 0; k+3 <= len(pos); k += 3 {
		s0, s1, s2 := float64(pos[k]), float64(pos[k+1]), float64(pos[k+2])
		x0 := p.X[0] + r[0]*s0 + r[1]*s1 + r[2]*s2
		x1 := p.X[1] + r[3]*s0 + r[4]*s1 + r[5]*s2
		x2 := p.X[2] + r[6]*s0 + r[7]*s1 + r[8]*s2
		t := max(0, (floor-x1)/d[1])
		out[k] = float32(x0 + t*d[0])
		out[k+1] = float32(max(x1+t*d[1], floor) + shadowLift)
		out[k+2] = float32(x2 + t*d[2])
	}
}
