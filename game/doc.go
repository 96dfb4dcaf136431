// Package game connects a sluice World to a game loop and, in the g3n build, draws it.
//
// Always built (pure Go, CGO_ENABLED=0): the Driver, which steps a World at a fixed physics
// rate from a game loop of any frame rate and interpolates the drawn positions and rigid-body
// poses (LerpPose) between the last two physics states; the triangulation of rigid bodies'
// shapes (ShapeMesh); the phase styles, rigid-body colours, colour maps and the registry of
// fields the view can colour by; and hot reloading of materials from a scene file.
//
// Built with -tags g3n and cgo (files tagged "g3n && cgo"): the View, which mirrors a World
// into a g3n scene — particles as shaded sphere impostors drawn as GL points from one vertex
// buffer, boundary samples as small translucent dots, rigid bodies as lit meshes following
// their poses, a HUD and a colour legend — and Run, the windowed game loop with an orbit
// camera and pause, step, speed, colour and reload keys.
package game
