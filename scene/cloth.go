package scene

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/params"
)

// ClothBody is a cloth sheet (components.Cloth): a rectangle of rows × cols vertices at the
// world's particle spacing 2r, or the triangles of an OBJ file placed like a boundary mesh,
// with pinned vertices. Its springs and contacts are constraints of the Projective Fluids
// solve, so the scene's solver.pressureSolver must be "pf".
type ClothBody struct {
	Name   string     `json:"name" required:"true" doc:"unique body name"`
	Shape  string     `json:"shape" default:"rectangle" doc:"rectangle (origin, axisU, axisV, rows, cols; spacing 2r) or mesh (the triangles of file, placed by scale, rotation and translation)"`
	Origin mgl64.Vec3 `json:"origin" unit:"m" default:"[0,0,0]" range:"[-1e6,1e6]" doc:"rectangle: position of vertex 0 (row 0, column 0)"`
	AxisU  mgl64.Vec3 `json:"axisU" unit:"1" default:"[1,0,0]" range:"[-1e6,1e6]" doc:"rectangle: direction along a row (columns step along it; normalised)"`
	AxisV  mgl64.Vec3 `json:"axisV" unit:"1" default:"[0,0,1]" range:"[-1e6,1e6]" doc:"rectangle: direction along a column (rows step along it; normalised, not parallel to axisU)"`
	Rows   int        `json:"rows" default:"10" range:"[2,10000]" doc:"rectangle: vertices along axisV"`
	Cols   int        `json:"cols" default:"10" range:"[2,10000]" doc:"rectangle: vertices along axisU; vertex (row, col) has index row·cols + col"`
	File   string     `json:"file" default:"" doc:"mesh: OBJ file, relative to the scene file (its vertex order gives the indices of pinned)"`
	Placement
	Pin      string              `json:"pin" default:"none" doc:"rectangle: none, corners (the four corner vertices) or border (every vertex on the rectangle's edge); added to pinned"`
	Pinned   []int32             `json:"pinned" doc:"indices of further pinned vertices (held fixed where they start)"`
	Velocity mgl64.Vec3          `json:"velocity" unit:"m/s" default:"[0,0,0]" range:"[-1e4,1e4]" doc:"initial velocity of the free vertices"`
	Material components.Material `json:"material" doc:"material; the cloth group holds the areal density and the stretch and bending stiffness"`
}

// validate checks what can be checked before the world exists (the mesh itself is checked
// when the body is added: vertex indices, degenerate triangles, pins).
func (c *ClothBody) validate(path string, s *Scene) error {
	if s.Solver.PressureSolver != "pf" {
		return &params.Error{Path: path, Msg: fmt.Sprintf("a cloth body needs solver.pressureSolver \"pf\" (is %q; allowed: pf)", s.Solver.PressureSolver)}
	}
	switch c.Shape {
	case "rectangle":
		if c.Pin != "none" && c.Pin != "corners" && c.Pin != "border" {
			return &params.Error{Path: path + ".pin", Msg: fmt.Sprintf("%q is not a pin pattern (allowed: none, corners, border)", c.Pin)}
		}
	case "mesh":
		if c.File == "" {
			return &params.Error{Path: path + ".file", Msg: "a mesh cloth needs an OBJ file"}
		}
		if c.Pin != "none" {
			return &params.Error{Path: path + ".pin", Msg: fmt.Sprintf("%q applies to rectangles (allowed for a mesh: none; list the vertices in pinned)", c.Pin)}
		}
		if err := c.Placement.check(path); err != nil {
			return err
		}
	default:
		return &params.Error{Path: path + ".shape", Msg: fmt.Sprintf("%q is not a cloth shape (allowed: rectangle, mesh)", c.Shape)}
	}
	return c.Material.Validate(path + ".material")
}

// add builds the sheet and adds it to the world.
func (c *ClothBody) add(w *sluice.World, dir string) error {
	var x []mgl64.Vec3
	var tris [][3]int32
	pins := append([]int32(nil), c.Pinned...)
	if c.Shape == "mesh" {
		mesh, err := LoadOBJ(resolve(dir, c.File))
		if err != nil {
			return err
		}
		if err := c.apply(mesh.V); err != nil {
			return err
		}
		x, tris = mesh.V, mesh.Tris
	} else {
		var err error
		st := w.Settings()
		x, tris, err = sluice.ClothGrid(c.Origin, c.AxisU, c.AxisV, st.Spacing(), c.Rows, c.Cols)
		if err != nil {
			return err
		}
		for r := 0; r < c.Rows; r++ {
			for k := 0; k < c.Cols; k++ {
				edge := r == 0 || k == 0 || r == c.Rows-1 || k == c.Cols-1
				corner := (r == 0 || r == c.Rows-1) && (k == 0 || k == c.Cols-1)
				if (c.Pin == "corners" && corner) || (c.Pin == "border" && edge) {
					id := int32(r*c.Cols + k)
					if !contains(pins, id) {
						pins = append(pins, id)
					}
				}
			}
		}
	}
	e, err := w.AddCloth(c.Name, c.Material, x, tris, pins)
	if err != nil {
		return err
	}
	p := w.Particles(e)
	pinned := w.ClothState(e).Pinned
	for i := range p.V {
		if !contains(pinned, int32(i)) {
			p.V[i] = c.Velocity
		}
	}
	return nil
}

func contains(s []int32, v int32) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
