//go:build g3n && cgo

package main

import (
	"flag"
	"fmt"
	"math"
	"runtime"

	"github.com/g3n/engine/geometry"
	"github.com/g3n/engine/gls"
	"github.com/g3n/engine/graphic"
	"github.com/g3n/engine/material"
	"github.com/g3n/engine/math32"
	"github.com/g3n/engine/window"
	"github.com/go-gl/mathgl/mgl64"
	sgame "github.com/sluicephysics/sluice/game"
)

var (
	windowFlag = flag.Bool("window", false, "play in a window: move the mouse over the box to stir the air (drag to turn the camera)")
	screenshot = flag.String("screenshot", "", "with -window: stir by script for 2 s, save the last frame as this PNG and exit")
)

// GLFW and the GL context want the process's main thread: keep main on it.
func init() { runtime.LockOSThread() }

// arrowsPerSide: the wind is drawn as arrowsPerSide² arrows on a lattice over the domain.
const arrowsPerSide = 16

// windowed opens the stirring scene (stir.go) in the g3n view. Moving the mouse over the
// domain without a button pressed pushes the air along with the cursor (stir.push, between
// steps); the wind is drawn as arrows, the feathers are the world's rigid bodies.
func windowed() error {
	s, err := newStir()
	if err != nil {
		return err
	}
	defer s.w.Close()
	var label *sgame.Caption
	vbo := gls.NewVBO(math32.NewArrayF32(arrowsPerSide*arrowsPerSide*2*6, arrowsPerSide*arrowsPerSide*2*6))
	vbo.AddAttrib(gls.VertexPosition).AddAttrib(gls.VertexColor)
	vbo.SetUsage(gls.STREAM_DRAW)
	var cursor, last [2]float32
	var moved, dragging bool
	var proj func(px, py float32) (mgl64.Vec3, bool)
	o := sgame.Options{Title: "sluice wind",
		Setup: func(c *sgame.Context) error {
			g := geometry.NewGeometry()
			g.AddVBO(vbo)
			c.Scene.Add(graphic.NewLines(g, material.NewBasic()))
			label = sgame.NewCaption("move the mouse over the box to stir the air", 20, 10, 90)
			c.Scene.Add(label)
			c.Window.SubscribeID(window.OnCursor, s, func(_ string, ev interface{}) {
				e := ev.(*window.CursorEvent)
				cursor, moved = [2]float32{e.Xpos, e.Ypos}, true
			})
			c.Window.SubscribeID(window.OnMouseDown, s, func(string, interface{}) { dragging = true })
			c.Window.SubscribeID(window.OnMouseUp, s, func(string, interface{}) { dragging = false })
			proj = func(px, py float32) (mgl64.Vec3, bool) {
				w, h := c.Window.GetSize()
				x, y := 2*px/float32(w)-1, 1-2*py/float32(h)
				a := c.Camera.Unproject(math32.NewVector3(x, y, -1))
				b := c.Camera.Unproject(math32.NewVector3(x, y, 1))
				// the ray from a to b meets the domain's plane z = 0
				if b.Z == a.Z {
					return mgl64.Vec3{}, false
				}
				t := -a.Z / (b.Z - a.Z)
				return mgl64.Vec3{float64(a.X + t*(b.X-a.X)), float64(a.Y + t*(b.Y-a.Y)), 0}, true
			}
			return nil
		},
		OnFrame: func(c *sgame.Context, dt float64) error {
			if dt <= 0 {
				return nil
			}
			var from, to mgl64.Vec3
			ok := false
			if *screenshot != "" { // the scripted stirrer: a circle through the lower half
				th := 2 * math.Pi * float64(c.Frame) / 60
				th0 := th - 2*math.Pi/60
				from = mgl64.Vec3{0.5 + 0.25*math.Cos(th0), 0.3 + 0.22*math.Sin(th0), 0}
				to = mgl64.Vec3{0.5 + 0.25*math.Cos(th), 0.3 + 0.22*math.Sin(th), 0}
				ok = true
			} else if moved && !dragging {
				p0, ok0 := proj(last[0], last[1])
				p1, ok1 := proj(cursor[0], cursor[1])
				from, to, ok = p0, p1, ok0 && ok1
			}
			last, moved = cursor, false
			if ok {
				if err := s.push(from, to, dt); err != nil {
					return err
				}
			}
			s.arrows(vbo)
			label.Show(c, fmt.Sprintf("move the mouse over the box to stir the air   air energy %.3g m⁴/s²", s.energy()))
			return nil
		},
	}
	if *screenshot != "" {
		o.Frames, o.Screenshot = 120, *screenshot
	}
	_, err = sgame.Run(s.w, o)
	return err
}

// arrows writes the wind's arrows at the lattice points into vbo: a line from each point along
// the air's velocity (0.04 s of travel), blue at its foot and white at its tip.
func (s *stir) arrows(vbo *gls.VBO) {
	buf := vbo.Buffer()
	d := s.w.ReducedDomain(s.dom)
	k := 0
	for i := 0; i < arrowsPerSide; i++ {
		for j := 0; j < arrowsPerSide; j++ {
			x := (float64(i) + 0.5) / arrowsPerSide * stirSize
			y := (float64(j) + 0.5) / arrowsPerSide * stirSize
			u, v := d.VelocityAt(x, y)
			const travel = 0.04
			seg := [2][6]float32{{float32(x), float32(y), 0, 0.3, 0.5, 1}, {float32(x + travel*u), float32(y + travel*v), 0, 1, 1, 1}}
			for _, p := range seg {
				copy((*buf)[k:k+6], p[:])
				k += 6
			}
		}
	}
	vbo.Update()
}
