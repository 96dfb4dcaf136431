package elastoplastic

import "math"

// plasticFlow applies the multiplicative plasticity of A. W. Bargteil, C. Wojtan, J. K.
// Hodgins, G. Turk, "A finite element method for animating large viscoplastic flow" (SIGGRAPH
// 2007, §4), as ch. 4 §4.3 uses it, to the diagonalised elastic deformation s = F̂_e of one
// particle and its accumulated plastic strain alpha. It reports whether the particle flowed.
//
// With F = F_e F_p, only F_e is stored (ch. 4 §4.2), so a plastic increment ΔF_p = V ΔF̂_p Vᵀ
// shows as F_e ← F_e ΔF_p⁻¹ = U (F̂_e ΔF̂_p⁻¹) Vᵀ: the flow acts on the diagonal alone.
//
//   - Yield: the deviatoric part P′ = P̂ − tr(P̂)/3·I of the stress of Eq. 4.9 flows when
//     ‖P′‖ > P_Y + Kα (yield stress P_Y, hardening K).
//   - Flow: ΔF̂_p = (F̂*)^γ with F̂* = det(F̂_e)^(−1/3) F̂_e, the volume-preserving part of F̂_e
//     (det F̂* = 1, so the plastic flow never changes volume), and
//     γ = min(ν Δt (‖P′‖ − P_Y − Kα)/‖P′‖, 1). Bargteil et al. write the flow rate per step;
//     here ν is per second and multiplied by Δt so the flow does not depend on the substep.
//     γ = 1 takes the whole deviatoric part away in one step.
//   - Hardening: α accumulates the plastic strain of each increment, γ‖ln F̂*‖, so K is a
//     modulus in Pa (the yield stress rises by K per unit logarithmic plastic strain).
//
// The guards keep every singular value positive, so det F̂_e > 0 and the logarithms are real;
// a non-positive s is left alone.
func plasticFlow(s *[3]float64, alpha *float64, mat *Material, dt float64) bool {
	if mat.FlowRate == 0 || math.IsInf(mat.YieldStress, 1) || !(s[2] > 0) {
		return false
	}
	p := stress(*s, mat.Mu, mat.Lambda)
	mean := (p[0] + p[1] + p[2]) / 3
	d0, d1, d2 := p[0]-mean, p[1]-mean, p[2]-mean
	dn := math.Sqrt(d0*d0 + d1*d1 + d2*d2)
	yield := max(mat.YieldStress+mat.Hardening**alpha, 0)
	if !(dn > yield) {
		return false
	}
	gamma := min(mat.FlowRate*dt*(dn-yield)/dn, 1)
	// ln F̂* = ln F̂ − (1/3) ln det F̂.
	l0, l1, l2 := math.Log(s[0]), math.Log(s[1]), math.Log(s[2])
	lm := (l0 + l1 + l2) / 3
	e0, e1, e2 := l0-lm, l1-lm, l2-lm
	// F̂_e ← F̂_e (F̂*)^(−γ) = exp(ln F̂_e − γ ln F̂*).
	s[0] = math.Exp(l0 - gamma*e0)
	s[1] = math.Exp(l1 - gamma*e1)
	s[2] = math.Exp(l2 - gamma*e2)
	*alpha += gamma * math.Sqrt(e0*e0+e1*e1+e2*e2)
	return true
}
