// Package scene reads scene files and writes particle data. A native scene is a JSON file whose
// every key is declared once in Go (see package params): unknown keys, wrong types, missing
// required keys and out-of-range values are errors naming the JSON path and the allowed range.
package scene

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/params"
	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/diffuse"
	"github.com/sluicephysics/sluice/physics/rigid"
)

// Scene is a native sluice scene file.
type Scene struct {
	Solver     components.Solver `json:"solver" doc:"solver and time-stepping settings"`
	Duration   float64           `json:"duration" unit:"s" default:"2" range:"(0,1000000]" doc:"simulated time; sluice run --duration overrides it"`
	FPS        float64           `json:"fps" unit:"1/s" default:"60" range:"[1,100000]" doc:"frames per simulated second: one World.Step (and one stats line) per frame"`
	Fluids     []FluidBlock      `json:"fluids" doc:"fluid blocks (a scene needs a fluid block, sphere, model, mesh or emitter)"`
	Spheres    []FluidSphere     `json:"fluidSpheres" doc:"fluid (or goo) balls"`
	Emitters   []Emitter         `json:"emitters" doc:"fluid bodies that grow from a nozzle"`
	Boundaries []BoundaryBox     `json:"boundaries" doc:"static walls: boxes"`
	Meshes     []BoundaryMesh    `json:"boundaryMeshes" doc:"static walls: OBJ meshes"`
	Models     []FluidModel      `json:"fluidModels" doc:"fluid bodies read from particle files"`
	Rigid      []RigidBody       `json:"rigidBodies" doc:"rigid bodies: boxes, spheres, capsules and closed OBJ meshes; static, kinematic or dynamic"`

	// FluidMeshes are fluid bodies sampled inside closed OBJ meshes.
	FluidMeshes []FluidMesh   `json:"fluidMeshes" doc:"fluid bodies filling closed OBJ meshes"`
	Elastic     []ElasticBody `json:"elasticBodies" doc:"elastic solids (Peer et al. 2018): boxes, balls and particle files"`
	// Elastoplastic are point-based elastoplastic solids (scene/elastoplastic.go).
	Elastoplastic []ElastoplasticBody `json:"elastoplasticBodies" doc:"elastoplastic solids (Gerszewski et al. 2009): dough, clay, snow; boxes and balls"`
	// Joints join the scene's rigid bodies by name (components.Joint).
	Joints []Joint `json:"joints" doc:"joints between rigid bodies, or a rigid body and the world: ball, hinge, fixed, slider; motors and limits"`
	// Reduced are model-reduced air domains (scene/reduced.go).
	Reduced []ReducedDomain `json:"reducedDomains" doc:"model-reduced air domains (Gerszewski 2014 ch. 5) in a plane of the world, coupled with the planar rigid bodies in it that set reducedPanels"`
	Wind    []WindBox       `json:"windBoxes" doc:"model-reduced 3D winds in boxes: a fan drives them, they push rigid bodies and drag fluid and goo particles"`
	// Anim are the animation fields (scene/animation.go).
	Anim []AnimationField `json:"animationFields" doc:"shapes inside which the fluid's velocity, microrotation or position is set every substep by math expressions of time and the particle's state"`
	// Flip are FLIP liquids on their own grids (scene/flip.go).
	Flip []FlipBody `json:"flipBodies" doc:"FLIP liquids (Gerszewski 2014, ch. 3): blocks of liquid on their own MAC grid, for large splashes"`
	// Cloth are cloth sheets in the Projective Fluids solve (scene/cloth.go).
	Cloth []ClothBody `json:"clothBodies" doc:"cloth sheets (Projective Dynamics springs in the Projective Fluids solve; needs solver.pressureSolver pf): rectangles or OBJ meshes, with pinned vertices"`

	// Dir is the folder relative mesh paths resolve against (the scene file's folder).
	Dir string `json:"-"`

	// implicitTank marks the imported meshes whose SPlisHSPlasH body did not say which side
	// holds fluid (no mapInvert); ImportSPlisHSPlasH decides once the files can be read.
	implicitTank []bool
}

// Placement puts a mesh or a particle model into the scene: scaled, then rotated by
// rotationAngle about rotationAxis, then translated (SPlisHSPlasH's order). It is declared
// once and embedded in every placed body.
type Placement struct {
	Scale         mgl64.Vec3 `json:"scale" default:"[1,1,1]" range:"[-1e6,1e6]" doc:"scale per axis, applied first"`
	RotationAxis  mgl64.Vec3 `json:"rotationAxis" default:"[0,1,0]" range:"[-1e6,1e6]" doc:"rotation axis"`
	RotationAngle float64    `json:"rotationAngle" unit:"rad" default:"0" range:"[-100,100]" doc:"rotation angle about rotationAxis, applied after scaling"`
	Translation   mgl64.Vec3 `json:"translation" unit:"m" default:"[0,0,0]" range:"[-1e6,1e6]" doc:"translation, applied last"`
}

// check reports a zero scale component or a zero axis with a non-zero angle.
func (p *Placement) check(path string) error {
	if p.Scale[0] == 0 || p.Scale[1] == 0 || p.Scale[2] == 0 {
		return &params.Error{Path: path + ".scale", Msg: fmt.Sprintf("%v has a zero component", p.Scale)}
	}
	if p.RotationAngle != 0 && p.RotationAxis.Len() == 0 {
		return &params.Error{Path: path + ".rotationAxis", Msg: "must not be zero when rotationAngle is set"}
	}
	return nil
}

// apply transforms points in place.
func (p *Placement) apply(x []mgl64.Vec3) error {
	m := Mesh{V: x}
	return m.Transform(p.Scale, p.RotationAxis, p.RotationAngle, p.Translation)
}

// FluidModel is a fluid body whose particles are read from a particle file (Houdini classic
// BGEO, as SPlisHSPlasH writes them), scaled, rotated and translated like a BoundaryMesh. The
// file's velocities are used when present, else velocity.
type FluidModel struct {
	Name string `json:"name" required:"true" doc:"unique body name"`
	File string `json:"file" required:"true" doc:"particle file (.bgeo), relative to the scene file"`
	Placement
	Velocity mgl64.Vec3          `json:"velocity" unit:"m/s" default:"[0,0,0]" range:"[-1e4,1e4]" doc:"initial velocity when the file has none"`
	Material components.Material `json:"material" doc:"fluid material"`
}

// Particles loads and places the model's particles (relative paths against dir).
func (m *FluidModel) Particles(dir string) (x, v []mgl64.Vec3, err error) {
	x, v, err = LoadBGEO(resolve(dir, m.File))
	if err != nil {
		return nil, nil, err
	}
	if err := m.apply(x); err != nil {
		return nil, nil, err
	}
	if v == nil {
		v = make([]mgl64.Vec3, len(x))
		for i := range v {
			v[i] = m.Velocity
		}
	} else {
		// velocities turn with the body (scale does not apply to them)
		vm := Mesh{V: v}
		vm.Transform(mgl64.Vec3{1, 1, 1}, m.RotationAxis, m.RotationAngle, mgl64.Vec3{})
	}
	return x, v, nil
}

// FluidMesh is a fluid body filling the inside of a closed (watertight) OBJ mesh, placed like
// a BoundaryMesh: the lattice of spacing 2r inside the placed mesh, every particle at least r
// from its surface (Mesh.SampleVolume), so a box mesh gives exactly the particles of the
// fluid block of the same box.
type FluidMesh struct {
	Name string `json:"name" required:"true" doc:"unique body name"`
	File string `json:"file" required:"true" doc:"closed OBJ mesh whose inside is filled, relative to the scene file"`
	Placement
	Velocity mgl64.Vec3          `json:"velocity" unit:"m/s" default:"[0,0,0]" range:"[-1e4,1e4]" doc:"initial velocity"`
	Material components.Material `json:"material" doc:"fluid material"`
}

// Load reads the mesh (relative to dir), checks that it is closed and places it.
func (m *FluidMesh) Load(dir string) (*Mesh, error) {
	mesh, err := LoadOBJ(resolve(dir, m.File))
	if err != nil {
		return nil, err
	}
	if open := mesh.OpenEdges(); open > 0 {
		return nil, fmt.Errorf("%s is not closed: %d edges are not shared by exactly two triangles, and a volume needs a watertight mesh", m.File, open)
	}
	if err := m.apply(mesh.V); err != nil {
		return nil, err
	}
	return mesh, nil
}

// Particles loads the mesh and samples its inside at spacing s.
func (m *FluidMesh) Particles(dir string, s float64) ([]mgl64.Vec3, error) {
	mesh, err := m.Load(dir)
	if err != nil {
		return nil, err
	}
	x, err := mesh.SampleVolume(s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.File, err)
	}
	if len(x) == 0 {
		return nil, fmt.Errorf("%s: no particle fits inside the mesh at spacing %g m", m.File, s)
	}
	return x, nil
}

// BoundaryMesh is an OBJ mesh whose surface is sampled with boundary particles. The mesh is
// scaled, then rotated by rotationAngle about rotationAxis, then translated (SPlisHSPlasH's
// order).
type BoundaryMesh struct {
	Name string `json:"name" required:"true" doc:"unique body name"`
	File string `json:"file" required:"true" doc:"OBJ file, relative to the scene file"`
	Placement
	Tank bool `json:"tank" default:"false" doc:"true: fluid inside (extra layers go along the face normals); false: an obstacle"`
	components.Surface
}

// FluidBlock is a box filled with fluid particles at spacing 2r (SPlisHSPlasH's block rule).
type FluidBlock struct {
	Name     string              `json:"name" required:"true" doc:"unique body name"`
	Min      mgl64.Vec3          `json:"min" unit:"m" required:"true" range:"[-1e6,1e6]" doc:"lower corner of the box"`
	Max      mgl64.Vec3          `json:"max" unit:"m" required:"true" range:"[-1e6,1e6]" doc:"upper corner of the box"`
	Velocity mgl64.Vec3          `json:"velocity" unit:"m/s" default:"[0,0,0]" range:"[-1e4,1e4]" doc:"initial velocity"`
	Material components.Material `json:"material" doc:"fluid material"`
}

// BoundaryBox is the surface of a box sampled with boundary particles (Akinci et al. 2012).
type BoundaryBox struct {
	Name string     `json:"name" required:"true" doc:"unique body name"`
	Min  mgl64.Vec3 `json:"min" unit:"m" required:"true" range:"[-1e6,1e6]" doc:"lower corner of the box"`
	Max  mgl64.Vec3 `json:"max" unit:"m" required:"true" range:"[-1e6,1e6]" doc:"upper corner of the box"`
	Tank bool       `json:"tank" default:"true" doc:"true: fluid inside (a tank, sampled outward); false: an obstacle (sampled inward); the layer count is solver.boundaryLayers"`
	components.Surface
	Motion []components.MotionKey `json:"motion" doc:"kinematic path: the box translates with each key's velocity until its time, then rests (empty: static)"`
}

// RigidBody is a rigid body (components.RigidBody): a box, sphere or capsule, or a closed OBJ
// mesh read from file and scaled, then placed at position and orientation. A kinematic body
// may follow a motion path.
type RigidBody struct {
	Name  string     `json:"name" required:"true" doc:"unique body name"`
	File  string     `json:"file" default:"" doc:"mesh bodies: OBJ file (closed, counter-clockwise seen from outside), relative to the scene file"`
	Scale mgl64.Vec3 `json:"scale" default:"[1,1,1]" range:"[-1e6,1e6]" doc:"mesh bodies: scale per axis applied to the file's vertices"`
	components.RigidBody
	components.Surface
	Motion []components.MotionKey `json:"motion" doc:"kinematic bodies: path of piecewise-constant velocities (empty: the body keeps its velocity)"`
}

// Joint joins rigid body bodyA to rigid body bodyB, or to the world when bodyB is empty, as
// they stand at the start (components.Joint; sluice.World.AddJoint).
type Joint struct {
	BodyA string `json:"bodyA" required:"true" doc:"name of a rigid body of the scene"`
	BodyB string `json:"bodyB" default:"" doc:"name of another rigid body of the scene; empty: the world"`
	components.Joint
}

// Emitter is a fluid body that starts empty and grows from a nozzle (components.Emitter).
type Emitter struct {
	Name string `json:"name" required:"true" doc:"unique body name"`
	components.Emitter
	Material components.Material `json:"material" doc:"material of the emitted fluid"`
}

// FluidSphere is a ball of fluid (or goo) particles on the lattice of spacing 2r.
type FluidSphere struct {
	Name     string              `json:"name" required:"true" doc:"unique body name"`
	Center   mgl64.Vec3          `json:"center" unit:"m" required:"true" range:"[-1e6,1e6]" doc:"centre of the ball"`
	Radius   float64             `json:"radius" unit:"m" required:"true" range:"(0,1e6]" doc:"radius; lattice points up to radius − r from the centre are filled (at least the spacing 2r)"`
	Velocity mgl64.Vec3          `json:"velocity" unit:"m/s" default:"[0,0,0]" range:"[-1e4,1e4]" doc:"initial velocity"`
	Material components.Material `json:"material" doc:"fluid material (goo with material.viscoelastic.enabled)"`
}

// ElasticBody is an elastic solid: a box or a ball filled with particles at spacing 2r, whose
// sampled shape is its rest shape, with an initial velocity and spin.
type ElasticBody struct {
	Name  string `json:"name" required:"true" doc:"unique body name"`
	Shape string `json:"shape" default:"box" doc:"box (min, max), sphere (center, radius) or file (a particle file, placed)"`
	File  string `json:"file" doc:"file: particle file (.bgeo), relative to the scene file; its particles are the body's rest shape"`
	Placement
	Min             mgl64.Vec3          `json:"min" unit:"m" default:"[0,0,0]" range:"[-1e6,1e6]" doc:"box: lower corner"`
	Max             mgl64.Vec3          `json:"max" unit:"m" default:"[0,0,0]" range:"[-1e6,1e6]" doc:"box: upper corner"`
	Center          mgl64.Vec3          `json:"center" unit:"m" default:"[0,0,0]" range:"[-1e6,1e6]" doc:"sphere: centre"`
	Radius          float64             `json:"radius" unit:"m" default:"0" range:"[0,1e6]" doc:"sphere: radius (at least the spacing 2r)"`
	Velocity        mgl64.Vec3          `json:"velocity" unit:"m/s" default:"[0,0,0]" range:"[-1e4,1e4]" doc:"initial velocity (file: where the file has none)"`
	AngularVelocity mgl64.Vec3          `json:"angularVelocity" unit:"rad/s" default:"[0,0,0]" range:"[-1e4,1e4]" doc:"initial spin about the body's centroid"`
	Material        components.Material `json:"material" doc:"material; the elastic group holds the moduli and the pinned box"`
}

// Default returns a scene holding only the declared defaults.
func Default() Scene {
	var s Scene
	params.Defaults(&s)
	return s
}

// Parse decodes and validates a native scene; material presets resolve to the embedded ones.
func Parse(data []byte) (*Scene, error) { return parseIn(data, "") }

// parseIn decodes and validates a native scene whose file is in folder dir ("" for none):
// material presets are merged in first (see ExpandPresets).
func parseIn(data []byte, dir string) (*Scene, error) {
	data, err := ExpandPresets(data, dir)
	if err != nil {
		return nil, err
	}
	s := Default()
	if err := params.Decode(data, &s, ""); err != nil {
		return nil, err
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

// Load reads and validates a native scene file.
func Load(path string) (*Scene, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := parseIn(data, filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s.Dir = filepath.Dir(path)
	native := func(kind string, i int) string {
		key := map[string]string{"model": "fluidModels", "mesh": "boundaryMeshes", "rigid": "rigidBodies", "fluid": "fluidMeshes", "elastic": "elasticBodies"}[kind]
		return fmt.Sprintf("%s[%d].file", key, i)
	}
	err = s.checkFiles(native)
	if err == nil {
		err = s.checkVolumes(native)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// Validate checks ranges, box corners and name uniqueness.
func (s *Scene) Validate() error {
	if err := params.Validate(s, ""); err != nil {
		return err
	}
	if err := s.Solver.Validate("solver"); err != nil {
		return err
	}
	if len(s.Fluids) == 0 && len(s.Models) == 0 && len(s.Spheres) == 0 && len(s.Emitters) == 0 && len(s.FluidMeshes) == 0 && len(s.Elastic) == 0 && len(s.Elastoplastic) == 0 && len(s.Flip) == 0 && len(s.Reduced) == 0 && len(s.Cloth) == 0 {
		return &params.Error{Path: "fluids", Msg: "at least one fluid block, fluid sphere, fluid model, fluid mesh, emitter, elastic, elastoplastic, flip or cloth body is required (or a reduced air domain)"}
	}
	if err := s.planar(); err != nil {
		return err
	}
	names := map[string]string{}
	unique := func(path, name string) error {
		if name == "" {
			return &params.Error{Path: path + ".name", Msg: "must not be empty"}
		}
		if prev, ok := names[name]; ok {
			return &params.Error{Path: path + ".name", Msg: fmt.Sprintf("%q is used by %s already", name, prev)}
		}
		names[name] = path
		return nil
	}
	box := func(path, name string, lo, hi mgl64.Vec3) error {
		if err := unique(path, name); err != nil {
			return err
		}
		for d := 0; d < s.Solver.Dimensions; d++ { // a 2D scene's boxes are rectangles: z is ignored
			if !(hi[d] > lo[d]) {
				return &params.Error{Path: fmt.Sprintf("%s.max[%d]", path, d), Msg: fmt.Sprintf("%g m must exceed min[%d] = %g m", hi[d], d, lo[d])}
			}
		}
		return nil
	}
	placed := func(path, name string, p *Placement) error {
		if err := unique(path, name); err != nil {
			return err
		}
		return p.check(path)
	}
	for i := range s.Fluids {
		f := &s.Fluids[i]
		if err := box(fmt.Sprintf("fluids[%d]", i), f.Name, f.Min, f.Max); err != nil {
			return err
		}
		if err := f.Material.Validate(fmt.Sprintf("fluids[%d].material", i)); err != nil {
			return err
		}
	}
	for i := range s.Spheres {
		f := &s.Spheres[i]
		path := fmt.Sprintf("fluidSpheres[%d]", i)
		if err := unique(path, f.Name); err != nil {
			return err
		}
		if sp := s.Solver.Spacing(); f.Radius < sp {
			return &params.Error{Path: path + ".radius", Msg: fmt.Sprintf("%g m is below the particle spacing 2r = %g m", f.Radius, sp)}
		}
		if err := f.Material.Validate(path + ".material"); err != nil {
			return err
		}
	}
	for i := range s.Emitters {
		e := &s.Emitters[i]
		path := fmt.Sprintf("emitters[%d]", i)
		if err := unique(path, e.Name); err != nil {
			return err
		}
		if err := e.Emitter.Validate(path, s.Solver.Spacing()); err != nil {
			return err
		}
		if err := e.Material.Validate(path + ".material"); err != nil {
			return err
		}
	}
	for i, b := range s.Boundaries {
		if err := box(fmt.Sprintf("boundaries[%d]", i), b.Name, b.Min, b.Max); err != nil {
			return err
		}
		m := components.Motion{Path: b.Motion}
		if err := m.Validate(fmt.Sprintf("boundaries[%d].motion", i)); err != nil {
			return err
		}
	}
	for i := range s.Models {
		if err := placed(fmt.Sprintf("fluidModels[%d]", i), s.Models[i].Name, &s.Models[i].Placement); err != nil {
			return err
		}
		if err := s.Models[i].Material.Validate(fmt.Sprintf("fluidModels[%d].material", i)); err != nil {
			return err
		}
	}
	for i := range s.Meshes {
		if err := placed(fmt.Sprintf("boundaryMeshes[%d]", i), s.Meshes[i].Name, &s.Meshes[i].Placement); err != nil {
			return err
		}
	}
	for i := range s.FluidMeshes {
		path := fmt.Sprintf("fluidMeshes[%d]", i)
		if err := placed(path, s.FluidMeshes[i].Name, &s.FluidMeshes[i].Placement); err != nil {
			return err
		}
		if err := s.FluidMeshes[i].Material.Validate(path + ".material"); err != nil {
			return err
		}
	}
	for i := range s.Rigid {
		b := &s.Rigid[i]
		path := fmt.Sprintf("rigidBodies[%d]", i)
		if err := unique(path, b.Name); err != nil {
			return err
		}
		if (b.Shape == "mesh") != (b.File != "") {
			return &params.Error{Path: path + ".file", Msg: fmt.Sprintf("%q: a file goes with shape \"mesh\" and only with it (shape is %q)", b.File, b.Shape)}
		}
		if b.Scale[0] == 0 || b.Scale[1] == 0 || b.Scale[2] == 0 {
			return &params.Error{Path: path + ".scale", Msg: fmt.Sprintf("%v has a zero component", b.Scale)}
		}
		if err := b.RigidBody.Validate(path, s.Solver.Spacing()); err != nil {
			return err
		}
		m := components.Motion{Path: b.Motion}
		if err := m.Validate(path + ".motion"); err != nil {
			return err
		}
		if len(b.Motion) > 0 && b.Type != "kinematic" {
			return &params.Error{Path: path + ".motion", Msg: fmt.Sprintf("a motion path needs type \"kinematic\" (type is %q)", b.Type)}
		}
	}
	for i := range s.Elastic {
		b := &s.Elastic[i]
		path := fmt.Sprintf("elasticBodies[%d]", i)
		switch b.Shape {
		case "box":
			if err := box(path, b.Name, b.Min, b.Max); err != nil {
				return err
			}
		case "sphere":
			if err := unique(path, b.Name); err != nil {
				return err
			}
			if sp := s.Solver.Spacing(); b.Radius < sp {
				return &params.Error{Path: path + ".radius", Msg: fmt.Sprintf("%g m is below the particle spacing 2r = %g m", b.Radius, sp)}
			}
		case "file":
			if b.File == "" {
				return &params.Error{Path: path + ".file", Msg: "shape \"file\" needs a particle file"}
			}
			if err := placed(path, b.Name, &b.Placement); err != nil {
				return err
			}
		default:
			return &params.Error{Path: path + ".shape", Msg: fmt.Sprintf("%q is not an elastic body shape (box, sphere or file)", b.Shape)}
		}
		if err := b.Material.Validate(path + ".material"); err != nil {
			return err
		}
	}
	for i := range s.Cloth {
		path := fmt.Sprintf("clothBodies[%d]", i)
		if err := unique(path, s.Cloth[i].Name); err != nil {
			return err
		}
		if err := s.Cloth[i].validate(path, s); err != nil {
			return err
		}
	}
	for i := range s.Elastoplastic {
		if err := s.Elastoplastic[i].validate(fmt.Sprintf("elastoplasticBodies[%d]", i), s.Solver.Spacing(), unique); err != nil {
			return err
		}
	}
	for i := range s.Flip {
		if err := s.Flip[i].validate(fmt.Sprintf("flipBodies[%d]", i), unique); err != nil {
			return err
		}
	}
	rigidNames := map[string]bool{}
	for _, b := range s.Rigid {
		rigidNames[b.Name] = true
	}
	for i, j := range s.Joints {
		path := fmt.Sprintf("joints[%d]", i)
		if !rigidNames[j.BodyA] {
			return &params.Error{Path: path + ".bodyA", Msg: fmt.Sprintf("%q is not a rigid body of the scene", j.BodyA)}
		}
		if j.BodyB != "" && !rigidNames[j.BodyB] {
			return &params.Error{Path: path + ".bodyB", Msg: fmt.Sprintf("%q is not a rigid body of the scene (empty: the world)", j.BodyB)}
		}
	}
	if err := s.validateAnim(); err != nil {
		return err
	}
	return s.validateReduced()
}

// resolve returns file relative to dir unless it is absolute.
func resolve(dir, file string) string {
	if filepath.IsAbs(file) {
		return file
	}
	return filepath.Join(dir, file)
}

// checkFiles reports a model or mesh file that does not exist, naming it by label(kind, i)
// (kind "model", "mesh" or "rigid"; "fluidModels[0].file" natively, the SPlisHSPlasH key when
// imported), so a missing file is found when the scene is loaded rather than when it is built.
func (s *Scene) checkFiles(label func(kind string, i int) string) error {
	for i, m := range s.Models {
		if _, err := os.Stat(resolve(s.Dir, m.File)); err != nil {
			return fmt.Errorf("%s: %w", label("model", i), err)
		}
	}
	for i, m := range s.Meshes {
		if _, err := os.Stat(resolve(s.Dir, m.File)); err != nil {
			return fmt.Errorf("%s: %w", label("mesh", i), err)
		}
	}
	for i, b := range s.Elastic {
		if b.Shape != "file" {
			continue
		}
		if _, err := os.Stat(resolve(s.Dir, b.File)); err != nil {
			return fmt.Errorf("%s: %w", label("elastic", i), err)
		}
	}
	for i, b := range s.Rigid {
		if b.File == "" {
			continue
		}
		if _, err := os.Stat(resolve(s.Dir, b.File)); err != nil {
			return fmt.Errorf("%s: %w", label("rigid", i), err)
		}
	}
	return nil
}

// checkVolumes loads every fluid mesh and every rigid-body mesh and reports one that is
// unreadable or not closed, naming it by label(kind, i) (kind "fluid" or "rigid"), so that
// `sluice validate` catches an open mesh: a volume and a body's mass need a watertight one.
func (s *Scene) checkVolumes(label func(kind string, i int) string) error {
	for i := range s.FluidMeshes {
		if _, err := s.FluidMeshes[i].Load(s.Dir); err != nil {
			return fmt.Errorf("%s (body %q): %w", label("fluid", i), s.FluidMeshes[i].Name, err)
		}
	}
	for i := range s.Rigid {
		b := &s.Rigid[i]
		if b.File == "" {
			continue
		}
		mesh, err := LoadOBJ(resolve(s.Dir, b.File))
		if err == nil {
			if open := mesh.OpenEdges(); open > 0 {
				err = fmt.Errorf("%s is not closed: %d edges are not shared by exactly two triangles, and a rigid body's mass and buoyancy need a watertight mesh", b.File, open)
			}
		}
		if err != nil {
			return fmt.Errorf("%s (body %q): %w", label("rigid", i), b.Name, err)
		}
	}
	return nil
}

// Build creates a world holding the scene's bodies; workers ≤ 0 means GOMAXPROCS.
func (s *Scene) Build(workers int) (*sluice.World, error) {
	if err := s.checkMemory(); err != nil {
		return nil, err
	}
	w, err := sluice.NewWorld(s.Solver, workers)
	if err != nil {
		return nil, err
	}
	for i, b := range s.Boundaries {
		e, err := w.AddBoundaryBox(b.Name, b.Min, b.Max, b.Tank)
		if err == nil && len(b.Motion) > 0 {
			err = w.SetMotion(e, components.Motion{Path: b.Motion})
		}
		if err != nil {
			w.Close()
			return nil, fmt.Errorf("boundaries[%d]: %w", i, err)
		}
		w.Material(e).Surface = b.Surface
	}
	for i, m := range s.Meshes {
		mesh, err := m.Placed(s.Dir)
		if err != nil {
			w.Close()
			return nil, fmt.Errorf("boundaryMeshes[%d]: %w", i, err)
		}
		e, err := w.AddBoundaryMesh(m.Name, mesh.V, mesh.Tris, m.Tank)
		if err != nil {
			w.Close()
			return nil, fmt.Errorf("boundaryMeshes[%d]: %w", i, err)
		}
		w.Material(e).Surface = m.Surface
	}
	for i, m := range s.Models {
		x, v, err := m.Particles(s.Dir)
		if err == nil {
			_, err = w.AddFluidParticles(m.Name, m.Material, x, v)
		}
		if err != nil {
			w.Close()
			return nil, fmt.Errorf("fluidModels[%d]: %w", i, err)
		}
	}
	for i, f := range s.Fluids {
		if _, err := w.AddFluidBlock(f.Name, f.Material, f.Min, f.Max, f.Velocity); err != nil {
			w.Close()
			return nil, fmt.Errorf("fluids[%d]: %w", i, err)
		}
	}
	for i, f := range s.Spheres {
		if _, err := w.AddFluidSphere(f.Name, f.Material, f.Center, f.Radius, f.Velocity); err != nil {
			w.Close()
			return nil, fmt.Errorf("fluidSpheres[%d]: %w", i, err)
		}
	}
	for i, e := range s.Emitters {
		if _, err := w.AddEmitter(e.Name, e.Material, e.Emitter); err != nil {
			w.Close()
			return nil, fmt.Errorf("emitters[%d]: %w", i, err)
		}
	}
	for i := range s.FluidMeshes {
		f := &s.FluidMeshes[i]
		x, err := f.Particles(s.Dir, s.Solver.Spacing())
		if err == nil {
			v := make([]mgl64.Vec3, len(x))
			for k := range v {
				v[k] = f.Velocity
			}
			_, err = w.AddFluidParticles(f.Name, f.Material, x, v)
		}
		if err != nil {
			w.Close()
			return nil, fmt.Errorf("fluidMeshes[%d]: %w", i, err)
		}
	}
	for i := range s.Elastic {
		if err := s.Elastic[i].add(w, s.Dir); err != nil {
			w.Close()
			return nil, fmt.Errorf("elasticBodies[%d]: %w", i, err)
		}
	}
	for i := range s.Elastoplastic {
		if err := s.Elastoplastic[i].add(w); err != nil {
			w.Close()
			return nil, fmt.Errorf("elastoplasticBodies[%d]: %w", i, err)
		}
	}
	for i := range s.Rigid {
		if err := s.Rigid[i].add(w, s.Dir); err != nil {
			w.Close()
			return nil, fmt.Errorf("rigidBodies[%d]: %w", i, err)
		}
	}
	for i := range s.Flip {
		if err := s.Flip[i].add(w); err != nil {
			w.Close()
			return nil, fmt.Errorf("flipBodies[%d]: %w", i, err)
		}
	}
	for i := range s.Cloth {
		if err := s.Cloth[i].add(w, s.Dir); err != nil {
			w.Close()
			return nil, fmt.Errorf("clothBodies[%d]: %w", i, err)
		}
	}
	for i, j := range s.Joints {
		a, _ := w.BodyByName(j.BodyA)
		var b sluice.Entity
		if j.BodyB != "" {
			b, _ = w.BodyByName(j.BodyB)
		}
		if _, err := w.AddJoint(a, b, j.Joint); err != nil {
			w.Close()
			return nil, fmt.Errorf("joints[%d]: %w", i, err)
		}
	}
	if err := s.addReduced(w); err != nil {
		w.Close()
		return nil, err
	}
	if err := s.addAnim(w); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

// add loads a mesh body's file and adds the body (after the fluid, whose particles inside it
// are removed and counted in its component).
func (b *RigidBody) add(w *sluice.World, dir string) error {
	d := b.RigidBody
	if b.File != "" {
		mesh, err := LoadOBJ(resolve(dir, b.File))
		if err != nil {
			return fmt.Errorf("file: %w", err)
		}
		for i, v := range mesh.V {
			mesh.V[i] = mgl64.Vec3{v[0] * b.Scale[0], v[1] * b.Scale[1], v[2] * b.Scale[2]}
		}
		if b.Scale[0]*b.Scale[1]*b.Scale[2] < 0 { // a mirroring scale turns the winding inside out
			for i := range mesh.Tris {
				mesh.Tris[i][1], mesh.Tris[i][2] = mesh.Tris[i][2], mesh.Tris[i][1]
			}
		}
		d.Mesh = &rigid.Shape{Kind: rigid.Mesh, V: mesh.V, Tris: mesh.Tris}
	}
	e, err := w.AddRigidBody(b.Name, d)
	if err != nil {
		return err
	}
	w.Material(e).Surface = b.Surface
	if len(b.Motion) > 0 {
		return w.SetMotion(e, components.Motion{Path: b.Motion})
	}
	return nil
}

// add creates the elastic body in w and gives it its velocity and spin.
func (b *ElasticBody) add(w *sluice.World, dir string) error {
	var e sluice.Entity
	var err error
	switch b.Shape {
	case "sphere":
		e, err = w.AddElasticSphere(b.Name, b.Material, b.Center, b.Radius, b.Velocity)
	case "file":
		m := FluidModel{File: b.File, Placement: b.Placement, Velocity: b.Velocity}
		var x, v []mgl64.Vec3
		if x, v, err = m.Particles(dir); err != nil {
			return fmt.Errorf("file: %w", err)
		}
		e, err = w.AddElasticParticles(b.Name, b.Material, x, v)
	default:
		e, err = w.AddElasticBlock(b.Name, b.Material, b.Min, b.Max, b.Velocity)
	}
	if err != nil || b.AngularVelocity == (mgl64.Vec3{}) {
		return err
	}
	p := w.Particles(e)
	var c mgl64.Vec3
	for _, x := range p.X {
		c = c.Add(x)
	}
	c = c.Mul(1 / float64(len(p.X)))
	for i, x := range p.X {
		p.V[i] = p.V[i].Add(b.AngularVelocity.Cross(x.Sub(c)))
	}
	return nil
}

// FrameOf captures the world's bodies as an export frame (slices are shared, not copied).
func FrameOf(w *sluice.World) *Frame {
	fr := &Frame{Time: w.Time()}
	for _, b := range w.Bodies() {
		p := b.Particles
		fr.Bodies = append(fr.Bodies, FrameBody{Name: b.Body.Name, Phase: b.Body.Phase.String(),
			X: p.X, V: p.V, Density: p.Density, Pressure: p.Pressure,
			RestDensity: b.Material.RestDensity, Viscosity: b.Material.Viscosity})
	}
	// The diffuse particles (solver.diffuse) follow as three bodies, one per kind, named
	// diffuse.spray, diffuse.foam and diffuse.bubble; they carry no density or pressure (0).
	if d := w.Diffuse(); d.Len() > 0 {
		for _, k := range []diffuse.Kind{diffuse.Spray, diffuse.Foam, diffuse.Bubble} {
			fb := FrameBody{Name: "diffuse." + k.String(), Phase: "diffuse"}
			for i, ki := range d.Kind {
				if ki == k {
					fb.X, fb.V = append(fb.X, d.X[i]), append(fb.V, d.V[i])
				}
			}
			fb.Density, fb.Pressure = make([]float64, len(fb.X)), make([]float64, len(fb.X))
			fr.Bodies = append(fr.Bodies, fb)
		}
	}
	return fr
}

// planar refuses, in a 2D scene (solver.dimensions 2), every kind of body the 2D world does
// not take: it has fluid blocks, spheres (discs), models, emitters (lines in the plane:
// components.Emitter.ValidatePlanar), elastic bodies, box walls and wall meshes (their sections
// with the plane).
func (s *Scene) planar() error {
	if s.Solver.Dimensions != 2 {
		return nil
	}
	for _, c := range []struct {
		key string
		n   int
	}{{"rigidBodies", len(s.Rigid)}, {"elastoplasticBodies", len(s.Elastoplastic)},
		{"flipBodies", len(s.Flip)}, {"clothBodies", len(s.Cloth)}, {"fluidMeshes", len(s.FluidMeshes)}, {"joints", len(s.Joints)},
		{"reducedDomains", len(s.Reduced)}, {"windBoxes", len(s.Wind)}} {
		if c.n > 0 {
			return &params.Error{Path: c.key, Msg: fmt.Sprintf("%d given: a 2D scene (solver.dimensions 2) takes fluid blocks, fluid spheres, fluid models, emitters, elastic bodies, box walls, wall meshes and animation fields only (docs/2d.md)", c.n)}
		}
	}
	return nil
}

// Placed loads the mesh (relative to dir) and transforms it to its place in the world.
func (m *BoundaryMesh) Placed(dir string) (*Mesh, error) {
	mesh, err := LoadOBJ(resolve(dir, m.File))
	if err != nil {
		return nil, err
	}
	if err := m.apply(mesh.V); err != nil {
		return nil, err
	}
	return mesh, nil
}

// Sample loads the mesh (relative to dir), transforms it and samples its surface at spacing s
// in the given number of layers.
func (m *BoundaryMesh) Sample(dir string, s float64, layers int) ([]mgl64.Vec3, error) {
	mesh, err := m.Placed(dir)
	if err != nil {
		return nil, err
	}
	x := mesh.SampleSurface(s, layers, m.Tank)
	if len(x) > physics.MaxSamples {
		return nil, fmt.Errorf("%s: more than %d surface samples at spacing %g m", m.File, physics.MaxSamples, s)
	}
	return x, nil
}

// Advice lists settings that validate but are likely to surprise: fluid materials whose
// viscosity the explicit force can only hold with substeps below the scene's dtMax (the
// largest substep, taken when the fluid is slow). The solver caps every substep at that limit
// (physics.Kernel.ViscousDtLimit), so the run stays stable but takes more substeps; each
// warning names the material's key, the limit and the cost. With solver.viscositySolver
// implicit or auto there is no such limit (docs/viscosity.md) and no advice.
func (s *Scene) Advice() []Warning {
	if _, err := physics.ParseKernel(s.Solver.Kernel); err != nil || s.Solver.ViscositySolver != "explicit" {
		return nil
	}
	kr := s.Solver.SmoothingKernel()
	var out []Warning
	check := func(path string, m *components.Material) {
		lim := kr.ViscousDtLimit(s.Solver.Spacing(), s.Solver.BoundaryLayers, m.Viscosity, 0)
		if lim < s.Solver.DtMax {
			out = append(out, Warning{Path: path + ".viscosity", Msg: fmt.Sprintf(
				"%g m^2/s at particleRadius %g m is stable only with substeps up to %.2g s (the explicit viscosity's limit), below solver.dtMax %g s: the solver takes substeps of at most %.2g s, up to %.1fx as many when the fluid is slow (solver.viscositySolver \"auto\" or \"implicit\" lifts the limit)",
				m.Viscosity, s.Solver.ParticleRadius, lim, s.Solver.DtMax, lim, s.Solver.DtMax/lim)})
		}
	}
	for i := range s.Fluids {
		check(fmt.Sprintf("fluids[%d].material", i), &s.Fluids[i].Material)
	}
	for i := range s.Spheres {
		check(fmt.Sprintf("fluidSpheres[%d].material", i), &s.Spheres[i].Material)
	}
	for i := range s.Models {
		check(fmt.Sprintf("fluidModels[%d].material", i), &s.Models[i].Material)
	}
	for i := range s.Emitters {
		check(fmt.Sprintf("emitters[%d].material", i), &s.Emitters[i].Material)
	}
	for i := range s.FluidMeshes {
		check(fmt.Sprintf("fluidMeshes[%d].material", i), &s.FluidMeshes[i].Material)
	}
	return out
}
