// Package physics holds sluice's numerics that every method shares: 3-vectors on flat slices,
// SPH smoothing kernels, and the neighbour search on a compact cell grid whose cell order the
// particle arrays follow. It knows nothing of the ECS or of rendering; functions work on
// struct-of-arrays slices and explicit parameter structs so the hot loops stay allocation-free
// and free of interface calls.
//
// Method families live in sub-packages named after their paper: physics/iisph (Ihmsen et al.
// 2014), physics/boundary (Akinci et al. 2012), and so on.
package physics
