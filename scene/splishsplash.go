package scene

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/params"
	"github.com/sluicephysics/sluice/systems"
)

// Warning is one SPlisHSPlasH key that sluice does not honour, with the reason.
type Warning struct {
	Path string
	Msg  string
}

func (w Warning) String() string { return w.Path + ": " + w.Msg }

// UnsupportedError is an import failure: the scene uses a feature whose absence would change
// what is simulated (a dynamic body, an emitter, an elastic material, ...).
type UnsupportedError struct {
	Path string
	Msg  string
}

func (e *UnsupportedError) Error() string { return e.Path + ": " + e.Msg }

// IsSPlisHSPlasH reports whether JSON data looks like a SPlisHSPlasH scene (it has a
// top-level "Configuration" object).
func IsSPlisHSPlasH(data []byte) bool {
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return false
	}
	_, ok := top["Configuration"]
	return ok
}

// importer walks a decoded SPlisHSPlasH scene, consuming keys as it maps them; whatever is
// left unconsumed is reported once as a warning, so nothing is silently dropped.
type importer struct {
	warnings []Warning
	sc       Scene
	used     map[string][2]float64 // material id → (ρ0, ν) once mapped
	budget   map[string]int        // material id → maxEmitterParticles
	contacts []contact             // every rigid body's contact coefficients, in file order
	// elastic holds, per material id using Peer et al. 2018 (elasticityMethod 2), its mapped
	// elastic settings; bodies of such a material become elastic bodies.
	elastic map[string]*components.ElasticSolid
	lastID  string // material id of the last bodyMaterial call
	// bodyIDs maps a rigid body's "id" (its index when it has none) to its sluice name: a
	// dynamic body's rigid-body name, "" for a static wall.
	bodyIDs map[int]string
	// viscSet: a material selected an implicit viscosity method; nuB is the largest
	// viscosityBoundary, given to every wall and rigid body as its drag.
	viscSet bool
	nuB     float64
	// gamma maps a material id to the coefficient γ of sluice's surface tension (Akinci et
	// al. 2013) its surfaceTensionMethod maps to (surfaceTension below); absent: none.
	gamma map[string]float64
	// beta maps a material id to the coefficient β of the wall adhesion (Akinci et al. 2013,
	// Eq. 6-7), the same method's surfaceTensionBoundary; absent: none.
	beta map[string]float64
	vd   map[string]vortDragMat // material id → its micropolar and air drag (splishsplash_vortdrag.go)
}

func (im *importer) warn(path, format string, a ...any) {
	im.warnings = append(im.warnings, Warning{path, fmt.Sprintf(format, a...)})
}

// projectiveFluids maps the reference's "Projective Fluids" block: stiffness (N/m, the w of
// every constraint) and maxIterations, which the reference uses as the limit of both its
// local/global and its CG iterations. Its minIterations and maxError do not enter its PF solve
// (the CG tolerance is fixed), so they are warned about.
func (im *importer) projectiveFluids(bo obj, bp string, s *components.Solver) error {
	if _, ok := bo["stiffness"]; ok {
		if err := im.takeNum(bo, bp, "stiffness", &s.PFStiffness); err != nil {
			return err
		}
	}
	if _, ok := bo["maxIterations"]; ok {
		var it float64
		if err := im.takeNum(bo, bp, "maxIterations", &it); err != nil {
			return err
		}
		s.PFMaxIterations = int(it)
		s.PFMaxCGIterations = int(it)
	}
	for _, k := range []string{"minIterations", "maxError"} {
		if _, ok := bo[k]; ok {
			delete(bo, k)
			im.warn(bp+"."+k, "not used by the reference's Projective Fluids solve, ignored")
		}
	}
	im.leftovers(bo, bp)
	return nil
}

// viewerKeys are SPlisHSPlasH settings of its GUI, its exporters and its scripting; they do
// not change the simulation, so sluice reports them as ignored.
var viewerKeys = map[string]bool{
	"cameraPosition": true, "cameraLookat": true, "pause": true, "pauseAt": true,
	"numberOfStepsPerRenderUpdate": true, "particleAttributes": true, "renderWalls": true,
	"colorMapType": true, "renderMaxVelocity": true, "renderMaxValue": true, "renderMinValue": true,
	"colorField": true, "color": true, "enablePartioExport": true, "enableVTKExport": true,
	"enableRigidBodyExport": true, "enableRigidBodyVTKExport": true, "dataExportFPS": true,
	"enableStateExport": true, "stateExportFPS": true, "scriptFile": true, "sceneScale": true,
	"enableZSort": true,
}

type obj = map[string]any

func num(v any) (float64, bool) {
	f, ok := v.(float64)
	return f, ok
}

func vec3(v any) (mgl64.Vec3, bool) {
	a, ok := v.([]any)
	if !ok || len(a) != 3 {
		return mgl64.Vec3{}, false
	}
	var out mgl64.Vec3
	for i := range a {
		f, ok := num(a[i])
		if !ok {
			return mgl64.Vec3{}, false
		}
		out[i] = f
	}
	return out, true
}

// eachObject removes the array top[key] and calls fn on each of its objects in order.
func eachObject(top obj, key string, fn func(o obj, i int) error) error {
	v, ok := take(top, key)
	if !ok {
		return nil
	}
	arr, isArr := v.([]any)
	if !isArr {
		return fmt.Errorf("%s: expected an array", key)
	}
	for i, e := range arr {
		o, ok := e.(obj)
		if !ok {
			return fmt.Errorf("%s[%d]: expected an object", key, i)
		}
		if err := fn(o, i); err != nil {
			return err
		}
	}
	return nil
}

// take removes key from o and returns its value.
func take(o obj, key string) (any, bool) {
	v, ok := o[key]
	delete(o, key)
	return v, ok
}

// takeAs removes key from o and, when present, stores it in dst after parse accepts it;
// what is the expected form's name for the error.
func takeAs[T any](o obj, path, key, what string, parse func(any) (T, bool), dst *T) error {
	v, ok := take(o, key)
	if !ok {
		return nil
	}
	x, ok := parse(v)
	if !ok {
		return fmt.Errorf("%s.%s: expected %s, got %v", path, key, what, v)
	}
	*dst = x
	return nil
}

func (im *importer) takeNum(o obj, path, key string, dst *float64) error {
	return takeAs(o, path, key, "a number", num, dst)
}

func (im *importer) takeVec(o obj, path, key string, dst *mgl64.Vec3) error {
	return takeAs(o, path, key, "three numbers", vec3, dst)
}

// placement maps SPlisHSPlasH's scale, rotationAxis, rotationAngle and translation.
func (im *importer) placement(o obj, path string) (Placement, error) {
	pl := Placement{Scale: mgl64.Vec3{1, 1, 1}, RotationAxis: mgl64.Vec3{0, 1, 0}}
	for _, kv := range []struct {
		k string
		d *mgl64.Vec3
	}{{"translation", &pl.Translation}, {"scale", &pl.Scale}, {"rotationAxis", &pl.RotationAxis}} {
		if err := im.takeVec(o, path, kv.k, kv.d); err != nil {
			return pl, err
		}
	}
	return pl, im.takeNum(o, path, "rotationAngle", &pl.RotationAngle)
}

// leftovers reports every key of o not consumed, in sorted order.
func (im *importer) leftovers(o obj, path string) {
	keys := make([]string, 0, len(o))
	for k := range o {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		switch {
		case viewerKeys[k]:
			im.warn(path+"."+k, "viewer/export setting, ignored")
		case k == "imteStepSize":
			im.warn(path+"."+k, "unknown key (misspelt timeStepSize?), ignored as the reference ignores it")
		default:
			im.warn(path+"."+k, "not supported, ignored")
		}
	}
}

// ImportSPlisHSPlasH reads a SPlisHSPlasH scene file and maps it to a native scene. Keys that
// sluice does not honour come back as warnings (each once); features whose absence would
// change the simulation fail with an *UnsupportedError naming the key. Relative geometry
// paths resolve against the scene file's folder.
func ImportSPlisHSPlasH(path string) (*Scene, []Warning, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	sc, warns, err := importData(data)
	if err != nil {
		return nil, warns, fmt.Errorf("%s: %w", path, err)
	}
	sc.Dir = filepath.Dir(path)
	// Imported bodies are named after their index in the scene file (model<k>, wall<k>,
	// body<k>), so messages name the SPlisHSPlasH key.
	label := func(kind string, i int) string {
		var name string
		switch kind {
		case "model":
			name = sc.Models[i].Name
		case "mesh":
			name = sc.Meshes[i].Name
		case "rigid":
			name = sc.Rigid[i].Name
		case "elastic":
			name = sc.Elastic[i].Name
		default:
			name = sc.FluidMeshes[i].Name
		}
		k, _ := strconv.Atoi(strings.TrimLeft(name, "abcdefghijklmnopqrstuvwxyz"))
		if kind == "mesh" || kind == "rigid" {
			return fmt.Sprintf("RigidBodies[%d].geometryFile", k)
		}
		return fmt.Sprintf("FluidModels[%d].particleFile", k)
	}
	err = sc.checkFiles(label)
	if err == nil {
		err = sc.inferTanks(label, &warns)
	}
	if err == nil {
		err = sc.checkVolumes(label)
	}
	if err == nil {
		err = sc.checkPlanarMeshes(label)
	}
	if err != nil {
		return nil, warns, fmt.Errorf("%s: %w", path, err)
	}
	return sc, warns, nil
}

func importData(data []byte) (*Scene, []Warning, error) {
	var top obj
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, nil, fmt.Errorf("invalid JSON: %w", err)
	}
	im := &importer{sc: Default(), used: map[string][2]float64{}, budget: map[string]int{}, elastic: map[string]*components.ElasticSolid{}, vd: map[string]vortDragMat{}, bodyIDs: map[int]string{}}
	sc := &im.sc
	sc.Duration = 5 // SPlisHSPlasH runs until stopped; sluice needs an end (stopAt overrides)

	conf, _ := take(top, "Configuration")
	c, ok := conf.(obj)
	if !ok {
		return nil, nil, &UnsupportedError{"Configuration", "expected an object"}
	}
	if err := im.configuration(c); err != nil {
		return nil, im.warnings, err
	}
	mats := map[string]obj{}
	if v, ok := take(top, "Materials"); ok {
		arr, _ := v.([]any)
		for i, m := range arr {
			mo, ok := m.(obj)
			if !ok {
				return nil, im.warnings, fmt.Errorf("Materials[%d]: expected an object", i)
			}
			id, _ := mo["id"].(string)
			mats[id] = mo
		}
	}
	sections := []struct {
		key string
		fn  func(o obj, i int) error
	}{
		{"FluidBlocks", func(o obj, i int) error { return im.fluidBlock(o, i, mats) }},
		{"RigidBodies", im.rigidBody},
		{"FluidModels", func(o obj, i int) error { return im.fluidModel(o, i, mats) }},
		{"Emitters", func(o obj, i int) error { return im.emitter(o, i, mats) }},
	}
	for _, sec := range sections {
		if err := eachObject(top, sec.key, sec.fn); err != nil {
			return nil, im.warnings, err
		}
	}
	if err := im.finishContacts(); err != nil {
		return nil, im.warnings, err
	}
	if im.nuB > 0 {
		for i := range sc.Meshes {
			sc.Meshes[i].Drag = im.nuB
		}
		for i := range sc.Boundaries {
			sc.Boundaries[i].Drag = im.nuB
		}
		for i := range sc.Rigid {
			sc.Rigid[i].Drag = im.nuB
		}
	}
	for _, k := range []string{"BallJoints", "HingeJoints", "TargetVelocityMotorHingeJoints"} {
		if err := eachObject(top, k, func(o obj, i int) error { return im.joint(k, o, i) }); err != nil {
			return nil, im.warnings, err
		}
	}
	if v, ok := take(top, "Simulation"); ok {
		so, isObj := v.(obj)
		if !isObj {
			return nil, im.warnings, fmt.Errorf("Simulation: expected an object")
		}
		keys := make([]string, 0, len(so))
		for k := range so {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			im.warn("Simulation."+k, "setting of the reference's rigid-body solver (PositionBasedDynamics); sluice's own contact solver steps the bodies with the fluid's substeps, ignored")
		}
	}
	if err := eachObject(top, "AnimationFields", im.animationField); err != nil {
		return nil, im.warnings, err
	}
	for _, k := range pbdKeys {
		if v, ok := take(top, k); ok {
			if arr, isArr := v.([]any); isArr && len(arr) == 0 {
				continue
			}
			return nil, im.warnings, &UnsupportedError{k, "joints, springs and deformable models of the reference's rigid-body solver are not supported"}
		}
	}
	im.leftovers(top, "(top level)")
	ids := make([]string, 0, len(mats))
	for id := range mats {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		if _, ok := im.used[id]; !ok {
			im.warn(fmt.Sprintf("Materials[id=%q]", id), "not used by any fluid block sluice imports, ignored")
		}
	}
	if len(sc.Fluids) == 0 && len(sc.Models) == 0 && len(sc.Emitters) == 0 && len(sc.FluidMeshes) == 0 && len(sc.Elastic) == 0 {
		return nil, im.warnings, &UnsupportedError{"FluidBlocks", "the scene has no fluid block, fluid model or emitter: nothing to simulate (docs/splishsplash.md, empty scenes)"}
	}
	if err := im.planar(); err != nil {
		return nil, im.warnings, err
	}
	if err := sc.Validate(); err != nil {
		return nil, im.warnings, err
	}
	return sc, im.warnings, nil
}

// planarWhy is why a 2D scene's key is refused.
const planarWhy = "a 2D scene (Configuration.sim2D) runs in sluice's 2D world, which takes fluid blocks, fluid models, emitters, elastic bodies and static walls (their sections with the plane) only (docs/2d.md)"

// inferTanks decides the side of the imported static meshes whose body did not give mapInvert.
// The reference's boundary particles (boundaryHandlingMethod 0) sample a surface without a
// side, so its scenes need not say that a box holds the fluid; sluice samples a tank's extra
// layers outwards and fills an obstacle with a solid. A mesh that is an axis-aligned box
// holding every fluid block (in x and y only in a 2D scene) is therefore a tank, with a
// warning; any other stays an obstacle.
func (s *Scene) inferTanks(label func(kind string, i int) string, warns *[]Warning) error {
	if len(s.Fluids) == 0 {
		return nil
	}
	dims := 3
	if s.Solver.Dimensions == 2 {
		dims = 2
	}
	for i := range s.Meshes {
		if i >= len(s.implicitTank) || !s.implicitTank[i] || s.Meshes[i].Tank {
			continue
		}
		mesh, err := s.Meshes[i].Placed(s.Dir)
		if err != nil {
			return fmt.Errorf("%s: %w", label("mesh", i), err)
		}
		lo, hi, ok := sluice.AxisBoxMesh(mesh.V, mesh.Tris)
		for _, f := range s.Fluids {
			for d := 0; d < dims && ok; d++ {
				ok = f.Min[d] >= lo[d] && f.Max[d] <= hi[d]
			}
		}
		if ok {
			s.Meshes[i].Tank = true
			k := strings.TrimSuffix(label("mesh", i), ".geometryFile")
			*warns = append(*warns, Warning{Path: k + ".mapInvert", Msg: "not given: the box holds every fluid block, so it is a tank (fluid inside); the reference's boundary particles need no side"})
		}
	}
	return nil
}

// checkPlanarMeshes refuses, in a 2D scene, a static wall whose placed mesh does not reach
// the plane z = 0: the 2D world walls a box mesh with its rectangle and any other mesh with its
// section with the plane, which such a mesh does not have.
func (s *Scene) checkPlanarMeshes(label func(kind string, i int) string) error {
	if s.Solver.Dimensions != 2 {
		return nil
	}
	for i := range s.Meshes {
		mesh, err := s.Meshes[i].Placed(s.Dir)
		if err != nil {
			return fmt.Errorf("%s: %w", label("mesh", i), err)
		}
		if _, _, ok := sluice.AxisBoxMesh(mesh.V, mesh.Tris); ok {
			continue
		}
		crosses := false
		for _, t := range mesh.Tris {
			a, b, c := mesh.V[t[0]][2] >= 0, mesh.V[t[1]][2] >= 0, mesh.V[t[2]][2] >= 0
			crosses = crosses || a != b || b != c
		}
		if !crosses {
			return &UnsupportedError{label("mesh", i), fmt.Sprintf("%s placed does not cross the plane z = 0 of the 2D world, so it has no section there: %s", s.Meshes[i].File, planarWhy)}
		}
	}
	return nil
}

// planar checks a 2D scene (Configuration.sim2D) against what sluice's 2D world takes — fluid
// blocks, models and emitters, and static walls (checkPlanarMeshes) — and names the scene's
// own key of anything else.
func (im *importer) planar() error {
	sc := im.sc
	if sc.Solver.Dimensions != 2 {
		return nil
	}
	const why = planarWhy
	switch {
	case len(sc.Rigid) > 0:
		return &UnsupportedError{"RigidBodies", "dynamic rigid bodies: " + why}
	}
	var mats []components.Material
	for _, f := range sc.Fluids {
		mats = append(mats, f.Material)
	}
	for _, f := range sc.Models {
		mats = append(mats, f.Material)
	}
	for _, e := range sc.Emitters {
		mats = append(mats, e.Material)
	}
	for _, mt := range mats {
		switch {
		case mt.SurfaceTension != 0:
			return &UnsupportedError{"Materials", "surface tension (surfaceTensionMethod): " + why}
		case mt.WallAdhesion != 0:
			return &UnsupportedError{"Materials", "adhesion to walls (surfaceTensionBoundary): " + why}
		}
	}
	return nil
}

func (im *importer) configuration(c obj) error {
	s := &im.sc.Solver
	const p = "Configuration"
	if v, ok := take(c, "sim2D"); ok && v == true {
		s.Dimensions = 2
	}
	if err := im.takeNum(c, p, "particleRadius", &s.ParticleRadius); err != nil {
		return err
	}
	// The reference gives every particle of a fluid model the volume 0.8·(2r)³ (0.8·(2r)² in
	// 2D) and the mass ρ0 times that, whatever the sampling: its water is that much water.
	s.ParticleVolume = referenceParticleVolume
	// The reference takes its CFL steps without aligning them with the frames it shows
	// (numberOfStepsPerRenderUpdate steps a frame, exports at the first step past each
	// export time): a world that rounded every 1/60 s frame up to whole equal substeps took
	// 310 where it takes 261 on DamBreakModel.json with IISPH (docs/results.md).
	s.AlignFrames = false
	if err := im.takeVec(c, p, "gravitation", &s.Gravity); err != nil {
		return err
	}
	var dt, cflMethod, cflFactor, stopAt float64 = 0, 1, 1, 0
	if err := im.takeNum(c, p, "timeStepSize", &dt); err != nil {
		return err
	}
	if err := im.takeNum(c, p, "cflMethod", &cflMethod); err != nil {
		return err
	}
	if err := im.takeNum(c, p, "cflFactor", &cflFactor); err != nil {
		return err
	}
	if err := im.takeNum(c, p, "cflMaxTimeStepSize", &s.DtMax); err != nil {
		return err
	}
	if err := im.takeNum(c, p, "cflMinTimeStepSize", &s.DtMin); err != nil {
		return err
	}
	if cflMethod == 0 {
		if dt > 0 {
			s.DtMax = dt // no CFL: a fixed step, which sluice still shortens if CFL demands
			im.warn(p+".cflMethod", "0 (fixed step): sluice keeps its CFL limit and uses timeStepSize %g s as dtMax", dt)
		}
	} else {
		// The reference's CFL step is cflFactor·0.4·2r/v_max; sluice's is cfl·2r/v_max.
		s.CFL = min(1, 0.4*cflFactor)
		if cflMethod != 1 {
			im.warn(p+".cflMethod", "%g: sluice uses the plain CFL condition (method 1)", cflMethod)
		}
	}
	s.DtMin = min(s.DtMin, s.DtMax)
	if err := im.takeNum(c, p, "stopAt", &stopAt); err != nil {
		return err
	}
	if stopAt > 0 {
		im.sc.Duration = stopAt
	}
	method := 4.0
	if err := im.takeNum(c, p, "simulationMethod", &method); err != nil {
		return err
	}
	names := map[float64]string{0: "WCSPH", 1: "PCISPH", 2: "PBF", 3: "IISPH", 4: "DFSPH", 5: "Projective Fluids", 6: "ICSPH"}
	name, known := names[method]
	if !known {
		return &UnsupportedError{p + ".simulationMethod", fmt.Sprintf("%g is not a SPlisHSPlasH method", method)}
	}
	switch method {
	case 3:
	case 4:
		s.PressureSolver = "dfsph"
	case 5:
		s.PressureSolver = "pf"
		if blk, ok := c[name].(obj); !ok || blk["stiffness"] == nil {
			s.PFStiffness = 50000
			im.warn(p+"."+name+".stiffness", "missing: the reference's default 50000 N/m is used")
		}
	default:
		im.warn(p+".simulationMethod", "%g (%s) is simulated with IISPH", method, name)
	}
	// Pressure-solver settings: the block of the chosen method, else IISPH's, else DFSPH's.
	for _, blk := range []string{name, "IISPH", "DFSPH"} {
		v, ok := c[blk]
		bo, isObj := v.(obj)
		if !ok || !isObj {
			continue
		}
		bp := p + "." + blk
		if method == 5 && blk == name {
			if err := im.projectiveFluids(bo, bp, s); err != nil {
				return err
			}
			delete(c, blk)
			break
		}
		maxErr := -1.0
		if err := im.takeNum(bo, bp, "maxError", &maxErr); err != nil {
			return err
		}
		if maxErr > 0 {
			s.MaxError = maxErr / 100 // percent of ρ0 in the reference
		}
		if method == 4 && blk == name {
			// the divergence solve's η_v: the reference stops when Δt·avg(Dρ/Dt) ≤ maxErrorV % of ρ0
			errV := -1.0
			if err := im.takeNum(bo, bp, "maxErrorV", &errV); err != nil {
				return err
			}
			if errV > 0 {
				s.MaxDivergenceError = errV / 100
			}
			if _, ok := bo["maxIterationsV"]; ok {
				delete(bo, "maxIterationsV")
				im.warn(bp+".maxIterationsV", "the divergence solve shares maxIterations with the constant-density solve, ignored")
			}
		}
		var it float64
		if _, ok := bo["minIterations"]; ok {
			im.takeNum(bo, bp, "minIterations", &it)
			s.MinIterations = int(math.Max(1, it))
		}
		if _, ok := bo["maxIterations"]; ok {
			im.takeNum(bo, bp, "maxIterations", &it)
			s.MaxIterations = int(math.Max(1, it))
		}
		im.leftovers(bo, bp)
		delete(c, blk)
		break
	}
	for _, blk := range []string{"IISPH", "DFSPH", "WCSPH", "PCISPH", "PBF", "Projective Fluids", "ICSPH"} {
		if _, ok := c[blk]; ok {
			im.warn(p+"."+blk, "settings of a solver the scene does not select, ignored")
			delete(c, blk)
		}
	}
	// The reference's walls: boundary particles (0, Akinci et al. 2012), density maps (1,
	// Koschier & Bender 2017) or volume maps (2, Bender et al. 2019, its default). Static
	// walls then meet the fluid through a volume map (solver.wallModel "volumeMaps"), density
	// maps' successor, which the reference itself defaults to; dynamic bodies keep their
	// samples (sluice's rigid bodies are made of them).
	bhm := 2.0
	if v, ok := take(c, "boundaryHandlingMethod"); ok {
		m, isNum := num(v)
		if !isNum || (m != 0 && m != 1 && m != 2) {
			return &UnsupportedError{p + ".boundaryHandlingMethod", fmt.Sprintf("%v: not a boundary handling method of the reference (0 particles, 1 density maps, 2 volume maps)", v)}
		}
		bhm = m
	}
	switch {
	case bhm == 0:
		s.WallModel = "particles"
	case s.Dimensions == 2:
		s.WallModel = "particles"
		im.warn(p+".boundaryHandlingMethod", "%v (%s): a 2D world's walls are boundary particles (Akinci et al. 2012); sluice's volume maps are 3D", bhm, map[float64]string{1: "density maps", 2: "volume maps"}[bhm])
	case s.PressureSolver == "pf":
		s.WallModel = "particles"
		im.warn(p+".boundaryHandlingMethod", "%v (%s): sluice's Projective Fluids meets walls through boundary particles (Akinci et al. 2012); its solve does not hold the water correctly against volume-mapped walls yet", bhm, map[float64]string{1: "density maps", 2: "volume maps"}[bhm])
	default:
		s.WallModel = "volumeMaps"
		if bhm == 1 {
			im.warn(p+".boundaryHandlingMethod", "1 (density maps, Koschier & Bender 2017) runs as volume maps (Bender et al. 2019), the method that followed them")
		}
	}
	if v, ok := take(c, "enableDivergenceSolver"); ok {
		if on, _ := v.(bool); method != 4 || !on {
			im.warn(p+".enableDivergenceSolver", "%v: sluice's DFSPH always solves the divergence and the other solvers have none, ignored", v)
		}
	}
	for _, k := range []string{"kernel", "gradKernel"} {
		if v, ok := take(c, k); ok {
			im.warn(p+"."+k, "%v: sluice uses the cubic spline for W and ∇W", v)
		}
	}
	im.leftovers(c, p)
	return nil
}

// referenceEmitterBudget is the reference's default maxEmitterParticles of a material.
const referenceEmitterBudget = 10000

// referenceParticleVolume is the reference's particle volume of fluid models as a fraction of
// (2r)^d (FluidModel: 0.8·diam³, 0.8·diam² in 2D), which the importer sets as
// solver.particleVolume. On the cubic lattice of a fluid block the cubic spline's volume is
// 1.00003·(2r)³ (physics.TestLatticeVolume), so the reference's blocks start at 80 % of rest
// density.
const referenceParticleVolume = 0.8

// bodyMaterial maps the material a fluid block or model names by "id" ("Fluid" when absent,
// as in the reference).
func (im *importer) bodyMaterial(b obj, mats map[string]obj, path string) (float64, float64, error) {
	id, _ := take(b, "id")
	ids, _ := id.(string)
	if ids == "" {
		ids = "Fluid"
	}
	im.lastID = ids
	return im.material(ids, mats, path)
}

func (im *importer) material(id string, mats map[string]obj, path string) (float64, float64, error) {
	rho0, nu := 1000.0, 0.0
	if u, ok := im.used[id]; ok {
		return u[0], u[1], nil
	}
	mo, ok := mats[id]
	if !ok {
		im.warn(path+".id", "no material %q: water (ρ0 = 1000 kg/m³, ν = 0.01 m²/s) is used", id)
		im.used[id] = [2]float64{rho0, 0.01}
		return rho0, 0.01, nil
	}
	mp := fmt.Sprintf("Materials[id=%q]", id)
	delete(mo, "id")
	if err := im.takeNum(mo, mp, "density0", &rho0); err != nil {
		return 0, 0, err
	}
	if v, ok := take(mo, "elasticityMethod"); ok {
		switch m, _ := num(v); m {
		case 0:
		case 2:
			if err := im.peer2018(mo, mp, id, "Peer et al. 2018"); err != nil {
				return 0, 0, err
			}
		case 3:
			// Kugelstadt et al. 2021 solve the same corotated linear elasticity (Young's
			// modulus, Poisson's ratio, the zero-energy-mode factor alpha, a fixed box) by
			// operator splitting; sluice runs the material with Peer et al. 2018's implicit
			// solve instead, which integrates the same constitutive model.
			im.warn(mp+".elasticityMethod", "3 (Kugelstadt et al. 2021) runs as Peer et al. 2018 (method 2) with the same material: the same corotated linear elasticity, solved by another scheme")
			if err := im.peer2018(mo, mp, id, "Kugelstadt et al. 2021"); err != nil {
				return 0, 0, err
			}
		default:
			return 0, 0, &UnsupportedError{mp + ".elasticityMethod", fmt.Sprintf("%v: of the elasticity methods sluice has Peer et al. 2018 (method 2), and runs Kugelstadt et al. 2021 (method 3) with it", v)}
		}
	}
	vm := 0.0
	if err := im.takeNum(mo, mp, "viscosityMethod", &vm); err != nil {
		return 0, 0, err
	}
	if sv, ok := take(mo, "Standard viscosity"); ok {
		so, _ := sv.(obj)
		if vm == 1 {
			if err := im.takeNum(so, mp+".Standard viscosity", "viscosity", &nu); err != nil {
				return 0, 0, err
			}
			im.leftovers(so, mp+".Standard viscosity")
		} else {
			im.warn(mp+".Standard viscosity", "block of a viscosity method the material does not select, ignored")
		}
	}
	if vm > 1 {
		var err error
		if nu, err = im.implicitViscosity(mo, mp, vm); err != nil {
			return 0, 0, err
		}
	}
	for _, k := range implicitBlocks {
		if _, ok := take(mo, k.block); ok {
			im.warn(mp+"."+k.block, "block of a viscosity method the material does not select, ignored")
		}
	}
	if nu == 0 {
		nu = 0.01
		im.warn(mp, "no standard viscosity given: sluice's default ν = 0.01 m²/s is used")
	}
	if err := im.surfaceTension(mo, mp, id); err != nil {
		return 0, 0, err
	}
	if err := im.vortDrag(mo, mp, id); err != nil {
		return 0, 0, err
	}
	budget := float64(referenceEmitterBudget)
	if err := im.takeNum(mo, mp, "maxEmitterParticles", &budget); err != nil {
		return 0, 0, err
	}
	im.budget[id] = int(budget)
	if v, ok := take(mo, "emitterReuseParticles"); ok && v == true {
		im.warn(mp+".emitterReuseParticles", "true: sluice does not recycle emitted particles; particles leaving the domain are removed and counted")
	}
	for _, k := range []string{"emitterBoxMin", "emitterBoxMax"} {
		if _, ok := take(mo, k); ok {
			im.warn(mp+"."+k, "the emitter box is not used: particles leaving the simulation domain are removed and counted")
		}
	}
	im.leftovers(mo, mp)
	im.used[id] = [2]float64{rho0, nu}
	return rho0, nu, nil
}

// tensionBlocks are the parameter blocks of the reference's surface tension methods that
// sluice maps to Akinci et al. 2013, by surfaceTensionMethod number.
var tensionBlocks = map[float64]string{
	2: "Akinci et al. 2013",
	5: "Zorilla, Ritter, et al. 2020",
}

// surfaceTension maps a material's surfaceTensionMethod onto sluice's surface tension (Akinci
// et al. 2013, physics/tension): method 2 is that method, its surfaceTension the same γ and its
// surfaceTensionBoundary the same β of the adhesion to walls (material.wallAdhesion; absent:
// the reference's default 0.01, with a warning; method 5 takes it when given);
// method 5 (Zorilla, Ritter et al. 2020) is simulated with it too, γ = its surfaceTension, with
// a warning (docs/splishsplash.md says what differs). The other methods (1 Becker & Teschner
// 2007, 3 He et al. 2014, 4 Jeske et al. 2023) are left out with a warning: Jeske's
// coefficient is the stiffness of an implicit cohesion on another scale (125–12000 in the
// corpus), which has no conversion to γ.
func (im *importer) surfaceTension(mo obj, mp, id string) error {
	v, ok := take(mo, "surfaceTensionMethod")
	if !ok {
		return nil
	}
	method, _ := num(v)
	if method == 0 {
		return nil
	}
	block, mapped := tensionBlocks[method]
	if !mapped {
		im.warn(mp+".surfaceTensionMethod", "%v: not supported, the force is left out (sluice maps methods 2, Akinci et al. 2013, and 5, Zorilla, Ritter et al. 2020, to Akinci et al. 2013)", v)
		return nil
	}
	bp := mp + "." + block
	bo, inBlock := mo, false // old scene files put the method's keys in the material itself
	if bv, ok := take(mo, block); ok {
		o, isObj := bv.(obj)
		if !isObj {
			return fmt.Errorf("%s: expected an object", bp)
		}
		bo, inBlock = o, true
	} else {
		bp = mp
	}
	gamma := 0.05 // the reference's default surfaceTension
	if _, ok := bo["surfaceTension"]; !ok {
		im.warn(bp, "no surfaceTension given: the reference's default γ = 0.05 is used")
	}
	if err := im.takeNum(bo, bp, "surfaceTension", &gamma); err != nil {
		return err
	}
	if method == 5 {
		im.warn(mp+".surfaceTensionMethod", "5 (Zorilla, Ritter et al. 2020) is simulated with Akinci et al. 2013's cohesion and curvature forces, γ = surfaceTension = %g; the reference's coefficient scales another force (k·κ on its surface particles), so the strength differs", gamma)
	}
	beta := 0.0
	if method == 2 {
		beta = 0.01 // the reference's default surfaceTensionBoundary
		if _, ok := bo["surfaceTensionBoundary"]; !ok {
			im.warn(bp, "no surfaceTensionBoundary given: the reference's default adhesion β = 0.01 is used")
		}
	}
	if err := im.takeNum(bo, bp, "surfaceTensionBoundary", &beta); err != nil {
		return err
	}
	if inBlock {
		var zr []string
		for k := range bo {
			if strings.HasPrefix(k, "surfTZR") {
				zr = append(zr, k)
			}
		}
		slices.Sort(zr)
		if len(zr) > 0 {
			im.warn(bp, "%s: settings of Zorilla, Ritter et al.'s curvature estimate, which Akinci et al. 2013 does not have, ignored", strings.Join(zr, ", "))
		}
		for _, k := range zr {
			delete(bo, k)
		}
		im.leftovers(bo, bp)
	}
	if im.gamma == nil {
		im.gamma = map[string]float64{}
	}
	im.gamma[id] = gamma
	if im.beta == nil {
		im.beta = map[string]float64{}
	}
	im.beta[id] = beta
	return nil
}

// implicitBlocks are the reference's implicit viscosity methods by viscosityMethod number,
// with the name of their parameter block in a material.
var implicitBlocks = []struct {
	method float64
	block  string
}{
	{2, "Bender and Koschier 2017"},
	{3, "Peer et al. 2015"},
	{4, "Peer et al. 2016"},
	{5, "Takahashi et al. 2015 (improved)"},
	{6, "Weiler et al. 2018"},
}

// implicitViscosity maps an implicit viscosity method (viscosityMethod 2–6) onto sluice's
// implicit viscosity solve (physics/viscosity, Weiler et al. 2018, which is method 6 itself):
// the block's viscosity becomes the material's ν (the reference, too, multiplies it by ρ0 into
// a dynamic viscosity, so it is kinematic), viscosityBoundary the walls' and bodies' drag,
// viscoMaxError and viscoMaxIter the solver's viscosityMaxError and viscosityMaxIterations
// (the reference's relative CG residual; with several materials the strictest). Methods 2–5
// are mapped too, with a warning: they integrate the same kinematic viscosity implicitly with
// other discretisations (docs/splishsplash.md says why Weiler's is a fair stand-in).
func (im *importer) implicitViscosity(mo obj, mp string, vm float64) (float64, error) {
	block := ""
	for _, b := range implicitBlocks {
		if b.method == vm {
			block = b.block
		}
	}
	if block == "" {
		return 0, &UnsupportedError{mp + ".viscosityMethod", fmt.Sprintf("%g is not a viscosity method of the reference (0–6)", vm)}
	}
	bp := mp + "." + block
	bo, inBlock := mo, false // old scene files put the method's keys in the material itself
	if v, ok := take(mo, block); ok {
		inBlock = true
		o, isObj := v.(obj)
		if !isObj {
			return 0, fmt.Errorf("%s: expected an object", bp)
		}
		bo = o
	} else {
		bp = mp
	}
	if vm != 6 {
		im.warn(mp+".viscosityMethod", "%g (%s) is integrated by sluice's implicit viscosity solve (Weiler et al. 2018) with the same kinematic viscosity", vm, block)
	}
	nu := 0.01
	if _, ok := bo["viscosity"]; !ok {
		im.warn(bp, "no viscosity given: the reference's default ν = 0.01 m²/s is used")
	}
	if err := im.takeNum(bo, bp, "viscosity", &nu); err != nil {
		return 0, err
	}
	if _, ok := bo["viscosityBoundary"]; ok {
		nub := 0.0
		if err := im.takeNum(bo, bp, "viscosityBoundary", &nub); err != nil {
			return 0, err
		}
		if im.viscSet && nub != im.nuB {
			im.warn(bp+".viscosityBoundary", "%g m²/s differs from another material's %g: sluice's drag belongs to the walls, which take the larger", nub, im.nuB)
		}
		im.nuB = max(im.nuB, nub)
	}
	s := &im.sc.Solver
	if !im.viscSet {
		s.ViscositySolver = "implicit"
		s.ViscosityMaxError, s.ViscosityMaxIterations = 1, 0 // tightened by the materials below
	}
	me, mi := 0.01, 100.0 // the reference's defaults
	if err := im.takeNum(bo, bp, "viscoMaxError", &me); err != nil {
		return 0, err
	}
	if err := im.takeNum(bo, bp, "viscoMaxIter", &mi); err != nil {
		return 0, err
	}
	s.ViscosityMaxError = min(s.ViscosityMaxError, me)
	s.ViscosityMaxIterations = max(s.ViscosityMaxIterations, int(mi))
	im.viscSet = true
	if inBlock {
		for _, k := range []string{"viscoMaxIterOmega", "viscoMaxErrorOmega"} {
			if v, ok := take(bo, k); ok {
				im.warn(bp+"."+k, "%v: setting of Peer et al. 2016's vorticity solve, which sluice's implicit viscosity does not have, ignored", v)
			}
		}
		im.leftovers(bo, bp)
	}
	return nu, nil
}

// peer2018 maps a material's elasticity block (block: "Peer et al. 2018", or "Kugelstadt et
// al. 2021", whose material sluice runs with Peer et al. 2018) onto sluice's elastic material:
// Young's modulus and Poisson's ratio, the zero-energy-mode factor alpha, the fixed box
// (pinned particles) and the solver's iteration cap. The reference's maxError is the relative
// residual of its CG: it becomes relativeError (sluice's absolute maxError keeps its default).
// Kugelstadt's maxNeighbors, a cap on the neighbours its solver keeps per particle, has no
// counterpart (Peer et al. 2018 uses every neighbour of the rest shape) and is warned about.
func (im *importer) peer2018(mo obj, mp, id, block string) error {
	es := components.DefaultMaterial().Elastic
	bp := mp + "." + block
	if v, ok := take(mo, block); ok {
		bo, isObj := v.(obj)
		if !isObj {
			return fmt.Errorf("%s: expected an object", bp)
		}
		for _, kv := range []struct {
			k string
			d *float64
		}{{"youngsModulus", &es.YoungsModulus}, {"poissonsRatio", &es.PoissonsRatio}, {"alpha", &es.Alpha}} {
			if err := im.takeNum(bo, bp, kv.k, kv.d); err != nil {
				return err
			}
		}
		iters := float64(es.MaxIterations)
		for _, k := range []string{"maxIter", "elasticityMaxIter"} {
			if err := im.takeNum(bo, bp, k, &iters); err != nil {
				return err
			}
		}
		es.MaxIterations = int(iters)
		for _, k := range []string{"maxError", "elasticityMaxError"} {
			if err := im.takeNum(bo, bp, k, &es.RelativeError); err != nil {
				return err
			}
		}
		if err := im.takeVec(bo, bp, "fixedBoxMin", &es.PinnedMin); err != nil {
			return err
		}
		if err := im.takeVec(bo, bp, "fixedBoxMax", &es.PinnedMax); err != nil {
			return err
		}
		if block == "Kugelstadt et al. 2021" {
			if _, ok := take(bo, "maxNeighbors"); ok {
				im.warn(bp+".maxNeighbors", "the Kugelstadt solver's cap on neighbours per particle; Peer et al. 2018 uses every neighbour of the rest shape")
			}
		}
		im.leftovers(bo, bp)
	} else {
		im.warn(mp+".elasticityMethod", "%s without a parameter block: sluice's default moduli are used", block)
	}
	for _, k := range []string{"Becker et al. 2009", "Peer et al. 2018", "Kugelstadt et al. 2021"} {
		if k == block {
			continue
		}
		if _, ok := take(mo, k); ok {
			im.warn(mp+"."+k, "block of an elasticity method the material does not select, ignored")
		}
	}
	if err := es.Validate(bp); err != nil {
		return err
	}
	im.elastic[id] = &es
	return nil
}

func (im *importer) fluidBlock(b obj, i int, mats map[string]obj) error {
	p := fmt.Sprintf("FluidBlocks[%d]", i)
	var start, end, tr mgl64.Vec3
	scale := mgl64.Vec3{1, 1, 1}
	var vel mgl64.Vec3
	for _, kv := range []struct {
		k string
		d *mgl64.Vec3
	}{{"start", &start}, {"end", &end}, {"translation", &tr}, {"scale", &scale}, {"initialVelocity", &vel}} {
		if err := im.takeVec(b, p, kv.k, kv.d); err != nil {
			return err
		}
	}
	mode := 0.0
	if err := im.takeNum(b, p, "denseMode", &mode); err != nil {
		return err
	}
	if mode != 0 {
		im.warn(p+".denseMode", "%g: sampled with the regular lattice of denseMode 0", mode)
	}
	rho0, nu, err := im.bodyMaterial(b, mats, p)
	if err != nil {
		return err
	}
	fb := FluidBlock{Name: fmt.Sprintf("fluid%d", i), Velocity: vel}
	for d := 0; d < 3; d++ {
		a, c := scale[d]*start[d]+tr[d], scale[d]*end[d]+tr[d]
		fb.Min[d], fb.Max[d] = min(a, c), max(a, c)
	}
	fb.Material = components.DefaultMaterial()
	fb.Material.RestDensity, fb.Material.Viscosity = rho0, nu
	fb.Material.SurfaceTension, fb.Material.WallAdhesion = im.gamma[im.lastID], im.beta[im.lastID]
	im.applyVortDrag(&fb.Material)
	im.leftovers(b, p)
	if es := im.elastic[im.lastID]; es != nil {
		fb.Material.Elastic = *es
		im.sc.Elastic = append(im.sc.Elastic, ElasticBody{Name: fmt.Sprintf("elastic%d", i), Shape: "box",
			Min: fb.Min, Max: fb.Max, Velocity: vel, Material: fb.Material})
		return nil
	}
	im.sc.Fluids = append(im.sc.Fluids, fb)
	return nil
}

// emitter maps an emitter: width and height count particles (spacing 2r), type 0 is a box and
// 1 a circle, the nozzle emits along its rotated x axis with its height along the rotated y
// axis, at velocity m/s from emitStartTime to emitEndTime, up to the material's
// maxEmitterParticles.
func (im *importer) emitter(b obj, i int, mats map[string]obj) error {
	p := fmt.Sprintf("Emitters[%d]", i)
	pl, err := im.placement(b, p)
	if err != nil {
		return err
	}
	if pl.Scale != (mgl64.Vec3{1, 1, 1}) {
		im.warn(p+".scale", "%v: an emitter is not scaled", pl.Scale)
	}
	width, height, speed, typ, start, stop := 5.0, 5.0, 1.0, 0.0, 0.0, 1e6
	for _, kv := range []struct {
		k string
		d *float64
	}{{"width", &width}, {"height", &height}, {"velocity", &speed}, {"type", &typ}, {"emitStartTime", &start}, {"emitEndTime", &stop}} {
		if _, given := b[kv.k]; !given && (kv.k == "width" || kv.k == "velocity") {
			im.warn(p+"."+kv.k, "not given: %g is used", *kv.d)
		}
		if err := im.takeNum(b, p, kv.k, kv.d); err != nil {
			return err
		}
	}
	rho0, nu, err := im.bodyMaterial(b, mats, p)
	if err != nil {
		return err
	}
	// bodyMaterial has taken "id" out of b; the id it resolved is lastID.
	id := im.lastID
	axes := []mgl64.Vec3{{1, 0, 0}, {0, 1, 0}}
	planar := im.sc.Solver.Dimensions == 2
	if planar {
		// The reference's 2D scenes rotate emitters about z whatever axis they give.
		if z := (mgl64.Vec3{0, 0, 1}); pl.RotationAngle != 0 && pl.RotationAxis.Normalize() != z {
			im.warn(p+".rotationAxis", "%v: in a 2D scene the reference rotates emitters about [0 0 1], and so does sluice", pl.RotationAxis)
		}
		pl.RotationAxis = mgl64.Vec3{0, 0, 1}
		if pl.Translation[2] != 0 {
			return &UnsupportedError{p + ".translation", fmt.Sprintf("%v: an emitter of a 2D scene must lie in the plane z = 0", pl.Translation)}
		}
	}
	rot := Placement{Scale: mgl64.Vec3{1, 1, 1}, RotationAxis: pl.RotationAxis, RotationAngle: pl.RotationAngle}
	if err := rot.apply(axes); err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	sp := im.sc.Solver.Spacing()
	e := Emitter{Name: fmt.Sprintf("emitter%d", i)}
	e.Shape = map[float64]string{0: "box", 1: "circle"}[typ]
	if e.Shape == "" {
		return &UnsupportedError{p + ".type", fmt.Sprintf("%g: only 0 (box) and 1 (circle) emitters exist", typ)}
	}
	e.Center, e.Direction, e.Up = pl.Translation, axes[0], axes[1]
	e.Width, e.Height, e.Speed, e.Start, e.Stop = width*sp, height*sp, speed, start, min(stop, 1e6)
	if planar {
		// The reference makes every 2D emitter a box one particle wide: a box's nozzle is then
		// its height particles across, a circle's its width (its diameter), on a line in the
		// plane, which is what sluice's 2D nozzle is (Emitter.Line).
		if e.Shape == "box" {
			e.Width = height * sp
		}
		e.Height = 0
	}
	budget, ok := im.budget[id]
	if !ok {
		// A material without an entry in Materials has the reference's default.
		budget = referenceEmitterBudget
	}
	if budget < 1 {
		im.warn(p, "maxEmitterParticles = %d of material %q: the emitter can add no particle and is left out, as it emits nothing in the reference", budget, id)
		im.leftovers(b, p)
		return nil
	}
	e.Budget = budget
	im.warn(p, "maxEmitterParticles = %d of material %q limits this emitter alone (the reference shares it among the material's emitters)", e.Budget, id)
	e.Material = components.DefaultMaterial()
	e.Material.RestDensity, e.Material.Viscosity = rho0, nu
	e.Material.SurfaceTension, e.Material.WallAdhesion = im.gamma[id], im.beta[id]
	im.applyVortDrag(&e.Material)
	im.leftovers(b, p)
	im.sc.Emitters = append(im.sc.Emitters, e)
	return nil
}

func (im *importer) fluidModel(b obj, i int, mats map[string]obj) error {
	p := fmt.Sprintf("FluidModels[%d]", i)
	pf, _ := take(b, "particleFile")
	file, _ := pf.(string)
	if strings.HasSuffix(strings.ToLower(file), ".obj") {
		return im.fluidMesh(b, i, p, file, mats)
	}
	if !strings.HasSuffix(strings.ToLower(file), ".bgeo") {
		return &UnsupportedError{p + ".particleFile", fmt.Sprintf("%q: only .bgeo particle files and .obj meshes are read so far", file)}
	}
	pl, err := im.placement(b, p)
	if err != nil {
		return err
	}
	m := FluidModel{Name: fmt.Sprintf("model%d", i), File: file, Placement: pl}
	if err := im.takeVec(b, p, "initialVelocity", &m.Velocity); err != nil {
		return err
	}
	rho0, nu, err := im.bodyMaterial(b, mats, p)
	if err != nil {
		return err
	}
	m.Material = components.DefaultMaterial()
	m.Material.RestDensity, m.Material.Viscosity = rho0, nu
	m.Material.SurfaceTension, m.Material.WallAdhesion = im.gamma[im.lastID], im.beta[im.lastID]
	im.applyVortDrag(&m.Material)
	im.leftovers(b, p)
	if es := im.elastic[im.lastID]; es != nil {
		m.Material.Elastic = *es
		im.sc.Elastic = append(im.sc.Elastic, ElasticBody{Name: m.Name, Shape: "file", File: file, Placement: pl,
			Velocity: m.Velocity, Material: m.Material})
		return nil
	}
	im.sc.Models = append(im.sc.Models, m)
	return nil
}

// fluidMesh maps a fluid model whose particleFile is an OBJ mesh: the reference samples its
// inside (its volume sampling, "mode" 0 regular, 1 almost dense, 2 dense; "resolutionSDF" the
// resolution of the signed distance field it samples through; "invert" samples the outside).
// sluice fills it with the regular lattice of spacing 2r, particles at least r inside the
// surface (Mesh.SampleVolume), which needs no distance field.
func (im *importer) fluidMesh(b obj, i int, p, file string, mats map[string]obj) error {
	pl, err := im.placement(b, p)
	if err != nil {
		return err
	}
	m := FluidMesh{Name: fmt.Sprintf("model%d", i), File: file, Placement: pl}
	if err := im.takeVec(b, p, "initialVelocity", &m.Velocity); err != nil {
		return err
	}
	if v, ok := take(b, "invert"); ok && v == true {
		return &UnsupportedError{p + ".invert", "true: filling the outside of a mesh is not supported"}
	}
	mode := 0.0
	if err := im.takeNum(b, p, "mode", &mode); err != nil {
		return err
	}
	if mode != 0 {
		im.warn(p+".mode", "%g: sampled with the regular lattice of mode 0", mode)
	}
	if _, ok := take(b, "resolutionSDF"); ok {
		im.warn(p+".resolutionSDF", "sluice samples the mesh directly, without a signed distance field")
	}
	rho0, nu, err := im.bodyMaterial(b, mats, p)
	if err != nil {
		return err
	}
	m.Material = components.DefaultMaterial()
	m.Material.RestDensity, m.Material.Viscosity = rho0, nu
	m.Material.SurfaceTension, m.Material.WallAdhesion = im.gamma[im.lastID], im.beta[im.lastID]
	im.applyVortDrag(&m.Material)
	im.leftovers(b, p)
	im.sc.FluidMeshes = append(im.sc.FluidMeshes, m)
	return nil
}

// truthy reads a SPlisHSPlasH flag: the reference's JSON reader accepts true/false and, for
// flags, integers (DamBreakWithObjects.json writes "isDynamic": 1).
func truthy(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case float64:
		return x != 0
	}
	return false
}

// joint maps one of the reference's joints of the kind key (BallJoints, HingeJoints,
// TargetVelocityMotorHingeJoints) between the rigid bodies bodyID1 and bodyID2 at the world
// point position (about the world axis axis). A static body (a wall) is the world's end; the
// dynamic body becomes the joint's body a. The reference's velocity motor is a hard
// constraint, ω1 − ω2 = −target·axis (PositionBasedDynamics' TargetVelocityMotorHingeJoint);
// sluice's motor has a torque bound, set to importMotorTorque so it never binds, and speed
// −target for a on bodyID1 (target when the dynamic body is bodyID2); a targetSequence of
// (time, target) pairs becomes the motor schedule, repeated with repeatSequence.
func (im *importer) joint(key string, o obj, i int) error {
	p := fmt.Sprintf("%s[%d]", key, i)
	var ids [2]float64
	for k, name := range []string{"bodyID1", "bodyID2"} {
		if err := im.takeNum(o, p, name, &ids[k]); err != nil {
			return err
		}
		if _, ok := im.bodyIDs[int(ids[k])]; !ok || ids[k] != math.Trunc(ids[k]) {
			return fmt.Errorf("%s.%s: %v is not the id of a rigid body of the scene", p, name, ids[k])
		}
	}
	a, b := im.bodyIDs[int(ids[0])], im.bodyIDs[int(ids[1])]
	sign := -1.0 // the motor speed of bodyID1 relative to bodyID2
	if a == "" {
		a, b, sign = b, a, 1
	}
	if a == "" {
		return &UnsupportedError{p, "a joint between two static bodies holds nothing"}
	}
	j := Joint{BodyA: a, BodyB: b}
	j.Kind = map[string]string{"BallJoints": "ball", "HingeJoints": "hinge", "TargetVelocityMotorHingeJoints": "hinge"}[key]
	if err := im.takeVec(o, p, "position", &j.Anchor); err != nil {
		return err
	}
	if j.Kind == "hinge" {
		if err := im.takeVec(o, p, "axis", &j.Axis); err != nil {
			return err
		}
	}
	if key == "TargetVelocityMotorHingeJoints" {
		j.MotorMaxTorque = importMotorTorque
		var target float64
		if err := im.takeNum(o, p, "target", &target); err != nil {
			return err
		}
		j.MotorSpeed = sign * target
		if v, ok := take(o, "targetSequence"); ok {
			arr, isArr := v.([]any)
			if !isArr || len(arr)%2 != 0 || len(arr) == 0 {
				return fmt.Errorf("%s.targetSequence: expected (time, target) pairs, got %v", p, v)
			}
			for k := 0; k < len(arr); k += 2 {
				t, ok1 := num(arr[k])
				x, ok2 := num(arr[k+1])
				if !ok1 || !ok2 {
					return fmt.Errorf("%s.targetSequence[%d]: expected numbers, got %v, %v", p, k, arr[k], arr[k+1])
				}
				j.MotorSchedule = append(j.MotorSchedule, components.MotorKey{Time: t, Speed: sign * x})
			}
		}
		if v, ok := take(o, "repeatSequence"); ok {
			j.RepeatSchedule = truthy(v)
		}
	}
	im.leftovers(o, p)
	im.sc.Joints = append(im.sc.Joints, j)
	return nil
}

// importMotorTorque (N m) bounds an imported velocity motor's torque: far above any load of
// the reference's scenes, so the motor holds its target as the reference's hard constraint
// does.
const importMotorTorque = 1e9

// pbdKeys are the reference's top-level arrays of joints, springs and deformable models
// (read by its PositionBasedDynamics wrapper) that sluice does not import (ball, hinge and
// velocity-motor hinge joints it does: joint), so a scene using one fails naming it.
var pbdKeys = []string{
	"BallOnLineJoints", "UniversalJoints", "SliderJoints",
	"TargetAngleMotorHingeJoints", "TargetPositionMotorSliderJoints",
	"TargetVelocityMotorSliderJoints", "RigidBodyParticleBallJoints", "RigidBodySprings",
	"DistanceJoints", "DamperJoints", "TriangleModels", "TetModels",
}

// Contact coefficients the reference's rigid-body solver (PositionBasedDynamics) gives a body
// without "restitution" or "friction".
const (
	refRestitution = 0.6
	refFriction    = 0.2
)

// contact is a rigid body's restitution and friction as written in the scene (or the
// reference's defaults), with the body's path for messages.
type contact struct {
	path      string
	e, mu     float64
	given     [2]bool
	rigidSlot int // index in Scene.Rigid, -1 for a static body
}

func (im *importer) rigidBody(b obj, i int) error {
	p := fmt.Sprintf("RigidBodies[%d]", i)
	dynamic := false
	if v, ok := take(b, "isDynamic"); ok {
		dynamic = truthy(v)
	}
	if v, ok := take(b, "isAnimated"); ok && truthy(v) {
		if dynamic {
			return &UnsupportedError{p + ".isAnimated", "true with isDynamic: a body is either moved by a script or simulated, not both"}
		}
		// The reference moves an animated body from a Python script (Configuration.scriptFile),
		// which sluice does not run; the body is the static wall it is at the start, and a Go
		// program moves it with World.SetMotion (docs/splishsplash.md).
		im.warn(p+".isAnimated", "true: the reference moves the body by a Python script that sluice does not run; imported as a static wall where placed (a Go program moves it with World.SetMotion)")
	}
	gf, _ := take(b, "geometryFile")
	file, _ := gf.(string)
	if pf, ok := take(b, "particleFile"); ok {
		if file == "" {
			return &UnsupportedError{p + ".particleFile", "boundary particles from a particle file are not supported yet (give a geometryFile)"}
		}
		im.warn(p+".particleFile", "%v: the reference's boundary samples for Akinci 2012; sluice samples the geometryFile's surface itself", pf)
	}
	if file == "" {
		return &UnsupportedError{p + ".geometryFile", "a rigid body needs an OBJ geometry file"}
	}
	pl, err := im.placement(b, p)
	if err != nil {
		return err
	}
	c := contact{path: p, e: refRestitution, mu: refFriction, rigidSlot: -1}
	for k, kv := range []struct {
		key string
		d   *float64
	}{{"restitution", &c.e}, {"friction", &c.mu}} {
		_, c.given[k] = b[kv.key]
		if err := im.takeNum(b, p, kv.key, kv.d); err != nil {
			return err
		}
	}
	id := i
	if v, ok := take(b, "id"); ok {
		f, isNum := num(v)
		if !isNum || f != math.Trunc(f) {
			return fmt.Errorf("%s.id: expected an integer, got %v", p, v)
		}
		id = int(f)
	}
	if _, dup := im.bodyIDs[id]; dup {
		return fmt.Errorf("%s.id: %d is the id of an earlier rigid body", p, id)
	}
	im.bodyIDs[id] = ""
	if dynamic {
		im.bodyIDs[id] = fmt.Sprintf("body%d", i)
		return im.dynamicBody(b, i, p, file, pl, c)
	}
	if v, ok := take(b, "density"); ok {
		im.warn(p+".density", "%v: a static body does not move, its density is not used", v)
	}
	m := BoundaryMesh{Name: fmt.Sprintf("wall%d", i), File: file, Placement: pl}
	v, given := take(b, "mapInvert")
	if given {
		m.Tank = truthy(v)
	}
	im.sc.implicitTank = append(im.sc.implicitTank, !given)
	delete(b, "isWall") // walls and other static bodies are sampled alike
	im.collisionKeys(b, p)
	im.leftovers(b, p)
	im.sc.Meshes = append(im.sc.Meshes, m)
	im.contacts = append(im.contacts, c)
	return nil
}

// collisionKeys warns about the settings of the reference's volume maps and collision
// detection that sluice does not take: its volume maps choose their own grid (mapResolution),
// a map's thickness 0 is the surface itself, and its contact solver needs no collision
// settings.
func (im *importer) collisionKeys(b obj, p string) {
	if v, ok := take(b, "mapThickness"); ok {
		if t, _ := num(v); t != 0 {
			im.warn(p+".mapThickness", "%v: sluice's volume maps and boundary samples lie on the mesh's surface (thickness 0)", v)
		}
	}
	if v, ok := take(b, "mapResolution"); ok {
		im.warn(p+".mapResolution", "%v: sluice's volume maps choose their own grid (physics/volumemap)", v)
	}
	for _, k := range []string{"samplingMode", "invertSDF", "collisionObjectType", "collisionObjectScale", "collisionObjectFileName", "testMesh", "resolutionSDF", "thicknessSDF"} {
		if _, ok := take(b, k); ok {
			im.warn(p+"."+k, "setting of the reference's boundary sampling or collision detection, not needed by sluice's walls and contact solver")
		}
	}
}

// dynamicBody maps a dynamic rigid body: its closed OBJ mesh scaled (file and scale), rotated
// by rotationAngle about rotationAxis (a unit quaternion) and translated (position: where the
// mesh's model origin goes; sluice computes the centre of mass), with density, velocity,
// angularVelocity, restitution and friction (contact coefficients are mapped by
// finishContacts once the walls are known).
func (im *importer) dynamicBody(b obj, i int, p, file string, pl Placement, c contact) error {
	if err := pl.check(p); err != nil {
		return err
	}
	rb := RigidBody{Name: fmt.Sprintf("body%d", i), File: file, Scale: pl.Scale, RigidBody: components.DefaultRigidBody()}
	rb.Type, rb.Shape = "dynamic", "mesh"
	rb.Position = pl.Translation
	rb.Orientation = axisAngleQuat(pl.RotationAxis, pl.RotationAngle)
	rb.Density = 1 // the reference's default
	if _, ok := b["density"]; !ok {
		im.warn(p+".density", "not given: the reference's default 1 kg/m³ is used")
	}
	if err := im.takeNum(b, p, "density", &rb.Density); err != nil {
		return err
	}
	if !(rb.Density > 0) {
		return fmt.Errorf("%s.density: %g kg/m³ must be above 0", p, rb.Density)
	}
	if err := im.takeVec(b, p, "velocity", &rb.Velocity); err != nil {
		return err
	}
	if err := im.takeVec(b, p, "angularVelocity", &rb.AngularVelocity); err != nil {
		return err
	}
	if v, ok := take(b, "mapInvert"); ok && truthy(v) {
		return &UnsupportedError{p + ".mapInvert", "true: a dynamic body holding fluid inside is not supported"}
	}
	if v, ok := take(b, "isWall"); ok && truthy(v) {
		im.warn(p+".isWall", "true on a dynamic body: it is simulated as a dynamic body")
	}
	im.collisionKeys(b, p)
	im.leftovers(b, p)
	c.rigidSlot = len(im.sc.Rigid)
	im.contacts = append(im.contacts, c)
	im.sc.Rigid = append(im.sc.Rigid, rb)
	return nil
}

// axisAngleQuat returns the unit quaternion [w, x, y, z] of a rotation by angle (radians)
// about axis (any length; the identity for a zero angle).
func axisAngleQuat(axis mgl64.Vec3, angle float64) [4]float64 {
	l := axis.Len()
	if angle == 0 || !(l > 0) {
		return [4]float64{1, 0, 0, 0}
	}
	s, c := math.Sincos(angle / 2)
	n := axis.Mul(s / l)
	return [4]float64{c, n[0], n[1], n[2]}
}

// finishContacts maps the reference's contact coefficients. The reference's rigid-body solver
// combines a pair's coefficients as e = e_a·e_b and μ = μ_a + μ_b (the static walls are bodies
// with their own restitution and friction, 0.6 and 0.2 unless given); sluice uses a body's own
// e and μ against walls and max(e_a, e_b), √(μ_a μ_b) between bodies. A dynamic body gets
// e·e_wall and μ + μ_wall, so its contacts with the walls, the common case, match the
// reference; the walls' values come from the first static body (a warning names any other
// static body whose values differ).
func (im *importer) finishContacts() error {
	if len(im.sc.Rigid) == 0 {
		for _, c := range im.contacts {
			for k, key := range []string{"restitution", "friction"} {
				if c.given[k] {
					im.warn(c.path+"."+key, "a static body's contact coefficient matters only to dynamic bodies, and the scene has none, ignored")
				}
			}
		}
		return nil
	}
	var wall *contact
	for k := range im.contacts {
		c := &im.contacts[k]
		if c.rigidSlot >= 0 {
			continue
		}
		if wall == nil {
			wall = c
		} else if c.e != wall.e || c.mu != wall.mu {
			im.warn(c.path, "restitution %g and friction %g differ from %s's %g and %g, whose values sluice uses for every wall", c.e, c.mu, wall.path, wall.e, wall.mu)
		}
	}
	for _, c := range im.contacts {
		if c.rigidSlot < 0 {
			continue
		}
		rb := &im.sc.Rigid[c.rigidSlot]
		rb.Restitution, rb.Friction = c.e, c.mu
		if wall != nil {
			rb.Restitution, rb.Friction = c.e*wall.e, c.mu+wall.mu
		}
		for k, key := range []string{"restitution", "friction"} {
			if !c.given[k] {
				im.warn(c.path+"."+key, "not given: the reference's default %g is used", []float64{refRestitution, refFriction}[k])
			}
		}
		with := ""
		if wall != nil {
			with = " with the walls' value"
		}
		if !(rb.Restitution >= 0 && rb.Restitution <= 1) {
			return fmt.Errorf("%s.restitution: %g gives e = %g%s, outside [0, 1]", c.path, c.e, rb.Restitution, with)
		}
		if !(rb.Friction >= 0 && rb.Friction <= 10) {
			return fmt.Errorf("%s.friction: %g gives μ = %g%s, outside [0, 10]", c.path, c.mu, rb.Friction, with)
		}
	}
	return nil
}

// LoadAny reads a native sluice scene or a SPlisHSPlasH scene (recognised by its top-level
// "Configuration" object); warnings come only from the SPlisHSPlasH import.
func LoadAny(path string) (*Scene, []Warning, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	if IsSPlisHSPlasH(data) {
		return ImportSPlisHSPlasH(path)
	}
	s, err := Load(path)
	return s, nil, err
}

// animationField maps an entry of AnimationFields to an animationFields entry
// (components.AnimationField): particleField "velocity", "angular velocity" (the micropolar
// microrotation) or "position"; shapeType 0 box (scale: its edge lengths), 1 sphere (radius
// scale[0]), 2 cylinder (height scale[0] along the local x axis, radius scale[1]); the
// placement keys; expression_x/_y/_z; startTime, endTime. In a 2D scene an expression of a
// component the plane does not have is dropped with a warning.
func (im *importer) animationField(o obj, i int) error {
	p := fmt.Sprintf("AnimationFields[%d]", i)
	a := AnimationField{Name: fmt.Sprintf("field%d", i), AnimationField: components.DefaultAnimationField()}
	pf, _ := take(o, "particleField")
	name, _ := pf.(string)
	fields := map[string]string{"velocity": "velocity", "angular velocity": "angularVelocity", "position": "position"}
	if a.Field = fields[name]; a.Field == "" {
		return &UnsupportedError{p + ".particleField", fmt.Sprintf("%v: sluice animates velocity, angular velocity and position", pf)}
	}
	shape := 0.0
	if err := im.takeNum(o, p, "shapeType", &shape); err != nil {
		return err
	}
	shapes := map[float64]string{0: "box", 1: "sphere", 2: "cylinder"}
	if a.Shape = shapes[shape]; a.Shape == "" {
		return &UnsupportedError{p + ".shapeType", fmt.Sprintf("%v: the reference's shapes are 0 (box), 1 (sphere) and 2 (cylinder)", shape)}
	}
	a.Size = mgl64.Vec3{1, 1, 1} // the reference's defaults: unit scale, x axis, no turn
	for _, kv := range []struct {
		key string
		d   *mgl64.Vec3
	}{{"translation", &a.Center}, {"rotationAxis", &a.RotationAxis}, {"scale", &a.Size}} {
		if err := im.takeVec(o, p, kv.key, kv.d); err != nil {
			return err
		}
	}
	for _, kv := range []struct {
		key string
		d   *float64
	}{{"rotationAngle", &a.RotationAngle}, {"startTime", &a.StartTime}, {"endTime", &a.EndTime}} {
		if err := im.takeNum(o, p, kv.key, kv.d); err != nil {
			return err
		}
	}
	for d, k := range []string{"x", "y", "z"} {
		v, ok := take(o, "expression_"+k)
		if !ok {
			continue
		}
		src, isStr := v.(string)
		if !isStr {
			return fmt.Errorf("%s.expression_%s: expected a string, got %v", p, k, v)
		}
		planeless := a.Field == "angularVelocity" && d < 2 || a.Field != "angularVelocity" && d == 2
		if im.sc.Solver.Dimensions == 2 && planeless && src != "" {
			im.warn(p+".expression_"+k, "%q: a 2D scene has no %s component of %s, dropped", src, k, name)
			continue
		}
		*[]*string{&a.X, &a.Y, &a.Z}[d] = src
	}
	im.leftovers(o, p)
	if err := a.Validate(p, im.sc.Solver.Dimensions); err != nil {
		// name the reference's key, not sluice's
		var pe *params.Error
		if errors.As(err, &pe) {
			keys := map[string]string{"center": "translation", "size": "scale", "x": "expression_x", "y": "expression_y", "z": "expression_z"}
			if k, ok := keys[strings.TrimPrefix(pe.Path, p+".")]; ok {
				return &params.Error{Path: p + "." + k, Msg: pe.Msg}
			}
		}
		return err
	}
	for d, k := range []string{"x", "y", "z"} {
		if src := a.Expr(d); src != "" {
			if _, err := systems.CompileExpr(src); err != nil {
				return fmt.Errorf("%s.expression_%s: %w", p, k, err)
			}
		}
	}
	im.sc.Anim = append(im.sc.Anim, a)
	return nil
}
