package systems

import (
	"math"

	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/ecs"
)

// StepStats describes one World.Step (one frame): the JSON object written per step to a stats
// file (DESIGN §8). Density errors are fractions of the rest density (0.001 = 0.1 %).
type StepStats struct {
	T               float64 `json:"t"`               // simulated time at the end of the step (s)
	Dt              float64 `json:"dt"`              // length of the last substep (s)
	Substeps        int     `json:"substeps"`        // substeps in this step
	Particles       int     `json:"particles"`       // dynamic (fluid) particles
	DensityErrorAvg float64 `json:"densityErrorAvg"` // mean over substeps of the pressure solver's own average density error: its prediction at its last iteration, the value it stops on (≤ η when converged)
	DensityErrorMax float64 `json:"densityErrorMax"` // largest per-particle predicted density error in any substep
	// The measured density error: the compression max(0, ρ−ρ0)/ρ0 of the SPH density computed
	// from the positions a substep's integration produced, at the next substep's Density stage
	// (no extra pass). The last substep of a step is measured at the start of the next step and
	// counted there; a substep followed by a repack (emitted, added or removed bodies) is not
	// measured. Compare it with densityErrorAvg: the solver linearises the density in Δt, the
	// measurement does not.
	DensityErrorMeasuredAvg   float64            `json:"densityErrorMeasuredAvg"` // mean over the measured substeps of the average compression
	DensityErrorMeasuredMax   float64            `json:"densityErrorMeasuredMax"` // largest per-particle compression measured
	DensityErrorMeasured      int                `json:"densityErrorMeasured"`    // substeps measured
	PressureIterations        float64            `json:"pressureIterations"`      // average pressure iterations per substep
	PressureIterationsTotal   int                `json:"pressureIterationsTotal"`
	UnconvergedSolves         int                `json:"unconvergedSolves"`                   // solves that hit maxIterations above η (pf: pfMaxIterations above pfTolerance)
	PressureSolver            string             `json:"pressureSolver"`                      // the method that ran: iisph, dfsph (pressureIterations then counts the constant-density solve's corrections) or pf (pressureIterations then counts PF's local/global iterations)
	DivergenceIterations      float64            `json:"divergenceIterations,omitempty"`      // dfsph: average corrections of the divergence solve per substep
	DivergenceIterationsTotal int                `json:"divergenceIterationsTotal,omitempty"` // dfsph: corrections of the divergence solves of the step
	DivergenceErrorAvg        float64            `json:"divergenceErrorAvg,omitempty"`        // dfsph: mean over substeps of the divergence solve's remaining error, Δt·avg(max(0, Dρ/Dt))/ρ0 (≤ maxDivergenceError when converged)
	DivergenceUnconverged     int                `json:"divergenceUnconverged,omitempty"`     // dfsph: divergence solves that hit maxIterations above maxDivergenceError
	PFCGIterations            float64            `json:"pfCGIterations,omitempty"`            // pf: average CG iterations per substep, summed over its global steps
	PFCGIterationsTotal       int                `json:"pfCGIterationsTotal,omitempty"`       // pf: CG iterations of the step
	MaxSpeed                  float64            `json:"maxSpeed"`                            // m/s
	KineticEnergy             float64            `json:"kineticEnergy"`                       // J, fluid
	Bodies                    []BodyStats        `json:"bodies"`                              // per body, in ID order
	StageMs                   map[string]float64 `json:"stageMs"`                             // wall ms per stage, summed over substeps
	Removed                   []Removal          `json:"removed,omitempty"`                   // particles removed for leaving the domain
	Emitted                   int                `json:"emitted,omitempty"`                   // particles emitters added at the start of the step
	EmitterHeld               int                `json:"emitterHeld,omitempty"`               // due emitter layers that waited at the start of the step because particles stood where they would have flowed to: each leaves from the nozzle as soon as there is room there (at this step or a later one), and the emitter's schedule moves on by the time it waited
	GooConnections            int                `json:"gooConnections,omitempty"`            // goo connections at the end of the step (a fluid pair counts once)
	GooDeferred               int                `json:"gooDeferred,omitempty"`               // candidate goo connections postponed for a full candidate buffer (0 in practice)
	ElasticIterations         float64            `json:"elasticIterations,omitempty"`         // average CG iterations per elastic solve (one solve per elastic body and substep)
	ElasticIterationsTotal    int                `json:"elasticIterationsTotal,omitempty"`    // CG iterations of all elastic solves of the step
	ElasticSolves             int                `json:"elasticSolves,omitempty"`             // elastic solves of the step (elastic bodies × substeps)
	ElasticUnconverged        int                `json:"elasticUnconverged,omitempty"`        // elastic solves that hit maxIterations above maxError
	ElasticShortened          int                `json:"elasticShortened,omitempty"`          // substeps shortened after the elastic solve (Algorithm 3's re-estimated step)
	RigidOutside              []string           `json:"rigidOutside,omitempty"`              // rigid bodies whose centre of mass is outside the domain at the end of the step (no fluid reaches them there; they fall on, reported every step)
	WallCorrections           int                `json:"wallCorrections,omitempty"`           // particles found inside a solid wall at the end of a substep and moved back to its surface (see Sim.AddSolid)
	RigidMs                   float64            `json:"rigidMs,omitempty"`                   // wall ms of the rigid-body work: placing samples, re-indexing moving boundaries, fluid loads, contacts and integration
	WallMs                    float64            `json:"wallMs"`                              // wall ms of the whole step
	solves                    int
	errSum                    float64
	divSolves                 int
	divErrSum                 float64
	measSum                   float64

	// The implicit viscosity solves (solver.viscositySolver implicit or auto; docs/viscosity.md).
	ViscosityIterations      float64 `json:"viscosityIterations,omitempty"`      // implicit viscosity: average CG iterations per solve
	ViscosityIterationsTotal int     `json:"viscosityIterationsTotal,omitempty"` // implicit viscosity: CG iterations of the step
	ViscositySolves          int     `json:"viscositySolves,omitempty"`          // implicit viscosity solves of the step (one per substep that used it)
	ViscosityUnconverged     int     `json:"viscosityUnconverged,omitempty"`     // implicit viscosity solves that hit viscosityMaxIterations above viscosityMaxError
	// The elastoplastic bodies' substeps (Gerszewski et al. 2009; systems/elastoplastic.go):
	// how often the guards of ch. 4 §4.4 held a particle's F back, how many particles flowed
	// plastically, and the extreme singular values of F (principal stretches; below 1
	// compressed).
	ElastoplasticSteps          int     `json:"elastoplasticSteps,omitempty"`          // elastoplastic body updates of the step (bodies × substeps)
	ElastoplasticFewNeighbors   int     `json:"elastoplasticFewNeighbors,omitempty"`   // particle updates skipped for fewer than 6 neighbours
	ElastoplasticIllConditioned int     `json:"elastoplasticIllConditioned,omitempty"` // particle updates skipped for an ill-conditioned moment matrix
	ElastoplasticInverted       int     `json:"elastoplasticInverted,omitempty"`       // particle updates refused because they would invert F
	ElastoplasticYielded        int     `json:"elastoplasticYielded,omitempty"`        // particle updates with plastic flow
	ElastoplasticMinSigma       float64 `json:"elastoplasticMinSigma,omitempty"`       // smallest singular value of any F in the step
	ElastoplasticMaxSigma       float64 `json:"elastoplasticMaxSigma,omitempty"`       // largest singular value of any F in the step (the max stretch)
	ElastoplasticPaused         int     `json:"elastoplasticPaused,omitempty"`         // body updates skipped because the body lost particles earlier in the step

	// Reduced are the reduced air domains' numbers of the step, in creation order.
	Reduced []ReducedStats `json:"reduced,omitempty"`
	// Wind are the 3D wind boxes' numbers of the step, in creation order.
	Wind []WindStats `json:"wind,omitempty"`
	Flip []FlipStats `json:"flip,omitempty"` // per FLIP liquid body, in ID order (systems/flip.go)
	// Diffuse are the spray, foam and bubbles after the step (solver.diffuse.enabled), or nil.
	Diffuse *DiffuseStats `json:"diffuse,omitempty"`
}

// DiffuseStats counts the diffuse particles of one step (physics/diffuse, Ihmsen et al. 2012).
type DiffuseStats struct {
	Spray     int     `json:"spray"`     // diffuse particles with fewer fluid neighbours than sprayBelow, after the step
	Foam      int     `json:"foam"`      // diffuse particles at the surface (carried by the fluid), after the step
	Bubbles   int     `json:"bubbles"`   // diffuse particles inside the fluid, after the step
	Generated int     `json:"generated"` // new particles this step
	Dissolved int     `json:"dissolved"` // foam whose lifetime ended this step
	Left      int     `json:"left"`      // diffuse particles removed for leaving the domain this step
	Absorbed  int     `json:"absorbed"`  // spray removed this step for hitting a wall (within a spacing 2r of a wall sample)
	Capped    int     `json:"capped"`    // particles the potentials asked for beyond maxParticles (not generated)
	Ms        float64 `json:"ms"`        // wall time of the diffuse update (ms)
}

// WindStats is one 3D wind box's step (physics/reduced.Box).
type WindStats struct {
	Name      string  `json:"name"`
	Modes     int     `json:"modes"`            // basis size
	Energy    float64 `json:"energy"`           // ½Σr², the wind's kinetic energy per unit density (m⁵/s²)
	Bodies    int     `json:"pushedBodies"`     // dynamic rigid bodies inside the box that got its drag
	Particles int     `json:"draggedParticles"` // fluid and goo particles inside the box it dragged
}

// ReducedStats is one reduced air domain's step (Gerszewski 2014 ch. 5; physics/reduced): its
// basis, coupled bodies and panels, the multi-body panel iteration, and the wall time of its
// stages as the package measures them.
type ReducedStats struct {
	Name               string   `json:"name"`
	Modes              int      `json:"modes"`              // basis size (eigenmodes plus enriched modes)
	Bodies             int      `json:"coupledBodies"`      // rigid bodies coupled this step
	Panels             int      `json:"panels"`             // their vortex panels
	Outside            []string `json:"outside,omitempty"`  // coupled bodies in the plane but not inside the rectangle (not coupled this step)
	CouplingIterations int      `json:"couplingIterations"` // sweeps of the multi-body panel iteration (Eq. 5.17)
	CouplingConverged  bool     `json:"couplingConverged"`  // the sweeps reached couplingTolerance
	Energy             float64  `json:"energy"`             // ½Σr², the reduced field's kinetic energy per unit density and depth (m⁴/s²)
	AdvectMs           float64  `json:"advectMs"`           // the reduced step (Eq. 5.9)
	PanelsMs           float64  `json:"panelSolveMs"`       // the panel solve (§5.3.1–5.3.3)
	ForcesMs           float64  `json:"forcesMs"`           // the fluid forces (Eq. 5.20–5.22)
	FeedbackMs         float64  `json:"feedbackMs"`         // the panels' feedback into the modes (§5.3.4)
}

// BodyStats is a body's particle count and bounding box.
type BodyStats struct {
	Name  string     `json:"name"`
	Phase string     `json:"phase"`
	Count int        `json:"count"`
	Min   [3]float64 `json:"min"`
	Max   [3]float64 `json:"max"`
	// Load is the fluid's pressure force on a boundary body (a wall or a rigid body), averaged
	// over the step's substeps (N).
	Load *[3]float64 `json:"load,omitempty"`
	// Rigid is a rigid body's pose and motion at the end of the step.
	Rigid *RigidStats `json:"rigid,omitempty"`
}

// Removal counts the particles of one body that left the domain during a step.
type Removal struct {
	Body  string  `json:"body"`
	Count int     `json:"count"`
	Time  float64 `json:"t"` // time of the first removal in the step (s)
}

func (a *StepStats) noteRemoval(body string, t float64) {
	for i := range a.Removed {
		if a.Removed[i].Body == body {
			a.Removed[i].Count++
			return
		}
	}
	a.Removed = append(a.Removed, Removal{Body: body, Count: 1, Time: t})
}

// BeginStep resets the per-step accumulators.
func (s *Sim) BeginStep() {
	s.acc = StepStats{}
	clear(s.loadSum)
	s.loadTime = 0
}

// EndStep completes the statistics of a step after Scatter.
func (s *Sim) EndStep(clock *ecs.Clock, substeps int, lastDt float64, times []ecs.StageTime) StepStats {
	a := s.acc
	a.T, a.Substeps, a.Dt = clock.Time, substeps, lastDt
	a.Particles = s.Fluid.Len()
	a.PressureSolver = s.Settings.PressureSolver
	if a.solves > 0 {
		a.DensityErrorAvg = a.errSum / float64(a.solves)
		a.PressureIterations = float64(a.PressureIterationsTotal) / float64(a.solves)
		a.PFCGIterations = float64(a.PFCGIterationsTotal) / float64(a.solves)
	}
	if a.divSolves > 0 {
		a.DivergenceIterations = float64(a.DivergenceIterationsTotal) / float64(a.divSolves)
		a.DivergenceErrorAvg = a.divErrSum / float64(a.divSolves)
	}
	if a.DensityErrorMeasured > 0 {
		a.DensityErrorMeasuredAvg = a.measSum / float64(a.DensityErrorMeasured)
	}
	f := &s.Fluid
	ke, vmax := 0.0, 0.0
	for k := range f.V {
		v := f.V[k]
		v2 := v[0]*v[0] + v[1]*v[1] + v[2]*v[2]
		ke += 0.5 * f.M[k] * v2
		vmax = max(vmax, v2)
	}
	a.KineticEnergy, a.MaxSpeed = ke, math.Sqrt(vmax)
	if s.Goo.Len() > 0 {
		a.GooConnections = s.Goo.Conn.Pairs()
	}
	if a.ViscositySolves > 0 {
		a.ViscosityIterations = float64(a.ViscosityIterationsTotal) / float64(a.ViscositySolves)
	}
	if a.ElasticSolves > 0 {
		a.ElasticIterations = float64(a.ElasticIterationsTotal) / float64(a.ElasticSolves)
	}
	a.Bodies = make([]BodyStats, 0, len(s.bodies))
	for _, b := range s.bodies {
		bs := BodyStats{Name: b.body.Name, Phase: b.body.Phase.String(), Count: b.p.Len()}
		if b.rigid != nil {
			bs.Phase = "rigid" // a rigid body's samples are boundary particles, but tools tell a crate from a wall
		}
		if b.p.Len() > 0 {
			bs.Min = [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
			bs.Max = [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
			for _, x := range b.p.X {
				for d := 0; d < 3; d++ {
					bs.Min[d], bs.Max[d] = min(bs.Min[d], x[d]), max(bs.Max[d], x[d])
				}
			}
		}
		if b.body.Phase == components.Boundary && s.loadTime > 0 {
			for o, slot := range s.bSlots {
				if s.bodies[slot].body == b.body {
					l := s.loadSum[o].Mul(1 / s.loadTime)
					bs.Load = &[3]float64{l[0], l[1], l[2]}
				}
			}
		}
		if rb := b.rigid; rb != nil && outsideBox(rb.State.X, s.DomainMin, s.DomainMax) {
			a.RigidOutside = append(a.RigidOutside, b.body.Name)
		}
		if rb := b.rigid; rb != nil {
			st := &rb.State
			bs.Rigid = &RigidStats{Position: st.X, Orientation: st.Q, Velocity: st.V, AngularVelocity: st.W,
				Submerged: rb.Submerged, Contacts: rb.Contacts, Motion: st.Motion.String(), Asleep: st.Asleep}
		}
		a.Bodies = append(a.Bodies, bs)
	}
	s.flipStats(&a)
	a.StageMs = make(map[string]float64, len(times))
	for _, st := range times {
		a.StageMs[st.Name] = float64(st.Elapsed.Nanoseconds()) / 1e6
	}
	return a
}

// Bodies lists the bodies of the last Gather in ID order (for exporters and views).
func (s *Sim) Bodies() []BodyView {
	out := make([]BodyView, len(s.bodies))
	for i, b := range s.bodies {
		out[i] = BodyView{Entity: b.entity, Body: b.body, Material: b.mat, Particles: b.p}
	}
	return out
}

// BodyView gives read access to one body's components.
type BodyView struct {
	Entity    ecs.Entity
	Body      *components.Body
	Material  *components.Material
	Particles *components.Particles
}

// outsideBox reports whether x lies outside the box [lo, hi].
func outsideBox(x, lo, hi [3]float64) bool {
	return x[0] < lo[0] || x[1] < lo[1] || x[2] < lo[2] || x[0] > hi[0] || x[1] > hi[1] || x[2] > hi[2]
}
