// Package flip is a mass-full FLIP liquid with unilateral incompressibility: D. Gerszewski,
// "Physics-based animation of large-scale splashing liquids, elastoplastic solids, and model-
// reduced flow", PhD dissertation, University of Utah, 2014, chapter 3 (after Gerszewski and
// Bargteil, SIGGRAPH Asia 2013).
//
// Particles carry the mass (every particle has ρ0·h³/n³, n particles per cell and axis); each
// step rasterises their mass and momentum onto a MAC grid with the trilinear filter
// (Eq. 3.10-3.12), corrects over-full cells by moving particles (the density-correction LCP of
// §3.1, Eq. 3.9), adds gravity, and solves the unilateral incompressibility LCP of Eq. 3.3-3.7
// — pressures non-negative, a cell either full or unpressurised — by MPRGP with MIC(0)
// preconditioning in face (§3.1), so liquid separates from walls and from itself. The velocity
// update (Eq. 3.8), velocity extrapolation (§3.2.2), the PIC/FLIP particle update (§3.2.3) and
// trapezoidal advection clipped against the box and the obstacles (§3.2.4) follow. Obstacles
// and the box walls are blurred with the same filter (Eq. 3.13, §3.3). A bilateral mode
// (ordinary incompressible FLIP solved by PCG, §3.4's comparison) shares the rest of the step.
//
// The package knows nothing of the ECS: a Sim owns its particles (X, V) and grid. Parallel
// loops run over fixed blocks of physics/par and every reduction is in a fixed order, so a
// step is bit-identical for any worker count. docs/flip.md describes the choices, the tests
// and the measured numbers.
package flip

import "github.com/sluicephysics/sluice/physics"

// Vec3 is physics.Vec3.
type Vec3 = physics.Vec3
