package sluice

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/systems"
)

// saveCloth writes every cloth body's mesh (snapshot version 14): ID, rest positions,
// triangles and pinned vertices. The constraints are derived from these again on restore.
func (w *World) saveCloth(e *enc) {
	e.u64(uint64(len(w.sim.Cloth)))
	for _, c := range w.sim.Cloth {
		e.u32(c.ID)
		e.u64(uint64(len(c.Rest)))
		e.vecs(c.Rest)
		e.tris(c.Tris)
		e.u64(uint64(len(c.Pinned)))
		for _, p := range c.Pinned {
			e.u32(uint32(p))
		}
	}
}

type savedCloth struct {
	id     uint32
	rest   []mgl64.Vec3
	tris   [][3]int32
	pinned []int32
}

func loadCloth(d *dec) []savedCloth {
	var out []savedCloth
	n := d.count(28)
	for k := 0; k < n && d.err == nil; k++ {
		sc := savedCloth{id: d.u32()}
		sc.rest = d.vecs(d.count(24))
		sc.tris = d.tris(len(sc.rest), fmt.Sprintf("cloth body %d", sc.id))
		np := d.count(4)
		for i := 0; i < np && d.err == nil; i++ {
			sc.pinned = append(sc.pinned, int32(d.u32()))
		}
		out = append(out, sc)
	}
	return out
}

// restoreCloth rebuilds the meshes of the restored cloth bodies, checking them as AddCloth
// does.
func (w *World) restoreCloth(bodies []savedBody, cloths []savedCloth) error {
	for _, sc := range cloths {
		var sb *savedBody
		for i := range bodies {
			if bodies[i].body.ID == sc.id && bodies[i].body.Phase == components.Cloth {
				sb = &bodies[i]
			}
		}
		if sb == nil || len(sc.rest) != sb.p.Len() {
			return fmt.Errorf("cloth mesh of body ID %d matches no cloth body", sc.id)
		}
		c, err := systems.BuildCloth(sb.body.Name, sc.rest, sc.tris, sc.pinned)
		if err != nil {
			return err
		}
		w.sim.InitCloth(sc.id, c)
	}
	return nil
}
