package systems

import (
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/ecs"
	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/airdrag"
	"github.com/sluicephysics/sluice/physics/micropolar"
	"github.com/sluicephysics/sluice/physics/par"
)

// StageVorticityDrag is the name of the micropolar vorticity and air drag stage: right after
// ViscositySolve, before the elastic solve and the pressure solve.
const StageVorticityDrag = "VorticityDrag"

// vortDrag is the state of the VorticityDrag stage: the per-slot coefficient tables (rebuilt
// every substep from the materials, so a material changed at run time takes effect at once)
// and the microrotations kept across a repack.
type vortDrag struct {
	mp     micropolar.Model
	drag   airdrag.Drag
	coef   []micropolar.Coeffs
	dpar   []airdrag.Params
	nFull  int
	h      float64
	old    []physics.Vec3
	src    []int32
	kept   bool
	bcount []float64 // the boundary neighbours' sample counts when walls are volume-mapped
}

// VorticityDrag reads v, ω, ρ and the neighbour lists and adds to v* the micropolar
// acceleration ν_t∇×ω (Bender et al. 2019, Eq. 9; physics/micropolar) of fluid bodies whose
// material.micropolar.vorticity is above 0, advancing their microrotation ω (Eq. 10), and the
// air drag of Gissler et al. 2017 (physics/airdrag) of fluid bodies whose material.airDrag is
// above 0. Without such bodies it does nothing.
type VorticityDrag struct{ S *Sim }

// Run implements ecs.System.
func (v VorticityDrag) Run(ctx *ecs.Context) error {
	s := v.S
	vd := &s.vd
	f := &s.Fluid
	if f.Len() == 0 {
		return nil
	}
	n := len(s.bodies)
	vd.coef = par.Grow(vd.coef, n)
	vd.dpar = par.Grow(vd.dpar, n)
	onM, onD := false, false
	r := s.Settings.ParticleRadius
	for slot, b := range s.bodies {
		vd.coef[slot], vd.dpar[slot] = micropolar.Coeffs{}, airdrag.Params{}
		if b.body.Phase != components.Fluid {
			continue
		}
		if mp := &b.mat.Micropolar; mp.Vorticity > 0 {
			vd.coef[slot] = micropolar.Coeffs{NuT: mp.Vorticity, InvTheta: mp.InertiaInverse, Smooth: mp.OmegaSmoothing}
			onM = true
		}
		if b.mat.AirDrag > 0 {
			vd.dpar[slot] = airdrag.Params{Factor: b.mat.AirDrag, Droplet: airdrag.NewDroplet(r, b.mat.RestDensity), Depth: 1}
			if s.Settings.Dimensions == 2 {
				vd.dpar[slot].Depth = 2 * r
			}
			onD = true
		}
	}
	if onM {
		vd.mp.Step(f, &s.FF, vd.coef[:n], s.owner, ctx.Dt, s.pool)
	}
	if onD {
		if vd.h != s.Kernel.H {
			vd.h = s.Kernel.H
			vd.nFull = airdrag.FullNeighbors(s.Settings.Spacing(), s.Kernel.H)
			if s.Settings.Dimensions == 2 {
				vd.nFull = airdrag.FullNeighbors2D(s.Settings.Spacing(), s.Kernel.H)
			}
		}
		vd.drag.BoundCount = nil
		if len(s.mapped) > 0 {
			// a volume-mapped wall's virtual particle counts as the samples its volume holds
			sp := s.Settings.Spacing()
			v0 := sp * sp * sp
			vd.bcount = par.Grow(vd.bcount, len(s.fb.Vol))
			for j, v := range s.fb.Vol {
				vd.bcount[j] = 1
				if j >= s.nVis {
					vd.bcount[j] = v / v0
				}
			}
			vd.drag.BoundCount = vd.bcount
		}
		vd.drag.Step(f, &s.FF, &s.FB, vd.dpar[:n], s.owner, vd.nFull, ctx.Dt, s.pool)
	}
	return nil
}

// keepOmega saves the packed microrotations and where each particle will be after the repack
// that follows, when any is non-zero; restoreOmega puts them back after packFluid.
func (s *Sim) keepOmega() {
	vd := &s.vd
	vd.kept = false
	for _, w := range s.Fluid.Omega {
		if w != (physics.Vec3{}) {
			vd.kept = true
			break
		}
	}
	if !vd.kept {
		return
	}
	vd.old = append(vd.old[:0], s.Fluid.Omega...)
	vd.src = append(vd.src[:0], s.repackSource()...)
}

func (s *Sim) restoreOmega() {
	vd := &s.vd
	om := s.Fluid.Omega
	if !vd.kept {
		clear(om)
		return
	}
	for k := range om {
		om[k] = physics.Vec3{}
		if k < len(vd.src) {
			if o := vd.src[k]; o >= 0 && int(o) < len(vd.old) {
				om[k] = vd.old[o]
			}
		}
	}
	vd.kept = false
}
