// Package components is sluice's data model (DESIGN §3): plain structs attached to entities.
// An entity is a body — a fluid block, a static wall — never a single particle; a body's
// particles are struct-of-arrays slices in its Particles component. Every parameter is declared
// once here with its JSON name, SI unit, default, range and doc (see package params).
package components

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice/params"
	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/dfsph"
	"github.com/sluicephysics/sluice/physics/iisph"
	"github.com/sluicephysics/sluice/physics/pf"
)

// Phase says how a body's particles are simulated.
type Phase uint8

const (
	// Fluid particles are simulated by the pressure solver (IISPH).
	Fluid Phase = iota
	// Boundary particles are wall samples (Akinci et al. 2012): static, or moved along a
	// scripted path by a Motion component.
	Boundary
	// Elastic particles are an elastic solid (Peer et al. 2018): dynamic SPH particles like
	// fluid ones, which the pressure solve keeps incompressible and in contact with everything
	// else, plus the implicit elastic forces of the ElasticSolve stage (Material.Elastic).
	Elastic
	// Elastoplastic particles are a point-based elastoplastic solid (Gerszewski et al. 2009):
	// dynamic SPH particles like fluid ones, plus the explicit elastoplastic forces of the
	// ElastoplasticForces stage (Material.Elastoplastic).
	Elastoplastic
	// Flip particles are a FLIP liquid (dissertation ch. 3, package physics/flip) on its own
	// MAC grid (FlipLiquid): not packed into the SPH sets, stepped by the FlipStep stage.
	Flip
	// Cloth particles are the vertices of a triangle-mesh sheet (Material.Cloth): dynamic
	// particles packed with the fluid, held together by the distance constraints of
	// Projective Dynamics in the Projective Fluids solve (physics/pf, springs.go) and kept
	// apart from other particles and from walls by its contacts, so water and cloth push each
	// other through one system.
	// They need solver.pressureSolver "pf".
	Cloth
)

// Dynamic reports whether the phase's particles are integrated by the solver (packed into
// physics.FluidSet): fluid, elastic, elastoplastic and cloth, not boundary.
func (p Phase) Dynamic() bool {
	return p == Fluid || p == Elastic || p == Elastoplastic || p == Cloth
}

// String returns the phase name used in stats and exports.
func (p Phase) String() string {
	switch p {
	case Fluid:
		return "fluid"
	case Boundary:
		return "boundary"
	case Elastic:
		return "elastic"
	case Elastoplastic:
		return "elastoplastic"
	case Flip:
		return "flip"
	case Cloth:
		return "cloth"
	}
	return fmt.Sprintf("phase(%d)", uint8(p))
}

// Body identifies a body. ID orders bodies deterministically (queries are sorted by it).
type Body struct {
	ID    uint32
	Name  string
	Phase Phase
}

// Material is what a body is made of. The fields used depend on Phase.
type Material struct {
	Preset      string  `json:"preset,omitempty" doc:"material preset this material starts from (sluice presets lists them: water, honey, slime, …; a scene-local presets/NAME.json or a path ending in .json overrides the shipped one); the keys given next to it win"`
	RestDensity float64 `json:"density" unit:"kg/m^3" default:"1000" range:"[1,100000]" doc:"rest density ρ0"`
	Viscosity   float64 `json:"viscosity" unit:"m^2/s" default:"0.01" range:"[0,1000]" doc:"kinematic viscosity ν of the Laplacian viscosity force; the default 0.01 (SPlisHSPlasH's dam-break value) damps the sub-resolution noise of coarse (cm-scale) particles, physical water is 1e-6"`
	// SurfaceTension applies to fluid bodies (physics/tension).
	SurfaceTension float64 `json:"surfaceTension" unit:"m^4/(kg s^2)" default:"0" range:"[0,100]" doc:"coefficient γ of Akinci et al. 2013's surface tension (cohesion Eq. 1-2 and curvature Eq. 4, physics/tension), the value SPlisHSPlasH's Akinci 2013 method calls surfaceTension; not the physical σ in N/m (docs/surface_tension.md gives the measured effect); fluid bodies (plain and goo) only, between particles that both have γ > 0; 0 = off"`
	// WallAdhesion applies to fluid bodies (physics/tension/adhesion.go).
	WallAdhesion float64 `json:"wallAdhesion" unit:"m^4/(kg s^2)" default:"0" range:"[0,100]" doc:"coefficient β of Akinci et al. 2013's adhesion of this fluid to walls and rigid bodies (Eq. 6-7, physics/tension): each boundary sample between h/2 and h from a particle pulls it towards itself, and the sample's body feels the reaction; the value SPlisHSPlasH's Akinci 2013 method calls surfaceTensionBoundary; fluid bodies (plain and goo; goo also sticks through its own connections where the wall has adhesion); 0 = off"`
	// Viscoelastic applies to fluid bodies.
	Viscoelastic Viscoelastic `json:"viscoelastic" doc:"viscoelastic goo (Takahashi et al. 2015)"`
	// Micropolar and AirDrag apply to fluid bodies (components/vortdrag.go).
	Micropolar Micropolar `json:"micropolar" doc:"micropolar vorticity (Bender et al. 2017/2019): per-particle angular velocity that restores the vorticity SPH diffuses; see docs/vorticity_drag.md"`
	AirDrag    float64    `json:"airDrag" unit:"1" default:"0" range:"[0,1000]" doc:"factor c of the air drag of Gissler et al. 2017 (still air, droplet drag coefficient and occluded area per particle; 1 = the paper's physical drag); 0 = off; see docs/vorticity_drag.md"`
	// Elastic applies to elastic bodies.
	Elastic ElasticSolid `json:"elastic" doc:"elastic solid (Peer et al. 2018); used by elastic bodies only"`
	// Elastoplastic applies to elastoplastic bodies.
	Elastoplastic ElastoplasticSolid `json:"elastoplastic" doc:"point-based elastoplastic solid (Gerszewski et al. 2009): dough, clay, snow; used by elastoplastic bodies only"`
	// Cloth applies to cloth bodies.
	Cloth ClothSheet `json:"cloth" doc:"cloth sheet (Projective Dynamics springs in the Projective Fluids solve); used by cloth bodies only"`
	// Surface applies to boundary bodies.
	Surface
	// Color is only for drawing.
	Color mgl64.Vec3 `json:"color" unit:"1" default:"[0,0,0]" range:"[0,1]" doc:"the body's colour in the view, linear RGB with each channel in 0–1 (the presets give water, honey, slime, … their own); [0, 0, 0]: the phase's colour"`
}

// ElasticSolid is the material of an elastic body: corotated linear elasticity with shear
// modulus G and bulk modulus K (Peer et al. 2018, Eq. 8), or Young's modulus E and Poisson's
// ratio ν instead (E > 0 takes precedence). Setting both moduli to 0 at run time melts the
// body into a liquid; raising them again pulls it back to its rest shape (the paper's §5.5).
type ElasticSolid struct {
	ShearModulus  float64    `json:"shearModulus" unit:"Pa" default:"100000" range:"[0,1e12]" doc:"shear modulus G of Eq. 8 (ignored when youngsModulus > 0)"`
	BulkModulus   float64    `json:"bulkModulus" unit:"Pa" default:"100000" range:"[0,1e12]" doc:"bulk modulus K of Eq. 8 (ignored when youngsModulus > 0)"`
	YoungsModulus float64    `json:"youngsModulus" unit:"Pa" default:"0" range:"[0,1e12]" doc:"Young's modulus E; when above 0 it sets G = E/(2(1+ν)) and K = E/(3(1−2ν)) with poissonsRatio"`
	PoissonsRatio float64    `json:"poissonsRatio" unit:"1" default:"0.3" range:"(-1,0.5)" doc:"Poisson's ratio ν, used with youngsModulus"`
	Alpha         float64    `json:"alpha" unit:"1" default:"0" range:"[0,10]" doc:"zero-energy-mode suppression factor α (Ganzenmüller 2015; the paper's cloth uses it), 0 = off"`
	MaxIterations int        `json:"maxIterations" default:"100" range:"[1,100000]" doc:"most CG iterations per elastic solve"`
	MaxError      float64    `json:"maxError" unit:"m/s" default:"0.001" range:"[1e-12,1]" doc:"CG stop: average per-particle residual of the velocity system (Eq. 24), the paper's 1e-3"`
	RelativeError float64    `json:"relativeError" unit:"1" default:"0.001" range:"[1e-12,1]" doc:"CG stop: relative residual ‖b − Av‖/‖b‖ of the velocity system (Eq. 24); the solve stops when both this and maxError hold, so slow bodies are solved as accurately as fast ones"`
	PinnedMin     mgl64.Vec3 `json:"pinnedMin" unit:"m" default:"[0,0,0]" range:"[-1e6,1e6]" doc:"lower corner of the box whose particles are held fixed (pinnedMin = pinnedMax: none)"`
	PinnedMax     mgl64.Vec3 `json:"pinnedMax" unit:"m" default:"[0,0,0]" range:"[-1e6,1e6]" doc:"upper corner of the pinned box"`
	NoCorrection  bool       `json:"noKernelCorrection" default:"false" doc:"leave out the kernel-gradient correction L_i (Eq. 1-2); for demonstrating why it exists: rotations then read as strain"`
}

// ClothSheet is the material of a cloth body: its mass per area and the weights of the
// Projective Dynamics distance constraints (Bouaziz et al. 2014, Sec. 5) along the mesh edges
// (stretch) and across the edges shared by two triangles (bending), as physics/pf's springs
// take them. A cloth body's particle masses come from arealDensity (the lumped area of each
// vertex, a third of its triangles'), not from the material's density.
type ClothSheet struct {
	ArealDensity     float64 `json:"arealDensity" unit:"kg/m^2" default:"0.3" range:"(0,1000]" doc:"mass per area σ; a vertex carries σ times a third of the area of its triangles"`
	StretchStiffness float64 `json:"stretchStiffness" unit:"N/m" default:"10000" range:"(0,1e12]" doc:"weight w of every edge's distance constraint: the spring constant of one edge (a stretched edge of rest length L pulls with w·(l − L))"`
	BendStiffness    float64 `json:"bendStiffness" unit:"N/m" default:"10" range:"(0,1e12]" doc:"weight w of the distance constraint joining the two vertices opposite an edge shared by two triangles (bending resistance; on a flat sheet it acts to second order in the fold angle)"`
}

// Moduli returns the shear and bulk moduli (Pa): from E and ν when E > 0, else G and K.
func (e *ElasticSolid) Moduli() (g, k float64) {
	if e.YoungsModulus > 0 {
		nu := e.PoissonsRatio
		return e.YoungsModulus / (2 * (1 + nu)), e.YoungsModulus / (3 * (1 - 2*nu))
	}
	return e.ShearModulus, e.BulkModulus
}

// Pins reports whether the material pins a box of particles, and whether x is inside it.
func (e *ElasticSolid) Pins() bool { return e.PinnedMin != e.PinnedMax }

// Pinned reports whether x lies in the pinned box (bounds included).
func (e *ElasticSolid) Pinned(x mgl64.Vec3) bool {
	if !e.Pins() {
		return false
	}
	for d := 0; d < 3; d++ {
		if x[d] < e.PinnedMin[d] || x[d] > e.PinnedMax[d] {
			return false
		}
	}
	return true
}

// Validate checks the ranges and that a pinned box is not inverted.
func (e *ElasticSolid) Validate(path string) error {
	if err := params.Validate(e, path); err != nil {
		return err
	}
	for d := 0; d < 3 && e.Pins(); d++ {
		if e.PinnedMax[d] < e.PinnedMin[d] {
			return &params.Error{Path: pathJoin(path, fmt.Sprintf("pinnedMax[%d]", d)), Msg: fmt.Sprintf("%g m is below pinnedMin[%d] = %g m", e.PinnedMax[d], d, e.PinnedMin[d])}
		}
	}
	return nil
}

// Surface is how a wall or a rigid body treats the fluid and goo touching it; a group
// embedded wherever walls are declared (materials, scene walls, rigid bodies) so its keys are
// declared once.
type Surface struct {
	Adhesion float64 `json:"adhesion" unit:"1" default:"0" range:"[0,1]" doc:"walls: c_k of goo connections to this wall (Takahashi 2015, Eq. 10; the pair's α, β, γ and w are the goo particle's); 0 = goo does not stick to it"`
	Drag     float64 `json:"drag" unit:"m^2/s" default:"0" range:"[0,10]" doc:"walls: boundary viscosity ν_b, the fluid's friction along this surface (the Laplacian viscosity with the samples' volumes Ψ_b/ρ_i, after Akinci et al. 2012 Sec. 4.2); its reaction acts on rigid bodies; 0 = free slip"`
}

// Viscoelastic makes a fluid body viscoelastic goo: its particles are joined by pairwise
// connections that pull stretched pairs back through velocity corrections added to v* before
// the pressure solve (Takahashi et al. 2015, §3.2), so the IISPH solve still keeps the volume.
// Connections form between goo particles closer than α·h and break beyond β·h (Algorithm 1);
// c weakens towards l while a connection is stretched beyond γ·h (plasticity, Eq. 7). The
// defaults are the paper's (§3.3). c acts per substep: like every position-based method, the
// same c is stiffer at smaller substeps (the paper's §5).
type Viscoelastic struct {
	Enabled bool    `json:"enabled" default:"false" doc:"true: the body is goo (connections and velocity corrections); false: plain fluid, the other keys are ignored"`
	C       float64 `json:"c" unit:"1" default:"0.001" range:"[0,1]" doc:"velocity correction coefficient c of Eq. 6: the fraction of a connection's stretch D_ij corrected per substep (higher = stiffer; with ~25 connections a particle 0.1 is stable, 0.3 gains energy)"`
	L       float64 `json:"l" unit:"1" default:"0.0001" range:"[0,1]" doc:"lower limit l of c under plastic weakening (Eq. 7); at most c"`
	W       float64 `json:"w" unit:"1/s" default:"0.001" range:"[0,1000]" doc:"weakening speed w of Eq. 7: c drops by Δt·w per substep for every connection stretched beyond γ·h (0 = no plasticity)"`
	Gamma   float64 `json:"gamma" unit:"1" default:"1.01" range:"[0,100]" doc:"yield criterion γ of Eq. 7: a connection weakens c while D_ij/h exceeds γ"`
	Alpha   float64 `json:"alpha" unit:"1" default:"1" range:"[0,100]" doc:"connection distance α of Algorithm 1: pairs closer than α·h connect (pairs are found within the support h, so α above 1 acts as 1); above 0 for goo"`
	Beta    float64 `json:"beta" unit:"1" default:"2" range:"[0,100]" doc:"break distance β of Algorithm 1: connections longer than β·h break; must exceed alpha"`
}

// Validate checks the ranges and the relations the paper requires (0 ≤ l ≤ c, α < β).
func (v *Viscoelastic) Validate(path string) error {
	if err := params.Validate(v, path); err != nil {
		return err
	}
	if v.Alpha <= 0 {
		return &params.Error{Path: pathJoin(path, "alpha"), Msg: fmt.Sprintf("%g must be above 0 (the paper requires 0 < α)", v.Alpha)}
	}
	if v.L > v.C {
		return &params.Error{Path: pathJoin(path, "l"), Msg: fmt.Sprintf("%g exceeds c = %g (the paper requires 0 ≤ l ≤ c)", v.L, v.C)}
	}
	if v.Beta <= v.Alpha {
		return &params.Error{Path: pathJoin(path, "beta"), Msg: fmt.Sprintf("%g must exceed alpha = %g (connections would break as they form)", v.Beta, v.Alpha)}
	}
	return nil
}

// DefaultMaterial is water.
func DefaultMaterial() Material {
	var m Material
	params.Defaults(&m)
	return m
}

// Validate checks the ranges.
func (m *Material) Validate(path string) error {
	if err := params.Validate(m, path); err != nil {
		return err
	}
	if err := m.Elastic.Validate(pathJoin(path, "elastic")); err != nil {
		return err
	}
	if err := m.Elastoplastic.Validate(pathJoin(path, "elastoplastic")); err != nil {
		return err
	}
	if m.Viscoelastic.Enabled {
		return m.Viscoelastic.Validate(pathJoin(path, "viscoelastic"))
	}
	return nil
}

// MotionKey is one piece of a kinematic body's path: the body moves with Velocity until the
// simulated time Until (then with the next key's velocity; after the last key it rests).
type MotionKey struct {
	Until    float64    `json:"until" unit:"s" required:"true" range:"[0,1e6]" doc:"end time of this piece of the path"`
	Velocity mgl64.Vec3 `json:"velocity" unit:"m/s" default:"[0,0,0]" range:"[-1e4,1e4]" doc:"velocity of the body during this piece"`
}

// Motion makes a boundary body kinematic: it translates along a scripted piecewise-constant
// velocity path (a moving board, a piston, a paddle). Fluid sees the wall's velocity in the
// pressure solve (the v_b term of Ihmsen et al. 2014, Sec. 4).
type Motion struct {
	Path []MotionKey
}

// Validate checks each key and that the times increase.
func (m *Motion) Validate(path string) error {
	prev := 0.0
	for i := range m.Path {
		p := fmt.Sprintf("%s[%d]", path, i)
		if err := params.Validate(&m.Path[i], p); err != nil {
			return err
		}
		if i > 0 && m.Path[i].Until <= prev {
			return &params.Error{Path: p + ".until", Msg: fmt.Sprintf("%g s must exceed the previous key's %g s", m.Path[i].Until, prev)}
		}
		prev = m.Path[i].Until
	}
	return nil
}

// Displacement returns ∫_0^t v dt of the path: where the body is at time t relative to where
// it was at time 0. Integrating the path exactly (instead of v·Δt per substep) keeps a key's
// end time from depending on the substep lengths.
func (m *Motion) Displacement(t float64) mgl64.Vec3 {
	var d mgl64.Vec3
	t0 := 0.0
	for _, k := range m.Path {
		if t <= t0 {
			break
		}
		span := min(t, k.Until) - t0
		d = d.Add(k.Velocity.Mul(span))
		t0 = k.Until
	}
	return d
}

// Particles holds a body's particles as struct-of-arrays slices; index i is the same particle
// in every slice, and indices stay stable across steps (the solver sorts its own packed copy).
// Boundary bodies use X only.
//
// M is state, not derived: each dynamic particle's mass is set once, when the particle is made,
// to ρ0·V0 (the material's rest density times the particle volume at rest), and the solver
// reads it from here every step; removals (reported in the step statistics) are the only way a
// step loses mass. MassDensity is the rest density the masses were made with: when a game or a
// hot reload edits the material's rest density between steps, the next step rescales the
// body's masses by RestDensity/MassDensity, so every particle keeps its rest volume V0 (the
// pressure solve's equal-volume formulation relies on m = ρ0·V0) and the body becomes heavier
// or lighter rather than compressing.
type Particles struct {
	X           []mgl64.Vec3 // position (m)
	V           []mgl64.Vec3 // velocity (m/s)
	Density     []float64    // SPH density of the last step (kg/m³)
	Pressure    []float64    // pressure of the last step (Pa); warm-starts the next solve
	M           []float64    // mass (kg) of each dynamic particle, set at creation (ρ0·V0)
	MassDensity float64      // rest density ρ0 (kg/m³) the masses M correspond to
}

// Len returns the number of particles.
func (p *Particles) Len() int { return len(p.X) }

// Solver holds the world's solver and time-stepping settings, a resource of the world.
type Solver struct {
	ParticleRadius  float64    `json:"particleRadius" unit:"m" default:"0.025" range:"(0,10]" doc:"particle radius r: spacing 2r, kernel support radius 4r"`
	Kernel          string     `json:"kernel" default:"cubic" doc:"smoothing kernel: cubic (cubic spline) or wendland (Wendland C2)"`
	ParticleVolume  float64    `json:"particleVolume" unit:"(2r)^d" default:"0" range:"[0,1.5]" doc:"volume V of a fluid-phase particle (water, goo) as a fraction of (2r)³ ((2r)² in a 2D world), which sets its mass ρ0·V; 0 = the lattice volume V0 = 1/Σ_j W(x_j) of the cubic lattice at spacing 2r (1.00003 for the cubic spline), at which a sampled block starts at rest density; SPlisHSPlasH's scenes import with its 0.8, so their water starts 20 % below rest density as in the reference; other phases keep V0; 0 or [0.5, 1.5]"`
	Dimensions      int        `json:"dimensions" default:"3" range:"[2,3]" doc:"3, or 2 for a planar world in the x–y plane at z = 0 (SPlisHSPlasH's sim2D): kernels normalised in 2D, particle areas instead of volumes, masses per metre of depth; fluid bodies (emitters included), elastic bodies, box walls and wall meshes (their sections with the plane) only (docs/2d.md)"`
	WallModel       string     `json:"wallModel" default:"particles" doc:"how the fluid meets static walls: particles (the walls' samples, Akinci et al. 2012) or volumeMaps (each wall's signed distance and volume map, one virtual boundary particle per fluid particle near it, Bender et al. 2019; walls without a mesh keep their samples; not with pressureSolver pf)"`
	WallMapVolume   float64    `json:"wallMapVolume" unit:"1" default:"0.8" range:"(0,1]" doc:"volume maps (wallModel volumeMaps): the factor f on a map's boundary volume V = f·∫γ(φ) over the support (Bender et al. 2019); 0.8 is the reference implementation's, with which the wall's pressure force carries a resting column's weight and a resting layer stands volumemap.RestDistance (2.33 r) off the surface"`
	WallPressure    string     `json:"wallPressure" default:"mirror" doc:"pressure of boundary samples in the pressure solve: mirror (the particle's own, one-sided force; Akinci 2012, Ihmsen 2014) or extrapolate (hydrostatic extrapolation from the particle, symmetric force; Adami 2012 Eq. 27) with rigid bodies' sample volumes capped at the particle volume: extrapolate gives the hydrostatic pressure next to walls (see package iisph)"`
	Gravity         mgl64.Vec3 `json:"gravity" unit:"m/s^2" default:"[0,-9.81,0]" range:"[-10000,10000]" doc:"gravitational acceleration, y up"`
	MaxError        float64    `json:"maxError" unit:"1" default:"0.001" range:"[1e-6,0.1]" doc:"IISPH and DFSPH stop criterion η: average (predicted) density error as a fraction of ρ0 (0.001 = 0.1 %)"`
	MinIterations   int        `json:"minIterations" default:"2" range:"[1,1000]" doc:"minimum pressure iterations per solve (the paper uses 2)"`
	MaxIterations   int        `json:"maxIterations" default:"100" range:"[1,100000]" doc:"maximum pressure iterations per solve"`
	WarmStart       float64    `json:"warmStart" unit:"1" default:"0.5" range:"[0,1]" doc:"IISPH: the pressure solve starts from this fraction of the last substep's pressures (Ihmsen 2014, Algorithm 1: 0.5)"`
	MaxErrorPeak    float64    `json:"maxErrorPeak" unit:"1" default:"0" range:"[0,0.5]" doc:"IISPH: when positive, the solve also runs until every particle's predicted density error is at most this (a fraction of ρ0; compression, and expansion where the particle has pressure; a per-particle stop as in PCISPH, Solenthaler 2009); 0 stops on the average maxError alone (Ihmsen 2014)"`
	Chebyshev       float64    `json:"chebyshev" unit:"1" default:"0" range:"[0,1)" doc:"IISPH: spectral radius ρ of the Chebyshev acceleration of the pressure solve's relaxed Jacobi iteration (Wang 2015, Eq. 12), e.g. 0.85 with maxErrorPeak 0.01 for plain water; 0 = off (Ihmsen 2014, Algorithm 1)"`
	ChebyshevDelay  int        `json:"chebyshevDelay" default:"4" range:"[1,1000]" doc:"IISPH: plain relaxed Jacobi sweeps of each solve before the Chebyshev extrapolation starts (Wang 2015's delay S); fewer extrapolate the first sweeps, which still remove the rough error of the substep's new source, and made resting elastoplastic bodies unstable at 1"`
	Omega           float64    `json:"omega" unit:"1" default:"0.5" range:"(0,1]" doc:"relaxation factor ω of the relaxed Jacobi iteration of IISPH and DFSPH (IISPH paper: 0.5)"`
	CFL             float64    `json:"cfl" unit:"1" default:"0.4" range:"(0,1]" doc:"CFL factor λ in dt = λ·2r/v_max"`
	GravityCFL      float64    `json:"gravityCFL" unit:"1" default:"0.1" range:"(0,1]" doc:"gravity step condition λ_g in dt ≤ λ_g·√(2r/|g|), Monaghan's (1992) force condition for the body force: the motion gravity gives the water relative to a floor within one substep, g·dt², stays λ_g² of the spacing 2r (1 %), which the pressure solve's linear density prediction resolves; applies in worlds with a fluid-phase body (water, goo), and at dtMax 5 ms binds only for r below 1.2 cm"`
	DtMin           float64    `json:"dtMin" unit:"s" default:"1e-5" range:"(0,1]" doc:"smallest substep"`
	DtMax           float64    `json:"dtMax" unit:"s" default:"0.005" range:"(0,1]" doc:"largest substep"`
	AlignFrames     bool       `json:"alignFrames" default:"true" doc:"true: every Step ends exactly at its frame's time, in the fewest equal substeps within the step limits (a 1/60 s frame at a 5 ms limit: four of 4.17 ms); false: the substeps take the full limit and run on across frames, a Step stopping before a substep that would pass its frame's end, so the world's time trails the frames by less than one substep (World.Behind) and a run takes about 1/Δt substeps per second instead of each frame's count rounded up (as SPlisHSPlasH steps; its scenes import with false)"`
	XSPH            float64    `json:"xsph" unit:"1" default:"0" range:"[0,1]" doc:"XSPH velocity smoothing factor ε (0 = off)"`
	BoundaryLayers  int        `json:"boundaryLayers" default:"2" range:"[1,4]" doc:"sample layers of every wall (Akinci 2012 uses one; two keep fast splashes from squeezing through)"`
	RigidIterations int        `json:"rigidIterations" default:"10" range:"[1,1000]" doc:"rigid-body contact solver: velocity iterations per substep (more: stiffer stacks)"`
	RigidRelax      int        `json:"rigidRelax" default:"4" range:"[0,1000]" doc:"rigid-body contact solver: iterations after the position update that remove the push-out velocity"`
	RigidSleepTime  float64    `json:"rigidSleepTime" unit:"s" default:"0.5" range:"[0,1e6]" doc:"a group of touching or jointed rigid bodies that stays at rest (surface speeds below 1 cm/s) this long, held by a wall, a static body or a joint (not by the water alone: floating bodies stay awake), sleeps: no integration or contact search until a contact, a push or the water disturbs it; 0: never"`
	SortEvery       int        `json:"sortEvery" default:"1" range:"[1,1000000]" doc:"sort of the particle arrays into the grid's cell order every k substeps (memory locality; the neighbour search gathers its candidates once per run of points in one cell)"`
	DomainMin       mgl64.Vec3 `json:"domainMin" unit:"m" default:"[0,0,0]" range:"[-1e6,1e6]" doc:"lower corner of the simulation domain; particles leaving it are removed and reported (domainMin = domainMax = 0: automatic, the bodies' bounds widened on every side by their largest size, at least 10 support radii)"`
	DomainMax       mgl64.Vec3 `json:"domainMax" unit:"m" default:"[0,0,0]" range:"[-1e6,1e6]" doc:"upper corner of the simulation domain"`

	// the viscosity integration (explicit Laplacian or the implicit solve of Weiler et al. 2018)
	ViscositySolver        string  `json:"viscositySolver" default:"explicit" doc:"integration of the viscosity and the walls' drag: explicit (the Laplacian viscosity force in the advection; the substep is held below its stability limit), implicit (Weiler et al. 2018: backward Euler solved by block-Jacobi CG, no step limit; physics/viscosity) or auto (implicit in the substeps where the explicit limit would cut the step below the CFL step, explicit otherwise)"`
	ViscosityMaxError      float64 `json:"viscosityMaxError" unit:"1" default:"0.001" range:"[1e-12,0.5]" doc:"implicit viscosity: the CG stops when the relative residual |M(v* − A v)|/|M v*| falls to this"`
	ViscosityMaxIterations int     `json:"viscosityMaxIterations" default:"100" range:"[1,100000]" doc:"implicit viscosity: most CG iterations per solve"`

	// the pressure solver and the settings of Projective Fluids
	PressureSolver string `json:"pressureSolver" default:"iisph" doc:"pressure solver: iisph (Ihmsen et al. 2014), dfsph (Divergence-Free SPH, Bender & Koschier 2015/2017; uses maxError, minIterations, maxIterations and maxDivergenceError) or pf (Projective Fluids, Weiler et al. 2016)"`
	// MaxDivergenceError is DFSPH's η_v (SPlisHSPlasH's maxErrorV, there in percent).
	MaxDivergenceError float64 `json:"maxDivergenceError" unit:"1" default:"0.001" range:"[1e-6,0.1]" doc:"DFSPH divergence solve stop criterion η_v: Δt times the average compressing velocity divergence Dρ/Dt, as a fraction of ρ0 (the compression the velocities would cause over one substep; 0.001 = 0.1 %)"`
	PFStiffness        float64 `json:"pfStiffness" unit:"N/m" default:"1e6" range:"(0,1e12]" doc:"Projective Fluids: stiffness w of every density constraint (paper: 10⁶ range)"`
	PFMaxIterations    int     `json:"pfMaxIterations" default:"30" range:"[1,1000]" doc:"Projective Fluids: most local/global iterations per substep (paper: 30)"`
	PFMaxCGIterations  int     `json:"pfMaxCGIterations" default:"100" range:"[1,10000]" doc:"Projective Fluids: most CG iterations per global step"`
	PFTolerance        float64 `json:"pfTolerance" unit:"1" default:"1e-5" range:"(0,0.1]" doc:"Projective Fluids: stop when the RMS of Δt² r/m (r the residual force of the global system) falls below this fraction of the spacing 2r"`
	PFChebyshev        float64 `json:"pfChebyshev" unit:"1" default:"0" range:"[0,1)" doc:"Projective Fluids: spectral radius ρ of the Chebyshev acceleration of the local/global iteration (Wang 2015); 0 = off"`

	Diffuse Diffuse `json:"diffuse" doc:"spray, foam and air bubbles (Ihmsen et al. 2012), a post-process of every step; off by default"`
}

// DefaultSolver returns the declared defaults.
func DefaultSolver() Solver {
	var s Solver
	params.Defaults(&s)
	return s
}

// Validate checks every field's range and the relations between fields.
func (s *Solver) Validate(path string) error {
	if err := params.Validate(s, path); err != nil {
		return err
	}
	if _, err := physics.ParseKernel(s.Kernel); err != nil {
		return &params.Error{Path: pathJoin(path, "kernel"), Msg: err.Error()}
	}
	if s.WallPressure != "mirror" && s.WallPressure != "extrapolate" {
		return &params.Error{Path: pathJoin(path, "wallPressure"), Msg: fmt.Sprintf("unknown mode %q (allowed: mirror, extrapolate)", s.WallPressure)}
	}
	if s.WallModel != "particles" && s.WallModel != "volumeMaps" {
		return &params.Error{Path: pathJoin(path, "wallModel"), Msg: fmt.Sprintf("%q is not a wall model (allowed: particles, volumeMaps)", s.WallModel)}
	}
	if s.PressureSolver != "iisph" && s.PressureSolver != "pf" && s.PressureSolver != "dfsph" {
		return &params.Error{Path: pathJoin(path, "pressureSolver"), Msg: fmt.Sprintf("%q is not a pressure solver (allowed: iisph, pf, dfsph)", s.PressureSolver)}
	}
	if s.PressureSolver == "pf" && s.WallModel == "volumeMaps" {
		return &params.Error{Path: pathJoin(path, "wallModel"), Msg: `"volumeMaps" is not available with pressureSolver pf (allowed: particles): the Projective Fluids solve does not hold the water correctly against volume-mapped walls yet`}
	}
	if s.PressureSolver == "dfsph" && s.WallPressure != "mirror" {
		return &params.Error{Path: pathJoin(path, "wallPressure"), Msg: fmt.Sprintf("%q is not available with pressureSolver dfsph (allowed: mirror; DFSPH iterates pressure increments, which a hydrostatic extrapolation of the full pressure does not split into)", s.WallPressure)}
	}
	if s.ViscositySolver != "explicit" && s.ViscositySolver != "implicit" && s.ViscositySolver != "auto" {
		return &params.Error{Path: pathJoin(path, "viscositySolver"), Msg: fmt.Sprintf("%q is not a viscosity solver (allowed: explicit, implicit, auto)", s.ViscositySolver)}
	}
	if s.Dimensions == 2 {
		if s.Gravity[2] != 0 {
			return &params.Error{Path: pathJoin(path, "gravity[2]"), Msg: fmt.Sprintf("%g m/s² in a 2D world (dimensions 2): the world is the x–y plane, so gravity's z component must be 0", s.Gravity[2])}
		}
		if s.PressureSolver == "pf" {
			return &params.Error{Path: pathJoin(path, "pressureSolver"), Msg: `"pf" is not available in a 2D world (dimensions 2; allowed: iisph, dfsph)`}
		}
		if s.Diffuse.Enabled {
			return &params.Error{Path: pathJoin(path, "diffuse.enabled"), Msg: "diffuse particles are not available in a 2D world (dimensions 2)"}
		}
	}
	if s.ParticleVolume != 0 && s.ParticleVolume < 0.5 {
		return &params.Error{Path: pathJoin(path, "particleVolume"), Msg: fmt.Sprintf("%g (2r)^%d: a water particle's volume must be 0 (the lattice volume) or in [0.5, 1.5] of (2r)^%d", s.ParticleVolume, s.Dimensions, s.Dimensions)}
	}
	if s.DtMin > s.DtMax {
		return &params.Error{Path: pathJoin(path, "dtMin"), Msg: fmt.Sprintf("%g s exceeds dtMax %g s", s.DtMin, s.DtMax)}
	}
	if d := &s.Diffuse; d.Enabled {
		for _, c := range []struct {
			lo, hi    float64
			key, unit string
		}{{d.TrappedMin, d.TrappedMax, "trappedAir", "m/s"}, {d.CrestMin, d.CrestMax, "waveCrest", ""}, {d.EnergyMin, d.EnergyMax, "energy", "J/kg"}} {
			if !(c.hi > c.lo) {
				return &params.Error{Path: pathJoin(path, "diffuse."+c.key+"Max"), Msg: fmt.Sprintf("%g %s must exceed %sMin = %g", c.hi, c.unit, c.key, c.lo)}
			}
		}
		if d.LifetimeMax < d.LifetimeMin {
			return &params.Error{Path: pathJoin(path, "diffuse.lifetimeMax"), Msg: fmt.Sprintf("%g s is below lifetimeMin = %g s", d.LifetimeMax, d.LifetimeMin)}
		}
		if d.BubbleAbove < d.SprayBelow {
			return &params.Error{Path: pathJoin(path, "diffuse.bubbleAbove"), Msg: fmt.Sprintf("%d is below sprayBelow = %d", d.BubbleAbove, d.SprayBelow)}
		}
	}
	if s.MinIterations > s.MaxIterations {
		return &params.Error{Path: pathJoin(path, "minIterations"), Msg: fmt.Sprintf("%d exceeds maxIterations %d", s.MinIterations, s.MaxIterations)}
	}
	auto := s.DomainMin == (mgl64.Vec3{}) && s.DomainMax == (mgl64.Vec3{})
	for d := 0; d < 3 && !auto; d++ {
		if s.DomainMax[d] <= s.DomainMin[d] {
			return &params.Error{Path: pathJoin(path, fmt.Sprintf("domainMax[%d]", d)), Msg: fmt.Sprintf("%g m must exceed domainMin[%d] = %g m", s.DomainMax[d], d, s.DomainMin[d])}
		}
	}
	return nil
}

// SmoothingKernel returns the world's kernel: the kind the settings name (a validated name;
// an unknown one gives the cubic spline) with support radius 4r, normalised in the world's
// dimensions.
func (s *Solver) SmoothingKernel() physics.Kernel {
	kind, _ := physics.ParseKernel(s.Kernel)
	if s.Dimensions == 2 {
		return physics.NewKernel2D(kind, s.SupportRadius())
	}
	return physics.NewKernel(kind, s.SupportRadius())
}

// IISPH returns the pressure solver's parameters.
func (s *Solver) IISPH() iisph.Params {
	return iisph.Params{MaxError: s.MaxError, MinIterations: s.MinIterations, MaxIterations: s.MaxIterations, Omega: s.Omega, WarmStart: s.WarmStart, MaxErrorPeak: s.MaxErrorPeak, Chebyshev: s.Chebyshev, ChebyshevDelay: s.ChebyshevDelay, Gravity: s.Gravity, Extrapolate: s.WallPressure == "extrapolate"}
}

// DFSPH returns the Divergence-Free SPH solver's parameters: η, the iteration bounds and the
// relaxation ω of IISPH (the bounds for both solves; the divergence solve makes at least one
// correction, as in the paper) and η_v.
func (s *Solver) DFSPH() dfsph.Params {
	return dfsph.Params{MaxError: s.MaxError, MaxDivergenceError: s.MaxDivergenceError, MinIterations: s.MinIterations, MaxIterations: s.MaxIterations, MinDivIterations: 1, MaxDivIterations: s.MaxIterations, Divergence: true, Omega: s.Omega}
}

// PF returns the Projective Fluids solver's parameters.
func (s *Solver) PF() pf.Params {
	return pf.Params{Stiffness: s.PFStiffness, MaxIterations: s.PFMaxIterations, MaxCGIterations: s.PFMaxCGIterations, Tolerance: s.PFTolerance, Chebyshev: s.PFChebyshev}
}

// Spacing is the particle spacing 2r (m).
func (s *Solver) Spacing() float64 { return 2 * s.ParticleRadius }

// SupportRadius is the kernel support radius h = 4r (m), SPlisHSPlasH's convention: about 33
// neighbours per particle in 3D.
func (s *Solver) SupportRadius() float64 { return 4 * s.ParticleRadius }

func pathJoin(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// Emitter makes a fluid body grow from a nozzle: from Start to Stop it adds layers of
// particles on the spacing-2r lattice of the nozzle's cross-section, moving at Speed along
// Direction, one layer per 2r of travel, until Budget particles have been added. A box nozzle
// is Width × Height (Height along Up's part perpendicular to Direction), a circle nozzle has
// diameter Width.
type Emitter struct {
	Shape     string     `json:"shape" default:"box" doc:"nozzle shape: box (width × height) or circle (diameter width)"`
	Center    mgl64.Vec3 `json:"center" unit:"m" required:"true" range:"[-1e6,1e6]" doc:"centre of the nozzle, where the particles appear"`
	Direction mgl64.Vec3 `json:"direction" unit:"1" default:"[1,0,0]" range:"[-1e6,1e6]" doc:"emission direction (normalised; not zero)"`
	Up        mgl64.Vec3 `json:"up" unit:"1" default:"[0,1,0]" range:"[-1e6,1e6]" doc:"orients a box nozzle: its height runs along up's part perpendicular to direction (not parallel to direction); not used in a 2D world"`
	Width     float64    `json:"width" unit:"m" required:"true" range:"(0,1000]" doc:"box: extent across direction and up; circle: diameter (at least the spacing 2r)"`
	Height    float64    `json:"height" unit:"m" default:"0" range:"[0,1000]" doc:"box: extent along up (0: equal to width); must be 0 in a 2D world, where a nozzle is a line of width across direction"`
	Speed     float64    `json:"speed" unit:"m/s" required:"true" range:"(0,1000]" doc:"speed of the emitted particles"`
	Start     float64    `json:"start" unit:"s" default:"0" range:"[0,1e6]" doc:"time emission starts"`
	Stop      float64    `json:"stop" unit:"s" default:"1e6" range:"[0,1e6]" doc:"time emission stops (after start)"`
	Budget    int        `json:"budget" default:"100000" range:"[1,100000000]" doc:"most particles this emitter adds in all"`

	// Layers and Emitted count the layers and particles added so far, and Held is the time (s)
	// the nozzle has been blocked (see World.AddEmitter): the emitter's state, kept in
	// snapshots. Layer k leaves the nozzle at Start + Held + k·2r/Speed.
	Layers  int     `json:"-"`
	Emitted int     `json:"-"`
	Held    float64 `json:"-"`
}

// DefaultEmitter returns the declared defaults (a box nozzle emitting along +x from t = 0 with
// a budget of 100,000 particles); Center, Width and Speed, which have none, are zero and must be
// set.
func DefaultEmitter() Emitter {
	var e Emitter
	params.Defaults(&e)
	return e
}

// Active reports whether the body has an emitter (every body carries the component; a zero
// one, with no speed, is none).
func (e *Emitter) Active() bool { return e.Speed > 0 }

// Due returns the layers that have left the nozzle by time t (emission times before Stop):
// the schedule Start + Held + k·spacing/Speed is exact in k, so it does not depend on the
// frame lengths.
func (e *Emitter) Due(t, spacing float64) int {
	t0 := e.Start + e.Held
	if t < t0 {
		return 0
	}
	end := min(t, e.Stop)
	n := int(math.Floor((end-t0)*e.Speed/spacing)) + 1
	if last := e.LeaveTime(n-1, spacing); last >= e.Stop {
		n-- // a layer due exactly at Stop is not emitted
	}
	return max(n, 0)
}

// LeaveTime returns the time (s) layer k leaves the nozzle: Start + Held + k·spacing/Speed.
func (e *Emitter) LeaveTime(k int, spacing float64) float64 {
	return e.Start + e.Held + float64(k)*spacing/e.Speed
}

// Validate checks the ranges and the geometry: a non-zero direction, an up vector not parallel
// to it, stop after start, a known shape and a nozzle holding at least one particle at the
// given spacing.
func (e *Emitter) Validate(path string, spacing float64) error {
	if err := params.Validate(e, path); err != nil {
		return err
	}
	if e.Shape != "box" && e.Shape != "circle" {
		return &params.Error{Path: pathJoin(path, "shape"), Msg: fmt.Sprintf("%q is not a nozzle shape (box or circle)", e.Shape)}
	}
	if e.Direction.Len() == 0 {
		return &params.Error{Path: pathJoin(path, "direction"), Msg: "must not be zero"}
	}
	if _, _, ok := e.Frame(); !ok {
		return &params.Error{Path: pathJoin(path, "up"), Msg: fmt.Sprintf("%v is parallel to direction %v", e.Up, e.Direction)}
	}
	if e.Stop <= e.Start {
		return &params.Error{Path: pathJoin(path, "stop"), Msg: fmt.Sprintf("%g s must be after start %g s", e.Stop, e.Start)}
	}
	if len(e.Layer(spacing)) == 0 {
		return &params.Error{Path: pathJoin(path, "width"), Msg: fmt.Sprintf("%g m nozzle holds no particle at spacing %g m", e.Width, spacing)}
	}
	return nil
}

// ValidatePlanar checks the emitter for a 2D world (Solver.Dimensions 2) instead of Validate:
// the nozzle is a line across direction in the x–y plane (Line), so its centre and direction
// must lie in the plane, its height must be 0, and up is not used.
func (e *Emitter) ValidatePlanar(path string, spacing float64) error {
	if err := params.Validate(e, path); err != nil {
		return err
	}
	const plane = "in a 2D world (solver.dimensions 2)"
	switch {
	case e.Shape != "box" && e.Shape != "circle":
		return &params.Error{Path: pathJoin(path, "shape"), Msg: fmt.Sprintf("%q is not a nozzle shape (box or circle)", e.Shape)}
	case e.Center[2] != 0:
		return &params.Error{Path: pathJoin(path, "center"), Msg: fmt.Sprintf("%v: must lie in the x–y plane (z = 0) %s", e.Center, plane)}
	case e.Direction[2] != 0:
		return &params.Error{Path: pathJoin(path, "direction"), Msg: fmt.Sprintf("%v: must lie in the x–y plane (z = 0) %s", e.Direction, plane)}
	case e.Direction[0] == 0 && e.Direction[1] == 0:
		return &params.Error{Path: pathJoin(path, "direction"), Msg: "must not be zero"}
	case e.Height != 0:
		return &params.Error{Path: pathJoin(path, "height"), Msg: fmt.Sprintf("%g m: a nozzle %s is a line of width across direction; height must be 0", e.Height, plane)}
	case e.Stop <= e.Start:
		return &params.Error{Path: pathJoin(path, "stop"), Msg: fmt.Sprintf("%g s must be after start %g s", e.Stop, e.Start)}
	case len(e.Line(spacing)) == 0:
		return &params.Error{Path: pathJoin(path, "width"), Msg: fmt.Sprintf("%g m nozzle holds no particle at spacing %g m", e.Width, spacing)}
	}
	return nil
}

// Line returns the offsets from Center of one layer of particles of a nozzle in a 2D world:
// ⌊width/spacing⌋ points a spacing apart, centred, along ẑ × direction, the direction across
// the nozzle within the x–y plane (a box's width and a circle's diameter alike; up does not
// matter). SPlisHSPlasH's 2D emitters are such lines too (its sim2D turns every emitter into a
// box one particle wide).
func (e *Emitter) Line(spacing float64) []mgl64.Vec3 {
	u := e.LineAxis()
	if u.Len() == 0 || !(spacing > 0) {
		return nil
	}
	n := int(math.Floor(e.Width / spacing * (1 + 1e-9)))
	out := make([]mgl64.Vec3, n)
	for i := range out {
		out[i] = u.Mul((float64(i) - 0.5*float64(n-1)) * spacing)
	}
	return out
}

// LineAxis returns the unit direction a 2D world's nozzle line runs along, ẑ × direction
// (zero when the direction has no part in the x–y plane).
func (e *Emitter) LineAxis() mgl64.Vec3 {
	d := e.Direction
	u := mgl64.Vec3{-d[1], d[0], 0}
	if u.Len() == 0 {
		return u
	}
	return u.Normalize()
}

// Frame returns the nozzle's in-plane axes: u across (direction × up) and v along up's part
// perpendicular to direction; ok is false when up is parallel to direction.
func (e *Emitter) Frame() (u, v mgl64.Vec3, ok bool) {
	d := e.Direction.Normalize()
	u = d.Cross(e.Up)
	if u.Len() < 1e-9*e.Up.Len() || e.Up.Len() == 0 {
		return u, v, false
	}
	u = u.Normalize()
	return u, u.Cross(d), true
}

// Layer returns the offsets from Center of one layer of particles: the points of the square
// lattice of the given spacing, centred on the nozzle, inside its cross-section.
func (e *Emitter) Layer(spacing float64) []mgl64.Vec3 {
	u, v, ok := e.Frame()
	if !ok || !(spacing > 0) {
		return nil
	}
	w, h := e.Width, e.Height
	if h == 0 || e.Shape == "circle" {
		h = w
	}
	// A nozzle of exactly k spacings holds k particles across, whatever the rounding of w/s.
	nu, nv := int(math.Floor(w/spacing*(1+1e-9))), int(math.Floor(h/spacing*(1+1e-9)))
	var out []mgl64.Vec3
	for i := 0; i < nu; i++ {
		for j := 0; j < nv; j++ {
			a := (float64(i) - 0.5*float64(nu-1)) * spacing
			b := (float64(j) - 0.5*float64(nv-1)) * spacing
			if e.Shape == "circle" && a*a+b*b > 0.25*w*w {
				continue
			}
			out = append(out, u.Mul(a).Add(v.Mul(b)))
		}
	}
	return out
}

// WallField is a static wall's implicit form for the fluid: at a point x, the signed distance
// phi to the wall's surface (positive on the fluid's side), the wall's boundary volume vol
// within the kernel support around x (Bender et al. 2019, the volume map), and the unit normal
// n pointing to the fluid; ok is false where the field is not defined (far from the wall).
// physics/volumemap builds one from a triangle mesh.
type WallField interface {
	At(x physics.Vec3) (phi, vol float64, n physics.Vec3, ok bool)
}

// WallMap makes a static wall meet the fluid through its field instead of its samples when
// solver.wallModel is "volumeMaps" (on a rigid body or a wall on a motion path it is ignored): each fluid particle closer to it
// than the kernel support sees one boundary particle of the field's volume, placed opposite
// it beyond the surface (Bender et al. 2019). The samples stay for everything else (rigid
// contacts, queries, the view). A nil Field means none.
type WallMap struct {
	Field WallField
}
