//go:build g3n && cgo

package game

import (
	"fmt"
	"math"
	"slices"

	"github.com/g3n/engine/core"
	"github.com/g3n/engine/geometry"
	"github.com/g3n/engine/gls"
	"github.com/g3n/engine/graphic"
	"github.com/g3n/engine/material"
	"github.com/g3n/engine/math32"
	"github.com/g3n/engine/renderer"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics/rigid"
	"github.com/sluicephysics/sluice/systems"
)

// stride is the floats per particle in the vertex buffer: position (3), RGBA colour (4) and
// drawn radius (1).
const stride = 8

// View mirrors a sluice World into a g3n scene. Every particle of every moving body is one vertex
// of an interleaved vertex buffer drawn as GL points by the impostor shader (shaders.go), in ID
// order (the layout of the Driver's states, so a frame's sync is one strided blend of the last
// two physics states), re-uploaded every frame. The static walls' samples are a second buffer,
// uploaded once per layout and drawn translucent after the moving bodies without writing depth;
// box walls (WallBox) are drawn as faces instead (glass sides, an opaque floor) unless
// SetWallSamples.
//
// Rigid bodies are drawn as meshes following their poses rather than as particles (their
// boundary samples are left out of the buffer): a box, sphere, capsule or the body's own
// triangle mesh (ShapeMesh), in g3n's standard (Phong) material coloured by RigidShade, so the
// scene needs lights (Run adds an ambient and a directional one). Sync sets each mesh's
// position and rotation from the body's pose interpolated like the particles (Driver.Poses).
type View struct {
	// Node holds the view's objects; add it to the scene.
	Node *core.Node

	world  *sluice.World
	driver *Driver
	radius float32 // particle radius r (m)
	gen    uint64  // the world's Generation the layout was made for

	gr   *particleGraphic
	geom *geometry.Geometry
	vbo  *gls.VBO
	buf  []float32 // stride floats per particle: the moving ones and the rigid samples
	// The static walls' samples, in a buffer of their own written and uploaded at layout only
	// (Sync re-uploads buf, never sbuf), drawn by sgr.
	sgr  *particleGraphic
	svbo *gls.VBO
	sbuf []float32
	// uploads counts the floats queued for upload (a VBO's SetBuffer or Update): by the last
	// Sync (frame) and in all (staticTotal: the walls' buffer's).
	frameUploads, staticTotal int
	moving                    []slot // bodies whose particles move, in ID order
	static                    []slot // boundary bodies
	nMoving                   int
	nStatic                   int
	opaque                    *material.Material
	translucent               *material.Material

	rigid    []rigidMesh // one per rigid body, in ID order (the order of the Driver's poses)
	poses    []Pose      // the frame's interpolated poses (scratch, kept)
	samples  bool        // draw rigid bodies as their boundary samples instead of meshes
	nSamples int         // vertices of rigid bodies' samples, after the moving particles

	// Static walls that are boxes (WallBox) are drawn as their inner faces — glass sides and an
	// opaque floor (walls_g3n.go) — rather than as their samples, unless wallSamples.
	wallSamples bool
	floor       float64         // height of the floor the rigid bodies' shadows fall on (findFloor)
	wallMeshes  []*graphic.Mesh // the drawn faces of the walls: glass and floor or solid meshes
	faced       int             // walls drawn as faces

	// The diffuse particles (spray, foam, bubbles) in a buffer of their own, rewritten every
	// Sync from World.Diffuse (they change once per step and are not interpolated).
	dgr      *particleGraphic
	dvbo     *gls.VBO
	dbuf     []float32
	nDiffuse int

	// The fluid surface (surface.go): in the surface look the liquid bodies' vertex ranges are
	// drawn by two graphics sharing the vertex buffer, outside Node — the thickness and the depth
	// pass — instead of as opaque impostors.
	look      string
	depthGr   *particleGraphic
	thickGr   *particleGraphic
	depthNode *core.Node
	thickNode *core.Node
	depthMat  material.IMaterial
	thickMat  material.IMaterial
	nLiquid   int // vertices drawn as the surface
	// The elastic and elastoplastic bodies in the surface look (when colouring by phase): each
	// body's range drawn by a graphic of its own into the surface's depth target, filtered and
	// shaded opaque in its colour, one body at a time (surface.go), instead of as impostors.
	solids []solidBody
	nSolid int // vertices drawn as solid surfaces
	// Anisotropic particles (aniso.go, Yu and Turk 2013): in the surface look of a 3D world,
	// with anisoOn, the liquid particles are drawn as ellipsoids by two graphics of a buffer of
	// their own (abuf: centre, colour and three semi-axes, anisoStride floats a particle),
	// rewritten every Sync from buf's liquid ranges, instead of as spheres by depthGr and
	// thickGr.
	anisoOn                bool
	aniso                  *anisotropy
	abuf                   []float32
	avbo                   *gls.VBO
	adepthGr, athickGr     *ellipsoidGraphic
	adepthNode, athickNode *core.Node
	liquidRanges           [][2]int // first vertex and count of each liquid range of buf

	mode    int       // 0: colour by phase; i > 0: by Fields()[i-1]
	values  []float32 // field values of the moving particles (scratch, kept)
	lo, hi  float64   // colour-map range of the last field sync
	fullLo  float64   // smallest and largest value of the last field sync (NaN: none)
	fullHi  float64
	hist    []int32 // scratch of RobustRange
	colored bool    // the colours in buf match mode and layout
	cmap    *ColorMap
	lut     [lutSize]Color // cmap sampled at lutSize points, for the per-particle mapping
}

// lutSize is the number of colour-map samples a field is mapped through: finer than 8-bit
// colour channels can show between the map's stops.
const lutSize = 1024

// slot is one body's range of vertices.
type slot struct {
	e      sluice.Entity
	phase  components.Phase
	style  PhaseStyle // BodyStyle of the body's phase and material
	offset int
	count  int
	plain  bool // the last field sync found no values for this body: phase colour
	liquid bool // a liquid (IsLiquid): drawn as the surface in the surface look
	solid  bool // an elastic or elastoplastic body (IsSolidSurface): an opaque surface in the surface look
	faces  bool // a box wall drawn as faces: its samples stay in the buffer undrawn
}

// rigidMesh is the drawn mesh of one rigid body, and where its samples go in the vertex
// buffer when they are drawn instead.
type rigidMesh struct {
	e       sluice.Entity
	mesh    *graphic.Mesh
	samples []rigid.Vec3 // the body's boundary samples, body frame (fixed for its lifetime)
	offset  int          // first vertex of the samples in the buffer
	// The body's shadow on the floor (ProjectShadow), when the view found a floor: the mesh's
	// triangles with positions rewritten each Sync from the model-space ones.
	shadow    *graphic.Mesh
	shadowVBO *gls.VBO
	model     []float32
}

// solidBody is one elastic or elastoplastic body drawn as an opaque surface: its range of the
// vertex buffer as a graphic of the depth pass, under a node of its own, and its colour.
type solidBody struct {
	node  *core.Node
	color Color
}

// planarRadiusScale enlarges the drawn radius of a 2D world's liquid, elastic and
// elastoplastic particles (the bodies drawn as surfaces): one sheet of
// spheres of radius r a spacing 2r apart, seen from the front, leaves a fifth of a square
// lattice's area between them (1 − π/4), and more where the particles have moved apart, which
// the surface look would show as holes; spheres of 1.5r cover the lattice (they must reach
// its cells' corners, √2 r away) with room for the disorder.
const planarRadiusScale = 1.5

// sampleRadiusScale is the drawn radius of a rigid body's samples as a fraction of the particle
// radius: the samples sit a spacing apart, so smaller dots show the lattice and what is behind.
const sampleRadiusScale = 0.6

// particleGraphic is the g3n graphic of the particle buffer; RenderSetup passes the matrices,
// the point scale and the light direction to the impostor shader.
type particleGraphic struct {
	graphic.Graphic
	uMV, uMVP, uProj, uScale, uLight gls.Uniform
}

// RenderSetup is called by the renderer before each draw of the graphic.
func (g *particleGraphic) RenderSetup(gs *gls.GLS, rinfo *core.RenderInfo) {
	gs.UniformMatrix4fv(g.uMV.Location(gs), 1, false, &g.ModelViewMatrix()[0])
	gs.UniformMatrix4fv(g.uMVP.Location(gs), 1, false, &g.ModelViewProjectionMatrix()[0])
	gs.UniformMatrix4fv(g.uProj.Location(gs), 1, false, &rinfo.ProjMatrix[0])
	_, _, _, h := gs.GetViewport()
	// ProjMatrix[5] is 1/tan(fovy/2): a unit at depth 1 spans h·P11/2 pixels.
	gs.Uniform1f(g.uScale.Location(gs), float32(h)*rinfo.ProjMatrix[5]/2)
	// Light from the upper left behind the viewer, in eye space.
	gs.Uniform3f(g.uLight.Location(gs), -0.408, 0.816, 0.408)
}

// newParticleGraphic makes a points graphic of geom drawn by the impostor shader.
func newParticleGraphic(geom *geometry.Geometry) *particleGraphic {
	g := &particleGraphic{}
	g.Graphic.Init(g, geom, gls.POINTS)
	g.uMV.Init("MV")
	g.uMVP.Init("MVP")
	g.uProj.Init("Proj")
	g.uScale.Init("PointScale")
	g.uLight.Init("LightDir")
	// The particles move out of any bounding box computed once: never frustum-cull them.
	g.SetCullable(false)
	return g
}

// RegisterShaders adds the impostor and fluid-surface programs to a renderer; call it once per
// renderer before rendering a View.
func RegisterShaders(r *renderer.Renderer) {
	r.AddShader(particleVertName, particleVertex)
	r.AddShader(particleFragName, particleFragment)
	r.AddProgram(particleProgram, particleVertName, particleFragName)
	registerSurfaceShaders(r)
}

// IsLiquid reports whether a body is drawn as the fluid surface in the surface look: a fluid
// body (water, oil, and viscoelastic goo such as honey and slime, which flow and merge as
// liquids do), or a FLIP liquid. Elastic, elastoplastic and cloth bodies and moving walls stay
// impostors.
func IsLiquid(w *sluice.World, b systems.BodyView) bool {
	switch b.Body.Phase {
	case components.Fluid, components.Flip:
		return true
	}
	return false
}

// IsSolidSurface reports whether a body is drawn as an opaque surface in the surface look (when
// colouring by phase): an elastic or an elastoplastic body. Cloth (a sheet one particle thick),
// moving walls and rigid bodies are not.
func IsSolidSurface(b systems.BodyView) bool {
	switch b.Body.Phase {
	case components.Elastic, components.Elastoplastic:
		return true
	}
	return false
}

// NewView builds the view of w, drawing the moving bodies at d's interpolated states. d must
// drive w (d's stepper a WorldStepper of w).
func NewView(w *sluice.World, d *Driver) (*View, error) {
	if w == nil || d == nil {
		return nil, fmt.Errorf("view: needs a world and its driver")
	}
	v := &View{Node: core.NewNode(), world: w, driver: d, radius: float32(w.Settings().ParticleRadius), cmap: &Heat, look: LookSurface}
	v.vbo = particleVBO(gls.STREAM_DRAW)
	v.geom = geometry.NewGeometry()
	v.geom.AddVBO(v.vbo)

	v.opaque = material.NewMaterial()
	v.opaque.SetShader(particleProgram)
	v.opaque.SetUseLights(material.UseLightNone)
	v.opaque.SetSide(material.SideDouble)
	v.opaque.SetBlending(material.BlendNone)
	v.translucent = material.NewMaterial()
	v.translucent.SetShader(particleProgram)
	v.translucent.SetUseLights(material.UseLightNone)
	v.translucent.SetSide(material.SideDouble)
	v.translucent.SetTransparent(true)
	v.translucent.SetDepthMask(false)
	v.translucent.SetBlending(material.BlendNormal)

	v.SetColorMap(&Heat)
	v.gr = newParticleGraphic(v.geom)
	v.Node.Add(v.gr)
	v.depthMat = newSurfaceMaterial(surfDepthProgram, false)
	v.thickMat = newSurfaceMaterial(surfThicknessProgram, true)
	v.depthGr = newParticleGraphic(v.geom)
	v.thickGr = newParticleGraphic(v.geom)
	v.depthNode, v.thickNode = core.NewNode(), core.NewNode()
	v.depthNode.Add(v.depthGr)
	v.thickNode.Add(v.thickGr)
	v.avbo = ellipsoidVBO()
	ageom := geometry.NewGeometry()
	ageom.AddVBO(v.avbo)
	v.adepthGr, v.athickGr = newEllipsoidGraphic(ageom), newEllipsoidGraphic(ageom)
	v.adepthGr.AddMaterial(v.adepthGr, newSurfaceMaterial(surfEllipsoidDepthProgram, false), 0, 0)
	v.athickGr.AddMaterial(v.athickGr, newSurfaceMaterial(surfEllipsoidThicknessProgram, true), 0, 0)
	v.adepthNode, v.athickNode = core.NewNode(), core.NewNode()
	v.adepthNode.Add(v.adepthGr)
	v.athickNode.Add(v.athickGr)

	v.svbo = particleVBO(gls.STATIC_DRAW)
	sgeom := geometry.NewGeometry()
	sgeom.AddVBO(v.svbo)
	v.sgr = newParticleGraphic(sgeom)
	v.Node.Add(v.sgr)

	v.dvbo = particleVBO(gls.STREAM_DRAW)
	dgeom := geometry.NewGeometry()
	dgeom.AddVBO(v.dvbo)
	v.dgr = newParticleGraphic(dgeom)
	v.dgr.AddMaterial(v.dgr, v.translucent, 0, 0) // 0, 0: every vertex of the buffer
	v.Node.Add(v.dgr)

	if err := v.layout(); err != nil {
		return nil, err
	}
	v.Sync()
	return v, nil
}

// layout (re)builds the vertex ranges from the world's bodies: at start and when a body's
// particle count changed. It reuses the buffer when it is large enough.
func (v *View) layout() error {
	v.moving, v.static = v.moving[:0], v.static[:0]
	v.nMoving, v.nStatic = 0, 0
	bodies := v.world.Bodies()
	v.layoutRigid(bodies)
	for _, b := range bodies {
		if IsRigid(v.world, b) {
			continue
		}
		s := slot{e: b.Entity, phase: b.Body.Phase, style: BodyStyle(b.Body.Phase, b.Material.Color), count: b.Particles.Len(), liquid: IsLiquid(v.world, b), solid: IsSolidSurface(b)}
		if (s.liquid || s.solid) && v.world.Settings().Dimensions == 2 {
			s.style.RadiusScale *= planarRadiusScale
		}
		if Moves(v.world, b) {
			s.offset = v.nMoving
			v.nMoving += s.count
			v.moving = append(v.moving, s)
		} else {
			v.nStatic += s.count
			v.static = append(v.static, s)
		}
	}
	v.nSamples = 0
	for i := range v.rigid {
		m := &v.rigid[i]
		m.offset = v.nMoving + v.nSamples
		m.mesh.SetVisible(!v.samples)
		if m.shadow != nil {
			m.shadow.SetVisible(!v.samples)
		}
		if v.samples {
			v.nSamples += len(m.samples)
		}
	}
	cur := v.driver.Current()
	if len(cur.Poses) != len(v.rigid) {
		return fmt.Errorf("view: the driver draws %d rigid bodies, the world has %d (is the driver stepping this world?)", len(cur.Poses), len(v.rigid))
	}
	if len(cur.Counts) != len(v.moving) {
		return fmt.Errorf("view: the driver draws %d moving bodies, the world has %d (is the driver stepping this world?)", len(cur.Counts), len(v.moving))
	}
	for i := range v.moving {
		if cur.Counts[i] != v.moving[i].count {
			return fmt.Errorf("view: moving body %d has %d particles in the driver's state, %d in the world", i, cur.Counts[i], v.moving[i].count)
		}
	}
	n := v.nMoving + v.nSamples
	if cap(v.buf) < stride*n {
		v.buf = make([]float32, stride*n)
	}
	v.buf = v.buf[:stride*n]
	if cap(v.sbuf) < stride*v.nStatic {
		v.sbuf = make([]float32, stride*v.nStatic)
	}
	v.sbuf = v.sbuf[:stride*v.nStatic]
	if v.samples {
		for i, m := range v.rigid {
			c := RigidShade(v.world.RigidBody(m.e).State.Motion, i)
			for k := range m.samples {
				v.writeStyle(stride*(m.offset+k), c, sampleRadiusScale)
			}
		}
	}
	v.layoutWalls()
	off := 0
	for i := range v.static {
		v.static[i].offset = off
		off += v.static[i].count
		x := v.world.Particles(v.static[i].e).X
		st := v.static[i].style
		for k, p := range x {
			j := stride * (v.static[i].offset + k)
			v.sbuf[j], v.sbuf[j+1], v.sbuf[j+2] = float32(p[0]), float32(p[1]), float32(p[2])
			c := st.Color
			v.sbuf[j+3], v.sbuf[j+4], v.sbuf[j+5], v.sbuf[j+6] = c.R, c.G, c.B, c.A
			v.sbuf[j+7] = st.RadiusScale * v.radius
		}
	}
	v.colored = false
	v.gen = v.world.Generation()
	v.vbo.SetBuffer(v.buf)
	v.svbo.SetBuffer(v.sbuf)
	v.staticTotal += len(v.sbuf)
	v.assignRanges()
	return nil
}

// assignRanges gives the vertex ranges to the materials: the moving bodies and the rigid
// bodies' samples opaque impostors — except, in the surface look, the liquid bodies, which go
// to the surface's depth and thickness graphics, and (colouring by phase) the elastic and
// elastoplastic bodies, each to a depth graphic of its own (solids) — and the walls
// translucent. Adjacent ranges of impostors or of liquids are merged.
func (v *View) assignRanges() {
	v.gr.ClearMaterials()
	v.depthGr.ClearMaterials()
	v.thickGr.ClearMaterials()
	v.nLiquid, v.nSolid = 0, 0
	v.solids = v.solids[:0]
	v.liquidRanges = v.liquidRanges[:0]
	surface := v.look == LookSurface
	const (
		impostor = iota
		liquid
		solid
	)
	start, kind := 0, impostor
	flush := func(end int) {
		if end <= start {
			return
		}
		switch kind {
		case liquid:
			v.depthGr.AddMaterial(v.depthGr, v.depthMat, start, end-start)
			v.thickGr.AddMaterial(v.thickGr, v.thickMat, start, end-start)
			v.nLiquid += end - start
			v.liquidRanges = append(v.liquidRanges, [2]int{start, end - start})
		case impostor:
			v.gr.AddMaterial(v.gr, v.opaque, start, end-start)
		}
	}
	for _, s := range v.moving {
		k := impostor
		switch {
		case surface && s.liquid:
			k = liquid
		case surface && s.solid && v.mode == 0:
			k = solid
		}
		if k != kind || k == solid {
			flush(s.offset)
			start, kind = s.offset, k
		}
		if k == solid {
			gr := newParticleGraphic(v.geom)
			gr.AddMaterial(gr, v.depthMat, s.offset, s.count)
			b := solidBody{node: core.NewNode(), color: s.style.Color}
			b.node.Add(gr)
			v.solids = append(v.solids, b)
			v.nSolid += s.count
			start = s.offset + s.count
		}
	}
	flush(v.nMoving)
	start, kind = v.nMoving, impostor
	flush(v.nMoving + v.nSamples)
	v.sgr.ClearMaterials()
	start, end := 0, 0
	for _, s := range v.static {
		if s.faces {
			if end > start {
				v.sgr.AddMaterial(v.sgr, v.translucent, start, end-start)
			}
			start = s.offset + s.count
		}
		end = s.offset + s.count
	}
	if end > start {
		v.sgr.AddMaterial(v.sgr, v.translucent, start, end-start)
	}
	v.sgr.SetVisible(len(v.sgr.Materials()) > 0)
	v.layoutEllipsoids()
}

// layoutWalls finds the static walls that are boxes (WallBox) or were made from a triangle mesh
// (World.WallMesh) and, unless the wall samples are drawn, makes their faces (boxFaces,
// meshFaces), replacing the faces of the last layout (layouts are rare: at start, on a toggle
// and when bodies change). Other walls (given as samples) are drawn as samples either way,
// except in a 2D world, where every wall is drawn as a solid strip in the plane
// (planarWallQuads).
func (v *View) layoutWalls() {
	for _, m := range v.wallMeshes {
		v.Node.Remove(m)
		m.Dispose()
	}
	v.wallMeshes = v.wallMeshes[:0]
	v.faced = 0
	set := v.world.Settings()
	for i := range v.static {
		s := &v.static[i]
		s.faces = false
		if v.wallSamples {
			continue
		}
		var glass, solid *graphic.Mesh
		if set.Dimensions == 2 {
			// A 2D world's walls are rows of samples in the plane: drawn as a solid strip of
			// squares, one per sample (planarWallQuads), in the floor's stone colour.
			pos, nrm := planarWallQuads(v.world.Particles(s.e).X, set.Spacing())
			solid = faceMesh(pos, nrm, FloorColor, material.SideDouble)
		} else if lo, hi, ok := WallBox(v.world.Particles(s.e).X, set.Spacing(), set.BoundaryLayers); ok {
			glass, solid = newWallMeshes(lo, hi)
		} else if m, ok := v.world.WallMesh(s.e); ok {
			glass, solid = newMeshWall(m)
		}
		for _, m := range []*graphic.Mesh{solid, glass} {
			if m != nil {
				s.faces = true
				v.Node.Add(m)
				v.wallMeshes = append(v.wallMeshes, m)
			}
		}
		if s.faces {
			v.faced++
		}
	}
}

// SetWallSamples draws the static walls as their boundary samples (translucent dots, what the
// fluid touches), or back as faces: box walls (WallBox) as glass sides and an opaque floor,
// walls made from a mesh as its triangles (a tank's as glass with an opaque floor, an
// obstacle's or a sheet's opaque), walls given as samples as samples either way.
func (v *View) SetWallSamples(on bool) error {
	if on == v.wallSamples {
		return nil
	}
	v.wallSamples = on
	return v.layout()
}

// WallSamples reports whether the walls are drawn as samples, and how many walls are drawn as
// faces.
func (v *View) WallSamples() (on bool, faced int) { return v.wallSamples, v.faced }

// SetLook draws the liquid bodies as the screen-space fluid surface and the elastic and
// elastoplastic bodies as opaque surfaces (LookSurface, the default) or all of them as shaded
// spheres (LookMarbles, the debug look). The surface needs Run's render passes
// (a View drawn by a plain g3n render shows no liquid in the surface look).
func (v *View) SetLook(look string) error {
	if err := checkLook(look); err != nil {
		return err
	}
	if look != v.look {
		v.look = look
		v.assignRanges()
	}
	return nil
}

// Look is the fluid look: LookSurface or LookMarbles.
func (v *View) Look() string { return v.look }

// SurfaceParticles is the number of particles drawn as the fluid surface (0 in the marbles
// look or without liquid bodies).
func (v *View) SurfaceParticles() int { return v.nLiquid }

// SolidSurfaces is the number of elastic and elastoplastic bodies drawn as opaque surfaces, and
// of their particles (0 in the marbles look, when colouring by a field — they are drawn as
// spheres in the field's colours then — or without such bodies).
func (v *View) SolidSurfaces() (bodies, particles int) { return len(v.solids), v.nSolid }

// SetRigidSamples draws the rigid bodies as their boundary samples (opaque dots in the body's
// colour, at its interpolated pose) instead of meshes, or back as meshes: the samples are what
// the fluid and the other bodies touch, worth seeing when checking the coupling.
func (v *View) SetRigidSamples(on bool) error {
	if on == v.samples {
		return nil
	}
	v.samples = on
	return v.layout()
}

// RigidSamples reports whether the rigid bodies are drawn as their samples, and how many.
func (v *View) RigidSamples() (on bool, n int) { return v.samples, v.nSamples }

// layoutRigid makes a mesh for every rigid body of the world, keeping the meshes of the bodies
// it has already (a body's shape never changes) and disposing of those of bodies that went.
func (v *View) layoutRigid(bodies []systems.BodyView) {
	old := v.rigid
	v.rigid = nil
	floor, hasFloor := v.findFloor(bodies)
	for _, b := range bodies {
		if !IsRigid(v.world, b) {
			continue
		}
		k := slices.IndexFunc(old, func(m rigidMesh) bool { return m.e == b.Entity })
		if k >= 0 && (old[k].shadow != nil) == hasFloor && (!hasFloor || floor == v.floor) {
			v.rigid = append(v.rigid, old[k])
			old[k].mesh, old[k].shadow = nil, nil
			continue
		}
		st := &v.world.RigidBody(b.Entity).State
		pos, nrm, idx := ShapeMesh(st.Shape)
		g := geometry.NewGeometry()
		g.SetIndices(math32.ArrayU32(idx))
		g.AddVBO(gls.NewVBO(math32.ArrayF32(pos)).AddAttrib(gls.VertexPosition))
		g.AddVBO(gls.NewVBO(math32.ArrayF32(nrm)).AddAttrib(gls.VertexNormal))
		c := RigidShade(st.Motion, len(v.rigid))
		mat := material.NewStandard(&math32.Color{R: c.R, G: c.G, B: c.B})
		mat.SetShininess(20)
		if st.Shape.Kind == rigid.Mesh {
			// A model's winding is what its file says: draw both sides rather than show holes.
			mat.SetSide(material.SideDouble)
		}
		m := graphic.NewMesh(g, mat)
		m.SetPosition(float32(st.X[0]), float32(st.X[1]), float32(st.X[2]))
		m.SetQuaternion(float32(st.Q[1]), float32(st.Q[2]), float32(st.Q[3]), float32(st.Q[0]))
		v.Node.Add(m)
		rm := rigidMesh{e: b.Entity, mesh: m, samples: st.Samples}
		if hasFloor {
			rm.model = pos
			rm.shadowVBO = gls.NewVBO(math32.NewArrayF32(len(pos), len(pos))).AddAttrib(gls.VertexPosition)
			rm.shadowVBO.SetUsage(gls.STREAM_DRAW)
			sg := geometry.NewGeometry()
			sg.SetIndices(math32.ArrayU32(idx))
			sg.AddVBO(rm.shadowVBO)
			sm := material.NewStandard(&math32.Color{})
			sm.SetSpecularColor(&math32.Color{})
			sm.SetOpacity(ShadowOpacity)
			sm.SetTransparent(true)
			sm.SetDepthMask(false)
			sm.SetSide(material.SideDouble)
			rm.shadow = graphic.NewMesh(sg, sm)
			v.Node.Add(rm.shadow)
		}
		v.rigid = append(v.rigid, rm)
	}
	v.floor = floor
	for _, m := range old {
		if m.mesh != nil {
			v.Node.Remove(m.mesh)
			m.mesh.Dispose()
		}
		if m.shadow != nil {
			v.Node.Remove(m.shadow)
			m.shadow.Dispose()
		}
	}
}

// findFloor returns the height of the floor the rigid bodies' shadows fall on: the lowest
// bottom face among the static walls that are boxes (WallBox, as drawn), or ok false when no
// wall is a box (no shadows are drawn then).
func (v *View) findFloor(bodies []systems.BodyView) (y float64, ok bool) {
	set := v.world.Settings()
	for _, b := range bodies {
		if b.Body.Phase != components.Boundary || Moves(v.world, b) || IsRigid(v.world, b) {
			continue
		}
		if lo, _, box := WallBox(b.Particles.X, set.Spacing(), set.BoundaryLayers); box && (!ok || lo[1] < y) {
			y, ok = lo[1], true
		}
	}
	return y, ok
}

// writeStyle sets the colour and drawn radius of the vertex at float index j.
func (v *View) writeStyle(j int, c Color, scale float32) {
	v.buf[j+3], v.buf[j+4], v.buf[j+5], v.buf[j+6] = c.R, c.G, c.B, c.A
	v.buf[j+7] = scale * v.radius
}

// Sync copies the frame's state into the vertex buffer: the moving particles at the driver's
// interpolated positions and, when colouring by a field, their colours. Call it once per frame
// after Driver.Advance. It also moves the rigid bodies' meshes to their interpolated poses. It
// allocates nothing unless a body's particle count or the set of rigid bodies changed.
func (v *View) Sync() {
	cur := v.driver.Current()
	changed := len(cur.Counts) != len(v.moving) || len(cur.Poses) != len(v.rigid) || v.gen != v.world.Generation()
	for i := 0; !changed && i < len(v.moving); i++ {
		changed = cur.Counts[i] != v.moving[i].count
	}
	if changed {
		if err := v.layout(); err != nil {
			// The world and the driver disagree: keep the old picture rather than draw garbage.
			return
		}
	}
	v.driver.Interpolate(v.buf, stride)
	if v.mode > 0 {
		v.colorByField(fields[v.mode-1])
	} else if !v.colored {
		for _, s := range v.moving {
			st := s.style
			for k := 0; k < s.count; k++ {
				v.writeStyle(stride*(s.offset+k), st.Color, st.RadiusScale)
			}
		}
		v.colored = true
	}
	shadows := v.syncRigid()
	v.vbo.Update()
	v.frameUploads = len(v.buf) + shadows
	if v.Anisotropic() {
		v.syncEllipsoids()
		v.frameUploads += len(v.abuf)
	}
	v.syncDiffuse()
}

// Uploads returns the floats queued for upload to the GL by the last Sync (the moving
// particles' buffer, the rigid bodies' shadows and the diffuse particles' when there are any) and, over the view's life,
// by the static walls' buffer, which only a layout queues.
func (v *View) Uploads() (frame, static int) { return v.frameUploads, v.staticTotal }

// syncDiffuse writes the world's diffuse particles into their buffer, styled by kind
// (DiffuseStyles). It allocates only when their number grows past the buffer.
func (v *View) syncDiffuse() {
	d := v.world.Diffuse()
	n := d.Len()
	if n == 0 && v.nDiffuse == 0 {
		return
	}
	if cap(v.dbuf) < stride*n {
		v.dbuf = make([]float32, stride*n, stride*(n+n/4))
	}
	v.dbuf = v.dbuf[:stride*n]
	for i, x := range d.X {
		j := stride * i
		st := DiffuseStyles[d.Kind[i]]
		v.dbuf[j], v.dbuf[j+1], v.dbuf[j+2] = float32(x[0]), float32(x[1]), float32(x[2])
		v.dbuf[j+3], v.dbuf[j+4], v.dbuf[j+5], v.dbuf[j+6] = st.Color.R, st.Color.G, st.Color.B, st.Color.A
		v.dbuf[j+7] = st.RadiusScale * v.radius
	}
	v.nDiffuse = n
	v.dgr.SetVisible(n > 0)
	v.dvbo.SetBuffer(v.dbuf)
	v.frameUploads += len(v.dbuf)
}

// Diffuse is the number of diffuse particles (spray, foam, bubbles) drawn at the last Sync.
func (v *View) Diffuse() int { return v.nDiffuse }

// syncRigid moves each rigid body's mesh to the body's interpolated pose, or its samples when
// they are drawn instead, and rewrites the shadows; it returns the floats of the shadows'
// buffers queued for upload. It allocates nothing (the poses' scratch is kept; g3n's node
// setters store values).
func (v *View) syncRigid() (shadowFloats int) {
	v.poses = v.driver.Poses(v.poses)
	for i, m := range v.rigid {
		p := &v.poses[i]
		if v.samples {
			v.placeSamples(m, p)
			continue
		}
		m.mesh.SetPosition(float32(p.X[0]), float32(p.X[1]), float32(p.X[2]))
		// g3n's quaternions are (x, y, z, w); the solver's [w, x, y, z].
		m.mesh.SetQuaternion(float32(p.Q[1]), float32(p.Q[2]), float32(p.Q[3]), float32(p.Q[0]))
		if m.shadow != nil {
			ProjectShadow(m.model, p, v.floor, SunDirection, *m.shadowVBO.Buffer())
			m.shadowVBO.Update()
			shadowFloats += len(m.model)
		}
	}
	return shadowFloats
}

// placeSamples writes a rigid body's samples at pose p into the vertex buffer: x = X + R(Q)·s
// for each body-frame sample s.
func (v *View) placeSamples(m rigidMesh, p *Pose) {
	r := rigid.Quat(p.Q).Matrix()
	for k, s := range m.samples {
		j := stride * (m.offset + k)
		v.buf[j] = float32(p.X[0] + r[0]*s[0] + r[1]*s[1] + r[2]*s[2])
		v.buf[j+1] = float32(p.X[1] + r[3]*s[0] + r[4]*s[1] + r[5]*s[2])
		v.buf[j+2] = float32(p.X[2] + r[6]*s[0] + r[7]*s[1] + r[8]*s[2])
	}
}

// colorByField colours the moving particles by a field through the colour map; bodies without
// the field keep their phase colour.
func (v *View) colorByField(f Field) {
	if cap(v.values) < v.nMoving {
		v.values = make([]float32, v.nMoving)
	}
	v.values = v.values[:v.nMoving]
	for i := range v.moving {
		s := &v.moving[i]
		vals := v.values[s.offset : s.offset+s.count]
		p := v.world.Particles(s.e)
		s.plain = p.Len() != s.count || !f.Eval(p, v.world.Material(s.e), vals)
		if s.plain {
			for k := range vals {
				vals[k] = float32(math.NaN()) // not counted in the range
			}
		}
	}
	if cap(v.hist) < rangeBins {
		v.hist = make([]int32, rangeBins)
	}
	// The map spans the 1st–99th percentile (RobustRange); the legend also shows the full range.
	lo, hi, fullLo, fullHi := RobustRange(v.values, v.hist)
	v.fullLo, v.fullHi = fullLo, fullHi
	if f.Min < f.Max {
		lo, hi = f.Min, f.Max
	}
	if !(hi > lo) { // one value, or none: a range around it so the map is defined
		if math.IsNaN(lo) {
			lo, hi = 0, 1
		} else {
			lo, hi = lo-0.5, lo+0.5
		}
	}
	v.lo, v.hi = lo, hi
	scale := float32((lutSize - 1) / (hi - lo))
	flo := float32(lo)
	for i := range v.moving {
		s := &v.moving[i]
		st := s.style
		if s.plain {
			for k := 0; k < s.count; k++ {
				v.writeStyle(stride*(s.offset+k), st.Color, st.RadiusScale)
			}
			continue
		}
		for k, x := range v.values[s.offset : s.offset+s.count] {
			// Round to the nearest entry; clamp (a fixed range may not cover every value; NaN
			// converts to an undefined int, so it is clamped too).
			f := (x-flo)*scale + 0.5
			i := 0
			if f > 0 {
				i = min(int(f), lutSize-1)
			}
			v.writeStyle(stride*(s.offset+k), v.lut[i], st.RadiusScale)
		}
	}
	v.colored = false
}

// SetColorMode colours by phase ("phase") or by a registered field's name.
func (v *View) SetColorMode(name string) error {
	modes := ColorModes()
	for i, m := range modes {
		if m == name {
			v.mode = i
			v.colored = false
			v.assignRanges() // the solid bodies are surfaces only when colouring by phase
			return nil
		}
	}
	return fmt.Errorf("colour mode %q: not one of %q", name, modes)
}

// CycleColor switches to the next colouring.
func (v *View) CycleColor() {
	v.mode = (v.mode + 1) % (len(fields) + 1)
	v.colored = false
	v.assignRanges()
}

// ColorMode returns the current colouring's name, and for a field its unit and the colour
// map's range in the last Sync (for the legend).
func (v *View) ColorMode() (name, unit string, lo, hi float64, field bool) {
	if v.mode == 0 {
		return "phase", "", 0, 0, false
	}
	f := fields[v.mode-1]
	return f.Name, f.Unit, v.lo, v.hi, true
}

// FullRange returns the smallest and largest value of the field at the last Sync (NaN when
// not colouring by a field or no body has it); the colour map spans ColorMode's narrower range.
func (v *View) FullRange() (lo, hi float64) {
	if v.mode == 0 {
		return math.NaN(), math.NaN()
	}
	return v.fullLo, v.fullHi
}

// ColorMap is the map fields are drawn with.
func (v *View) ColorMap() *ColorMap { return v.cmap }

// SetColorMap changes the map fields are drawn with.
func (v *View) SetColorMap(m *ColorMap) {
	v.cmap = m
	for i := range v.lut {
		v.lut[i] = m.At(float32(i) / (lutSize - 1))
	}
	v.colored = false
}

// Particles is the number of vertices drawn: moving and static.
func (v *View) Particles() (moving, static int) { return v.nMoving, v.nStatic }

// RigidBodies is the number of rigid bodies drawn as meshes.
func (v *View) RigidBodies() int { return len(v.rigid) }

// Bounds returns the box around every drawn particle and rigid body of the world (for framing
// the camera; a body counts as the ball its surface stays in).
func (v *View) Bounds() (lo, hi math32.Vector3) {
	lo = math32.Vector3{X: math32.Inf(1), Y: math32.Inf(1), Z: math32.Inf(1)}
	hi = math32.Vector3{X: math32.Inf(-1), Y: math32.Inf(-1), Z: math32.Inf(-1)}
	for _, b := range [][]float32{v.buf, v.sbuf} {
		for j := 0; j+2 < len(b); j += stride {
			lo.X, lo.Y, lo.Z = min(lo.X, b[j]), min(lo.Y, b[j+1]), min(lo.Z, b[j+2])
			hi.X, hi.Y, hi.Z = max(hi.X, b[j]), max(hi.Y, b[j+1]), max(hi.Z, b[j+2])
		}
	}
	for i, m := range v.rigid[:min(len(v.rigid), len(v.poses))] { // poses lag a failed layout
		x, r := v.poses[i].X, v.world.RigidBody(m.e).State.Reach
		lo.X, lo.Y, lo.Z = min(lo.X, float32(x[0]-r)), min(lo.Y, float32(x[1]-r)), min(lo.Z, float32(x[2]-r))
		hi.X, hi.Y, hi.Z = max(hi.X, float32(x[0]+r)), max(hi.Y, float32(x[1]+r)), max(hi.Z, float32(x[2]+r))
	}
	return lo, hi
}

// particleVBO makes an empty vertex buffer in the particle shader's layout (position, RGBA
// colour, radius), with the given usage hint: STREAM_DRAW for what changes every frame,
// STATIC_DRAW for the walls' samples, written only when the layout changes.
func particleVBO(usage uint32) *gls.VBO {
	b := gls.NewVBO(nil)
	b.AddAttrib(gls.VertexPosition)
	b.AddCustomAttrib("ParticleColor", 4)
	b.AddCustomAttrib("ParticleRadius", 1)
	b.SetUsage(usage)
	return b
}
