// Package volumemap builds volume maps for static wall boundaries, after J. Bender, T.
// Kugelstadt, M. Weiler, D. Koschier, "Volume Maps: An Implicit Boundary Representation for
// SPH", MIG 2019, and "Implicit Frictional Boundary Handling for SPH", IEEE TVCG 26(10), 2020.
// Instead of sampling a wall with boundary particles (physics/boundary, Akinci et al. 2012), a
// fluid particle i sees one virtual boundary particle per wall, whose position and volume come
// from two fields precomputed on a grid around the wall's triangle mesh:
//
//   - φ(x), the signed distance to the mesh surface, positive on the fluid side (outside a
//     solid; inside the mesh for a tank, Options.Invert);
//   - V(x) = c·∫_{|y|<H} γ(φ(x + y)) dy, the boundary volume, with γ(φ) = 1 for φ ≤ 0,
//     W(φ)/W(0) for 0 < φ < H and 0 beyond (W the kernel with support radius H), so V is the
//     volume of solid within the kernel's support, counted fully inside the wall and with the
//     kernel's weight in a layer of width H in front of it.
//
// The paper's text was not at hand while this was written; γ, V and the factor c = 0.8 (an
// option, Options.VolumeFactor, default 0.8) are those of the reference implementation
// (SPlisHSPlasH: Simulator/SimulatorBase.cpp, initVolumeMap), which also places the virtual
// particle (SPlisHSPlasH/TimeStep.cpp, computeVolumeAndBoundaryX): for 0 < φ(x_i) < H,
//
//	x_b = x_i − max(φ(x_i) + r/2, 2r)·n(x_i),  V_b = V(x_i),  n = ∇φ/|∇φ|,
//
// half a particle radius r below the surface and at least a particle diameter from x_i.
// Map.Boundary returns that particle; Map.At returns φ, V and n.
//
// # Construction
//
// φ is computed at every node of a regular grid of cell size dx = Cell·H over the mesh's box
// grown by 2H (plus one node per side for the interpolation stencil): the distance to the
// nearest triangle (a bounding-volume tree, Ericson 2005 Sec. 5.1.5 for the point–triangle
// distance), signed by the angle-weighted pseudo-normal of the nearest feature — face, edge
// or vertex (J. A. Bærentzen, H. Aanæs, "Signed Distance Computation Using the Angle
// Weighted Pseudonormal", IEEE TVCG 11(3), 2005), which is right for any closed, consistently
// oriented mesh. Open meshes, edges shared by more than two triangles, inconsistent or
// inside-out orientation, degenerate triangles and bad options are rejected with an error.
//
// V at a node is the exact ball integral of the Catmull-Rom interpolant of γ's node values:
// Σ_k w_k γ(φ_{node+k}), with weights w_k = ∫_{|y|<H} B_k(y) dy of the interpolant's basis
// functions over the ball, computed once per Build (closed form along one axis, Gauss rules
// over the disc). Nodes with φ ≥ 2H (V = 0) or φ ≤ −H (V = c·4πH³/3) take the exact values.
// Every node is independent, so the node loops run in parallel over fixed blocks and the map is
// bit-identical for any number of workers.
//
// # Interpolation
//
// At interpolates both fields with the tricubic Catmull-Rom spline (Keys 1981, a = −½): 4³
// nodes per query, C¹ across cells, so n = ∇φ/|∇φ| is continuous and a particle sliding along
// a wall feels no jumps in the wall's force (a trilinear gradient is constant per cell and
// jumps between cells). The interpolant reproduces quadratics: on flat walls φ and n are exact
// to round-off.
//
// # Accuracy and cost
//
// Measured on the reference's DamBreakModel tank (UnitBox.obj scaled 4 × 3 × 1.5 m, inverted,
// r = 0.025 m, H = 0.1 m) against the closed-form box distance at 2000 random points within 2H
// of the walls and against the exact V of a flat wall (TestPlaneVolume), with the build time on
// one worker (go test ./physics/volumemap -run '^$' -bench CellSize -benchtime 3x):
//
//	cell   max |Δφ|/H   max |ΔV|/V_full   build (s)
//	H/2    0.056        0.0075            0.21–0.30
//	H/3    0.039        0.0036            1.1
//	H/4    0.029        0.0012            2.7–3.0
//
// With the Wendland C2 kernel the V error at H/2 is 0.0091 (TestPlaneVolume holds both
// kernels to 1 % of the full volume). The φ error is largest where φ has a kink (the tank's
// inner edges and corners, where two walls are equally near; TestTankPhi bounds it by 4/27 of
// a cell); on flat parts it is round-off. The V error is largest at the wall, where γ's
// curvature jumps. The default, H/2, builds in well under a second; the reference's own map
// of this tank has cubic polynomials on cells of 1.4–2.1H (40 × 30 × 15 cells over the box
// grown by 8H). At costs 240–390 ns, at random points and along a walk alike (BenchmarkAt;
// the range is over runs on a shared two-core machine), and does not allocate.
//
// The cost of a node's distance query grows with the number of triangles about as near as
// the nearest, so nodes deep inside a round solid are the slowest: at H = 0.1 m the
// reference's sphere.obj (radius 1 m, 760 triangles) builds in 0.55–0.58 s, torus.obj (800)
// in 0.62 s and sphere.obj subdivided to 3040 triangles in 0.89 s (go test
// ./physics/volumemap -run '^$' -bench Build -benchtime 3x). The reference's Dragon_50k.obj
// is rejected: one of its edges belongs to four triangles.
package volumemap
