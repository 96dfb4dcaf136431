package scene

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
)

// PoseColumns is the header row of a rigid-body pose track: each column's name with its unit
// in brackets. A row is one rigid body at one instant: the simulated time, the body's name,
// its centre of mass, its orientation as a unit quaternion (w first), its linear and angular
// velocity (world axes), the fraction of its volume under water, and where its model origin
// is (the point a scene's "position" places; for a mesh, the OBJ file's origin), which is
// what a renderer's object made from the same OBJ is keyed with.
var PoseColumns = []string{
	"t[s]", "body",
	"x[m]", "y[m]", "z[m]",
	"qw", "qx", "qy", "qz",
	"vx[m/s]", "vy[m/s]", "vz[m/s]",
	"wx[rad/s]", "wy[rad/s]", "wz[rad/s]",
	"submerged[1]",
	"originx[m]", "originy[m]", "originz[m]",
}

// PoseWriter writes a pose track: a CSV file with the PoseColumns header and one row per rigid
// body (static, kinematic and dynamic, in body order) each time Write is called. Numbers are
// written with the fewest digits that read back to the same float64, so a track is exact;
// names are quoted per RFC 4180 where they need it.
type PoseWriter struct {
	out    *csv.Writer
	bodies []poseBody
	row    []string
}

type poseBody struct {
	name   string
	e      sluice.Entity
	center mgl64.Vec3 // centre of mass in model coordinates (after the mesh's scale)
}

// NewPoseWriter writes the header and returns a writer for the world's rigid bodies; Bodies
// reports how many it tracks (a world without rigid bodies gives a track of the header alone).
func NewPoseWriter(out io.Writer, w *sluice.World) (*PoseWriter, error) {
	p := &PoseWriter{out: csv.NewWriter(out), row: make([]string, len(PoseColumns))}
	for _, b := range w.Bodies() {
		r := w.RigidBody(b.Entity)
		if r == nil {
			continue
		}
		sh, err := r.Geometry()
		if err != nil {
			return nil, fmt.Errorf("body %q: %w", b.Body.Name, err)
		}
		mp, err := sh.Properties(r.Density)
		if err != nil {
			return nil, fmt.Errorf("body %q: %w", b.Body.Name, err)
		}
		p.bodies = append(p.bodies, poseBody{name: b.Body.Name, e: b.Entity, center: mp.Center})
	}
	if err := p.out.Write(PoseColumns); err != nil {
		return nil, err
	}
	return p, nil
}

// Bodies is the number of rigid bodies tracked.
func (p *PoseWriter) Bodies() int { return len(p.bodies) }

// Write appends one row per tracked body with the world's current time and the bodies' state.
func (p *PoseWriter) Write(w *sluice.World) error {
	t := w.Time()
	for _, b := range p.bodies {
		r := w.RigidBody(b.e)
		if r == nil {
			return fmt.Errorf("body %q is no longer a rigid body", b.name)
		}
		st := &r.State
		rot := st.Q.Matrix()
		origin := st.X.Sub(rot.MulVec(b.center))
		p.row[0], p.row[1] = strconv.FormatFloat(t, 'g', -1, 64), b.name
		for i, f := range []float64{st.X[0], st.X[1], st.X[2], st.Q[0], st.Q[1], st.Q[2], st.Q[3],
			st.V[0], st.V[1], st.V[2], st.W[0], st.W[1], st.W[2], r.Submerged, origin[0], origin[1], origin[2]} {
			p.row[2+i] = strconv.FormatFloat(f, 'g', -1, 64)
		}
		if err := p.out.Write(p.row); err != nil {
			return err
		}
	}
	return nil
}

// Flush writes buffered rows to the underlying writer and reports a write error.
func (p *PoseWriter) Flush() error {
	p.out.Flush()
	return p.out.Error()
}
