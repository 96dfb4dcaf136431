// Package reduced is a model-reduced 2D fluid two-way coupled with planar rigid bodies through
// vortex panels: chapter 5 of M. Gerszewski, "Physics-based animation of large-scale
// splashing liquids, elastoplastic solids, and model-reduced flow" (PhD dissertation, 2014),
// on the closed-form Laplacian eigenfunction basis of a rectangle (T. de Witt, C. Lessig,
// E. Fiume, "Fluid simulation using Laplacian eigenfunctions", ACM TOG 31(1), 2012).
//
//   - §5.1: the velocity is r̃ in an orthonormal, divergence-free basis B (Eq. 5.3); external
//     forces are projected (Eq. 5.4–5.5); diffusion D̃ = BᵀΔB (Eq. 5.6) and the advection
//     tensor Ã_{b_i} = Bᵀ A_{b_i} B (Eq. 5.7) are precomputed in closed form and sparse; a
//     step is r̃ ← exp(Δt(νD̃ + Σ_i r_i Ã_{b_i})) r̃ (Eq. 5.8–5.9) by a truncated Taylor series.
//   - §5.2: user or data-driven fields are projected to be divergence-free and added to the
//     basis after deflation against the eigenmodes (Eq. 5.10).
//   - §5.3: bodies carry constant-strength vortex panels (Eq. 5.11) whose strengths cancel the
//     relative normal flow (Eq. 5.12–5.15) through a precomputed least-squares inverse with the
//     zero-circulation row; several bodies iterate (Eq. 5.16–5.17); bodies near walls are
//     mirrored (method of images, §5.3.3); the panels' velocity is fed back into r̃ through a
//     quadtree with the error bound of Eq. 5.19, naively, or (the default, beyond the chapter)
//     by its exact Galerkin projection; the fluid pushes the bodies by dynamic pressure and
//     buoyancy (Eq. 5.20–5.22).
//
// Where this package departs from or goes beyond the chapter, the doc comment says so: the
// boundary condition integrated exactly between panel midpoints (panelInverse), the exact
// feedback (FeedbackGalerkin), the windward reading of Eq. 5.21 (applyForces), multipole
// expansions in the panel solve. docs/reduced.md describes the method, the tests and the
// measured numbers. The package owns its minimal 2D rigid bodies; it imports only physics/par.
// An owner that integrates the bodies itself (the sluice world's rigid solver) sets their
// state with SetBodyState and steps with StepFluid, reading Body.Force (external.go).
package reduced
