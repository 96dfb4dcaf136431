package components

import (
	"fmt"

	"github.com/sluicephysics/sluice/params"
	"github.com/sluicephysics/sluice/physics/elastoplastic"
)

// ElastoplasticSolid is the material of an elastoplastic body: the point-based elastoplastic
// solid of Gerszewski et al. 2009 (dissertation ch. 4; package physics/elastoplastic). Its
// elastic deformation gradient is fitted from the particles' motion every substep (Eq.
// 4.1-4.8), it is elastic (Eq. 4.9, Lamé parameters from Young's modulus and Poisson's ratio)
// up to the yield stress, beyond which its shape flows at the flow rate and stays deformed
// (the multiplicative plasticity of Bargteil et al. 2007). Its density is the material's
// density key; the pressure solve keeps it incompressible and in contact with everything.
type ElastoplasticSolid struct {
	YoungsModulus   float64 `json:"youngsModulus" unit:"Pa" default:"50000" range:"(0,1e12]" doc:"Young's modulus E; with poissonsRatio it gives the Lamé parameters μ, λ of Eq. 4.9. The explicit forces limit the substep to 0.6·2r/c, c = √((λ+2μ)/ρ0) the elastic wave speed, which the substep control respects"`
	PoissonsRatio   float64 `json:"poissonsRatio" unit:"1" default:"0.3" range:"[0,0.5)" doc:"Poisson's ratio ν: μ = E/(2(1+ν)), λ = Eν/((1+ν)(1−2ν)); the pressure solve keeps the body incompressible whatever ν"`
	YieldStress     float64 `json:"yieldStress" unit:"Pa" default:"1000" range:"[0,1e12]" doc:"norm of the deviatoric stress beyond which the body flows plastically (Bargteil et al. 2007); 1e12 never yields (purely elastic)"`
	FlowRate        float64 `json:"flowRate" unit:"1/s" default:"100" range:"[0,1e6]" doc:"plastic flow rate ν: the fraction of the stress in excess of the yield stress that flows per second (0: never flows)"`
	Hardening       float64 `json:"hardening" unit:"Pa" default:"0" range:"[-1e12,1e12]" doc:"work hardening K: the yield stress grows by K per unit of accumulated plastic strain (negative: softening)"`
	ZeroModeDamping float64 `json:"zeroModeDamping" unit:"1" default:"0.5" range:"[0,1]" doc:"per-substep damping of the particle-scale motion the affine fit cannot see (a zero-energy mode); it leaves every affine motion and both momenta alone (see docs/elastoplastic.md)"`
}

// Model returns the constitutive model of physics/elastoplastic for these parameters.
func (e *ElastoplasticSolid) Model() elastoplastic.Material {
	mu, lambda := elastoplastic.FromYoung(e.YoungsModulus, e.PoissonsRatio)
	return elastoplastic.Material{Mu: mu, Lambda: lambda, YieldStress: e.YieldStress,
		FlowRate: e.FlowRate, Hardening: e.Hardening, ZeroModeDamping: e.ZeroModeDamping}
}

// Validate checks the ranges and that the model they give is one physics/elastoplastic
// accepts (its Lamé parameters within its limits), naming the key.
func (e *ElastoplasticSolid) Validate(path string) error {
	if err := params.Validate(e, path); err != nil {
		return err
	}
	m := e.Model()
	if err := m.Validate(); err != nil {
		return &params.Error{Path: pathJoin(path, "youngsModulus"), Msg: fmt.Sprintf("%g Pa with poissonsRatio %g: %v", e.YoungsModulus, e.PoissonsRatio, err)}
	}
	return nil
}
