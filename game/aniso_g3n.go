//go:build g3n && cgo

package game

import (
	"github.com/g3n/engine/core"
	"github.com/g3n/engine/geometry"
	"github.com/g3n/engine/gls"
)

// anisoStride is the floats per particle of the ellipsoids' buffer: centre (3), RGBA colour
// (4) and three semi-axes (3 each).
const anisoStride = 16

// ellipsoidVBO makes the ellipsoids' vertex buffer, in surfEllipsoidVertex's layout.
func ellipsoidVBO() *gls.VBO {
	b := gls.NewVBO(nil)
	b.AddAttrib(gls.VertexPosition)
	b.AddCustomAttrib("ParticleColor", 4)
	b.AddCustomAttrib("Axis0", 3)
	b.AddCustomAttrib("Axis1", 3)
	b.AddCustomAttrib("Axis2", 3)
	b.SetUsage(gls.STREAM_DRAW)
	return b
}

// ellipsoidGraphic is a particleGraphic whose fragment shader also needs the viewport, to cast
// the eye ray through its pixel.
type ellipsoidGraphic struct {
	particleGraphic
	uViewport gls.Uniform
}

// RenderSetup is called by the renderer before each draw of the graphic.
func (g *ellipsoidGraphic) RenderSetup(gs *gls.GLS, rinfo *core.RenderInfo) {
	g.particleGraphic.RenderSetup(gs, rinfo)
	x, y, w, h := gs.GetViewport()
	gs.Uniform4f(g.uViewport.Location(gs), float32(x), float32(y), float32(w), float32(h))
}

// newEllipsoidGraphic makes a points graphic of geom drawn by the ellipsoid programs.
func newEllipsoidGraphic(geom *geometry.Geometry) *ellipsoidGraphic {
	g := &ellipsoidGraphic{}
	g.Graphic.Init(g, geom, gls.POINTS)
	g.uMV.Init("MV")
	g.uMVP.Init("MVP")
	g.uProj.Init("Proj")
	g.uScale.Init("PointScale")
	g.uLight.Init("LightDir")
	g.uViewport.Init("Viewport")
	g.SetCullable(false)
	return g
}

// SetAnisotropic draws the liquids of a 3D world in the surface look as anisotropic
// ellipsoids (Yu and Turk 2013, aniso.go) instead of spheres (key A, Options.Anisotropic).
func (v *View) SetAnisotropic(on bool) {
	if on && v.aniso == nil {
		v.aniso = newAnisotropy(0)
	}
	v.anisoOn = on
	v.layoutEllipsoids()
	if v.Anisotropic() {
		v.syncEllipsoids()
	}
}

// Anisotropic reports whether the liquids are drawn as ellipsoids: the option is on, the look
// is the surface, the world is 3D and there are liquids.
func (v *View) Anisotropic() bool {
	return v.anisoOn && v.look == LookSurface && v.nLiquid > 0 && v.world.Settings().Dimensions != 2
}

// Close stops the ellipsoids' worker goroutines (Run calls it when it returns).
func (v *View) Close() {
	if v.aniso != nil {
		v.aniso.Close()
		v.aniso = nil
	}
}

// layoutEllipsoids sizes the ellipsoids' buffer to the liquid particles (at layouts, look
// changes and the toggle; it reuses the buffer when it is large enough).
func (v *View) layoutEllipsoids() {
	if !v.Anisotropic() {
		return
	}
	n := anisoStride * v.nLiquid
	if cap(v.abuf) < n {
		v.abuf = make([]float32, n)
	}
	v.abuf = v.abuf[:n]
	v.avbo.SetBuffer(v.abuf)
}

// syncEllipsoids copies the liquid particles' interpolated centres and colours from buf into
// abuf, computes their ellipsoids and queues the buffer for upload. It allocates nothing after
// the first frame of a layout.
func (v *View) syncEllipsoids() {
	j := 0
	for _, rg := range v.liquidRanges {
		for k := rg[0]; k < rg[0]+rg[1]; k++ {
			copy(v.abuf[j:j+7], v.buf[stride*k:stride*k+7])
			j += anisoStride
		}
	}
	r := float64(v.radius)
	if len(v.liquidRanges) > 0 {
		k := v.liquidRanges[0][0]
		r = float64(v.buf[stride*k+7]) // the drawn radius (the body's radius scale applied)
	}
	v.aniso.Compute(v.abuf, anisoStride, v.nLiquid, r)
	for i := 0; i < v.nLiquid; i++ {
		copy(v.abuf[anisoStride*i+7:anisoStride*i+16], v.aniso.Axes[9*i:9*i+9])
	}
	v.avbo.Update()
}
