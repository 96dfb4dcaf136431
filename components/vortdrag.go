package components

// Micropolar is a fluid material's micropolar model (Bender, Koschier, Kugelstadt and Weiler,
// "Turbulent Micropolar SPH Fluids with Foam", IEEE TVCG 2019, Eqs. 9–10; package
// physics/micropolar): each particle carries an angular velocity ω, driven towards half the
// flow's vorticity at the rate 2·inertiaInverse·vorticity and feeding vorticity·∇×ω back into
// the velocity. vorticity 0 turns it off.
type Micropolar struct {
	Vorticity      float64 `json:"vorticity" unit:"m^2/s" default:"0" range:"[0,10]" doc:"vorticity coupling coefficient ν_t of Eqs. 9–10; 0 = off"`
	InertiaInverse float64 `json:"inertiaInverse" unit:"1/m^2" default:"0.5" range:"[0,1e8]" doc:"inverse microinertia Θ⁻¹; ω relaxes towards half the vorticity at the rate 2Θ⁻¹ν_t (1/s), which must stay below 1/Δt"`
	OmegaSmoothing float64 `json:"omegaSmoothing" unit:"1" default:"0.05" range:"[0,1]" doc:"angular viscosity as an XSPH smoothing of ω: the fraction ε_ω of the neighbours' ω difference taken per step (SPlisHSPlasH's viscosityOmega × inertiaInverse)"`
}
