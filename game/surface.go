//go:build g3n && cgo

package game

import (
	"fmt"
	"time"

	"github.com/g3n/engine/camera"
	"github.com/g3n/engine/core"
	"github.com/g3n/engine/gls"
	"github.com/g3n/engine/material"
	"github.com/g3n/engine/math32"
	"github.com/g3n/engine/renderer"
)

// Surface passes, in the order they run each frame (PassTimes' index).
const (
	PassScene     = iota // everything but the fluid (and the HUD), into a colour texture
	PassThickness        // fluid spheres' chords, additively
	PassDepth            // fluid spheres' nearest eye depth
	PassClose            // closing sweep of the depth's narrow gaps
	PassFilter           // bilateral filter of the depth, FilterIterations × 2 sweeps (at 1/FilterScale resolution, with the down- and upsampling)
	PassBlur             // blur of the thickness, 2 sweeps
	PassComposite        // shading over the scene into the window
	// PassSolids: the elastic and elastoplastic bodies, after the scene: each body's depth,
	// closing sweep, filter and opaque shading into the scene target.
	PassSolids
	NumPasses
)

// PassNames names the surface passes for reports.
var PassNames = [NumPasses]string{"scene", "thickness", "depth", "close", "filter", "blur", "composite", "solids"}

// surface renders the View's fluid bodies as a screen-space fluid surface (van der Laan, Green
// and Sainz 2009; Green 2010; programs in surface_shaders.go) with off-screen targets of the
// window's size:
//
//	scene     RGBA8 colour + depth/stencil renderbuffer: the rest of the scene
//	thickness RGBA32F (colour·chord, chord), sharing the scene's depth: tested, not written
//	depth     R32F eye depth, sharing the scene's depth: spheres tested against the scene
//	tmp       R32F, the closing sweep's output, the guide of the upsampling
//	half      2 × R32F at half the size: the filter's ping-pong pair (FilterScale 2)
//
// The particle passes go through g3n's renderer (graphics sharing the View's vertex buffer,
// with their own materials); the full-screen passes use programs registered with the
// renderer's shader manager, so it knows which program is bound, and an attribute-less vertex
// array.
type surface struct {
	gs   *gls.GLS
	rend *renderer.Renderer

	w, h                                                  int
	sceneFBO, thickFBO, depthFBO, tmpFBO, thick2FBO       uint32
	sceneTex, thickTex, depthTex, tmpTex, thick2Tex, zbuf uint32
	halfFBO, halfTex, halfThickFBO, halfThickTex          [2]uint32
	halfDepth                                             uint32 // the last filterDepth's half-resolution result (0: filtered at full resolution)
	vao                                                   uint32

	uFDepth, uFStep, uFRadius, uFPixels, uFFalloff, uFGap, uFClose gls.Uniform
	uFMaxRadius, uFMaxSamples, uRSource, uRGuide, uRUp, uRFalloff  gls.Uniform
	uCScene, uCDepth, uCThick, uCTexel, uCProj, uCView, uCLight    gls.Uniform
	uCAbsorb, uCRefract, uCZenith, uCHorizon, uCThickScale         gls.Uniform
	uBSource, uBDepth, uBStep, uBRadius, uBPixels, uBMax, uBDown   gls.Uniform
	uSDepth, uSTexel, uSProj, uSDepthCoef, uSLight, uSColor        gls.Uniform
	profile                                                        bool
	times                                                          [NumPasses]float64 // ms of the last frame's passes (profile)
	last                                                           time.Time
	viewToWorld                                                    [9]float32
	SkyZenith, SkyHorizon                                          Color
}

// registerSurfaceShaders adds the surface programs to a renderer.
func registerSurfaceShaders(r *renderer.Renderer) {
	r.AddShader(surfDepthFragName, surfDepthFragment)
	r.AddShader(surfThicknessFragName, surfThicknessFragment)
	r.AddShader(surfQuadVertName, surfQuadVertex)
	r.AddShader(surfFilterFragName, surfFilterFragment)
	r.AddShader(surfCompositeFragName, surfCompositeFragment)
	r.AddProgram(surfDepthProgram, particleVertName, surfDepthFragName)
	r.AddProgram(surfThicknessProgram, particleVertName, surfThicknessFragName)
	r.AddProgram(surfFilterProgram, surfQuadVertName, surfFilterFragName)
	r.AddProgram(surfCompositeProgram, surfQuadVertName, surfCompositeFragName)
	r.AddShader(surfBlurFragName, surfBlurFragment)
	r.AddProgram(surfBlurProgram, surfQuadVertName, surfBlurFragName)
	r.AddShader(surfSolidFragName, surfSolidFragment)
	r.AddProgram(surfSolidProgram, surfQuadVertName, surfSolidFragName)
	r.AddShader(surfResampleFragName, surfResampleFragment)
	r.AddProgram(surfResampleProgram, surfQuadVertName, surfResampleFragName)
	r.AddShader(surfEllipsoidVertName, surfEllipsoidVertex)
	r.AddShader(surfEllipsoidDepthFragName, surfEllipsoidDepthFragment)
	r.AddShader(surfEllipsoidThickFragName, surfEllipsoidThicknessFragment)
	r.AddProgram(surfEllipsoidDepthProgram, surfEllipsoidVertName, surfEllipsoidDepthFragName)
	r.AddProgram(surfEllipsoidThicknessProgram, surfEllipsoidVertName, surfEllipsoidThickFragName)
}

func newSurface(gs *gls.GLS, rend *renderer.Renderer) *surface {
	s := &surface{gs: gs, rend: rend,
		SkyZenith: Color{0.36, 0.52, 0.78, 1}, SkyHorizon: Color{0.78, 0.83, 0.88, 1}}
	for _, u := range []struct {
		u    *gls.Uniform
		name string
	}{
		{&s.uFDepth, "Depth"}, {&s.uFStep, "Step"}, {&s.uFRadius, "WorldRadius"},
		{&s.uFPixels, "PixelsPerUnit"}, {&s.uFFalloff, "DepthFalloff"}, {&s.uFGap, "GapWidth"}, {&s.uFClose, "Close"},
		{&s.uFMaxRadius, "MaxRadius"}, {&s.uFMaxSamples, "MaxSamples"}, {&s.uRSource, "Source"}, {&s.uRGuide, "Guide"}, {&s.uRUp, "Up"},
		{&s.uRFalloff, "DepthFalloff"},
		{&s.uCScene, "SceneColor"}, {&s.uCDepth, "Depth"}, {&s.uCThick, "Thickness"},
		{&s.uCTexel, "Texel"}, {&s.uCProj, "ProjScale"}, {&s.uCView, "ViewToWorld"},
		{&s.uCLight, "LightDir"}, {&s.uCAbsorb, "AbsorptionDepth"}, {&s.uCRefract, "Refraction"},
		{&s.uCZenith, "SkyZenith"}, {&s.uCHorizon, "SkyHorizon"}, {&s.uCThickScale, "ThicknessScale"},
		{&s.uBSource, "Source"}, {&s.uBDepth, "Depth"}, {&s.uBStep, "Step"},
		{&s.uBRadius, "WorldRadius"}, {&s.uBPixels, "PixelsPerUnit"}, {&s.uBMax, "MaxRadius"}, {&s.uBDown, "Down"},
		{&s.uSDepth, "Depth"}, {&s.uSTexel, "Texel"}, {&s.uSProj, "ProjScale"},
		{&s.uSDepthCoef, "DepthCoef"}, {&s.uSLight, "LightDir"}, {&s.uSColor, "BodyColor"},
	} {
		u.u.Init(u.name)
	}
	s.vao = gs.GenVertexArray()
	return s
}

// texture makes a w×h texture of the given formats, nearest-sampled unless linear.
func (s *surface) texture(w, h int, iformat int32, format, typ uint32, linear bool) uint32 {
	gs := s.gs
	t := gs.GenTexture()
	gs.BindTexture(gls.TEXTURE_2D, t)
	gs.TexImage2D(gls.TEXTURE_2D, 0, iformat, int32(w), int32(h), format, typ, nil)
	filter := int32(gls.NEAREST)
	if linear {
		filter = gls.LINEAR
	}
	gs.TexParameteri(gls.TEXTURE_2D, gls.TEXTURE_MIN_FILTER, filter)
	gs.TexParameteri(gls.TEXTURE_2D, gls.TEXTURE_MAG_FILTER, filter)
	gs.TexParameteri(gls.TEXTURE_2D, gls.TEXTURE_WRAP_S, gls.CLAMP_TO_EDGE)
	gs.TexParameteri(gls.TEXTURE_2D, gls.TEXTURE_WRAP_T, gls.CLAMP_TO_EDGE)
	gs.BindTexture(gls.TEXTURE_2D, 0)
	return t
}

// framebuffer attaches colour texture tex and, when depth, the shared depth renderbuffer to
// framebuffer *fb (made when 0), and checks it is complete.
func (s *surface) framebuffer(fb *uint32, tex uint32, depth bool) error {
	gs := s.gs
	if *fb == 0 {
		*fb = gs.GenFramebuffer()
	}
	gs.BindFramebuffer(*fb)
	gs.FramebufferTexture2D(gls.COLOR_ATTACHMENT0, gls.TEXTURE_2D, tex)
	if depth {
		gs.FramebufferRenderbuffer(gls.DEPTH_STENCIL_ATTACHMENT, s.zbuf)
	}
	st := gs.CheckFramebufferStatus()
	gs.BindFramebuffer(0)
	if st != gls.FRAMEBUFFER_COMPLETE {
		return fmt.Errorf("fluid surface: off-screen target incomplete (status 0x%x): the GL driver cannot render to float textures; use the marbles look", st)
	}
	return nil
}

// resize (re)makes the targets for a w×h window: new textures, the renderbuffer's storage
// respecified, the framebuffers kept (gls can delete neither, so they are made once).
func (s *surface) resize(w, h int) error {
	if w == s.w && h == s.h && s.sceneTex != 0 {
		return nil
	}
	s.freeTextures()
	s.w, s.h = w, h
	gs := s.gs
	if s.zbuf == 0 {
		s.zbuf = gs.GenRenderbuffer()
	}
	gs.BindRenderbuffer(s.zbuf)
	gs.RenderbufferStorage(gls.DEPTH24_STENCIL8, w, h)
	gs.BindRenderbuffer(0)
	s.sceneTex = s.texture(w, h, gls.RGBA8, gls.RGBA, gls.UNSIGNED_BYTE, true)
	s.thickTex = s.texture(w, h, gls.RGBA32F, gls.RGBA, gls.FLOAT, true)
	s.depthTex = s.texture(w, h, gls.R32F, gls.RED, gls.FLOAT, true)
	s.tmpTex = s.texture(w, h, gls.R32F, gls.RED, gls.FLOAT, true)
	s.thick2Tex = s.texture(w, h, gls.RGBA32F, gls.RGBA, gls.FLOAT, true)
	hw, hh := halfSize(w, h)
	for i := range s.halfTex {
		s.halfTex[i] = s.texture(hw, hh, gls.R32F, gls.RED, gls.FLOAT, true)
		s.halfThickTex[i] = s.texture(hw, hh, gls.RGBA32F, gls.RGBA, gls.FLOAT, true)
	}
	for _, t := range []struct {
		fb    *uint32
		tex   uint32
		depth bool
	}{
		{&s.sceneFBO, s.sceneTex, true}, {&s.thickFBO, s.thickTex, true}, {&s.depthFBO, s.depthTex, true},
		{&s.tmpFBO, s.tmpTex, false}, {&s.thick2FBO, s.thick2Tex, false},
		{&s.halfFBO[0], s.halfTex[0], false}, {&s.halfFBO[1], s.halfTex[1], false},
		{&s.halfThickFBO[0], s.halfThickTex[0], false}, {&s.halfThickFBO[1], s.halfThickTex[1], false},
	} {
		if err := s.framebuffer(t.fb, t.tex, t.depth); err != nil {
			return err
		}
	}
	return nil
}

// freeTextures deletes the target textures.
func (s *surface) freeTextures() {
	var tex []uint32
	for _, t := range []*uint32{&s.sceneTex, &s.thickTex, &s.depthTex, &s.tmpTex, &s.thick2Tex, &s.halfTex[0], &s.halfTex[1], &s.halfThickTex[0], &s.halfThickTex[1]} {
		if *t != 0 {
			tex = append(tex, *t)
			*t = 0
		}
	}
	if len(tex) > 0 {
		s.gs.DeleteTextures(tex...)
	}
}

// dispose releases the targets' storage when Run returns: the textures and the vertex array
// deleted, the renderbuffer shrunk to one pixel (gls cannot delete framebuffers or
// renderbuffers; their names hold nothing more).
func (s *surface) dispose() {
	s.freeTextures()
	if s.zbuf != 0 {
		s.gs.BindRenderbuffer(s.zbuf)
		s.gs.RenderbufferStorage(gls.DEPTH24_STENCIL8, 1, 1)
		s.gs.BindRenderbuffer(0)
	}
	if s.vao != 0 {
		s.gs.DeleteVertexArrays(s.vao)
		s.vao = 0
	}
	s.w, s.h = 0, 0
}

// mark ends a pass when profiling: it waits for the GL to finish the pass (reading back one
// pixel) and records the time since the last mark.
func (s *surface) mark(pass int) {
	if !s.profile {
		return
	}
	s.gs.ReadPixels(0, 0, 1, 1, gls.RGBA, gls.UNSIGNED_BYTE)
	now := time.Now()
	s.times[pass] = float64(now.Sub(s.last).Nanoseconds()) / 1e6
	s.last = now
}

// render draws scene (which must not show the fluid: the View leaves its fluid ranges out in
// the surface look) with the fluid surface of v composited over it into the window's
// framebuffer, then overlay (the HUD) on top. w, h is the framebuffer's size.
func (s *surface) render(v *View, scene, overlay core.INode, cam *camera.Camera, st *SurfaceStyle, bg Color, w, h int) error {
	if err := s.resize(w, h); err != nil {
		return err
	}
	gs, rend := s.gs, s.rend
	if s.profile {
		gs.ReadPixels(0, 0, 1, 1, gls.RGBA, gls.UNSIGNED_BYTE)
		s.last = time.Now()
	}
	gs.Viewport(0, 0, int32(w), int32(h))

	// The scene without the fluid and the HUD.
	gs.BindFramebuffer(s.sceneFBO)
	gs.ClearColor(bg.R, bg.G, bg.B, 1)
	gs.DepthMask(true)
	gs.Clear(gls.COLOR_BUFFER_BIT | gls.DEPTH_BUFFER_BIT | gls.STENCIL_BUFFER_BIT)
	vis := overlay.GetNode().Visible()
	overlay.GetNode().SetVisible(false)
	err := rend.Render(scene, cam)
	overlay.GetNode().SetVisible(vis)
	if err != nil {
		return err
	}
	s.mark(PassScene)
	var proj math32.Matrix4
	cam.ProjMatrix(&proj)

	// The elastic and elastoplastic bodies, one at a time, into the scene target and its depth.
	for i := range v.solids {
		if err := s.solid(v, &v.solids[i], cam, st, &proj, w, h); err != nil {
			return err
		}
	}
	s.mark(PassSolids)

	// The liquids: skipped, with an empty depth, when there are none (only solid surfaces).
	depth, thick := s.depthTex, s.thickTex
	if v.nLiquid > 0 {
		// Thickness (depth-tested against the scene, not written), then the nearest depth.
		gs.BindFramebuffer(s.thickFBO)
		gs.ClearColor(0, 0, 0, 0)
		gs.Clear(gls.COLOR_BUFFER_BIT)
		thickNode, depthNode := v.thickNode, v.depthNode
		if v.Anisotropic() {
			thickNode, depthNode = v.athickNode, v.adepthNode
		}
		if err := rend.Render(thickNode, cam); err != nil {
			return err
		}
		s.mark(PassThickness)
		gs.BindFramebuffer(s.depthFBO)
		gs.Clear(gls.COLOR_BUFFER_BIT)
		if err := rend.Render(depthNode, cam); err != nil {
			return err
		}
		s.mark(PassDepth)

		var err error
		if depth, err = s.filterDepth(v, st, &proj, w, h, true); err != nil {
			return err
		}
		s.mark(PassFilter)
		if thick, err = s.blurThickness(v, st, &proj, depth, w, h); err != nil {
			return err
		}
		s.mark(PassBlur)
	} else {
		gs.BindFramebuffer(s.depthFBO)
		gs.ClearColor(0, 0, 0, 0)
		gs.Clear(gls.COLOR_BUFFER_BIT)
		gs.Disable(gls.DEPTH_TEST)
		gs.DepthMask(false)
		gs.Disable(gls.BLEND)
		gs.Disable(gls.CULL_FACE)
		gs.BindVertexArray(s.vao)
	}

	// Composite into the window.
	gs.BindFramebuffer(0)
	gs.ClearColor(bg.R, bg.G, bg.B, 1)
	gs.DepthMask(true)
	gs.Clear(gls.COLOR_BUFFER_BIT | gls.DEPTH_BUFFER_BIT | gls.STENCIL_BUFFER_BIT)
	gs.DepthMask(false)
	if _, err := rend.SetProgram(&renderer.ShaderSpecs{Name: surfCompositeProgram, ShaderUnique: true}); err != nil {
		return err
	}
	for i, t := range [3]uint32{s.sceneTex, depth, thick} {
		gs.ActiveTexture(gls.TEXTURE0 + uint32(i))
		gs.BindTexture(gls.TEXTURE_2D, t)
	}
	gs.Uniform1i(s.uCScene.Location(gs), 0)
	gs.Uniform1i(s.uCDepth.Location(gs), 1)
	gs.Uniform1i(s.uCThick.Location(gs), 2)
	gs.Uniform2f(s.uCTexel.Location(gs), 1/float32(w), 1/float32(h))
	gs.Uniform2f(s.uCProj.Location(gs), proj[0], proj[5])
	// The camera's world matrix's rotation takes eye directions to world ones (column-major).
	m := cam.MatrixWorld()
	s.viewToWorld = [9]float32{m[0], m[1], m[2], m[4], m[5], m[6], m[8], m[9], m[10]}
	gs.UniformMatrix3fv(s.uCView.Location(gs), 1, false, &s.viewToWorld[0])
	gs.Uniform3f(s.uCLight.Location(gs), -0.408, 0.816, 0.408)
	gs.Uniform1f(s.uCAbsorb.Location(gs), float32(st.AbsorptionDepth))
	gs.Uniform1f(s.uCRefract.Location(gs), float32(st.Refraction))
	// A 2D world's fluid is one sheet of particles standing for a layer planarDepth deep: its
	// summed chords are scaled to that depth. Over a sheet of spheres of radius k·r, k =
	// planarRadiusScale, one per square of side 2r, they average (6/π)·(4/3)π(kr)³/(2r)² = 2k³r.
	thickScale := float32(1)
	if set := v.world.Settings(); set.Dimensions == 2 {
		thickScale = float32(st.PlanarDepth / (2 * planarRadiusScale * planarRadiusScale * planarRadiusScale * set.ParticleRadius))
	}
	gs.Uniform1f(s.uCThickScale.Location(gs), thickScale)
	gs.Uniform3f(s.uCZenith.Location(gs), s.SkyZenith.R, s.SkyZenith.G, s.SkyZenith.B)
	gs.Uniform3f(s.uCHorizon.Location(gs), s.SkyHorizon.R, s.SkyHorizon.G, s.SkyHorizon.B)
	gs.DrawArrays(gls.TRIANGLES, 0, 3)
	for i := 2; i >= 0; i-- {
		gs.ActiveTexture(gls.TEXTURE0 + uint32(i))
		gs.BindTexture(gls.TEXTURE_2D, 0)
	}
	gs.BindVertexArray(0)
	gs.DepthMask(true)
	s.mark(PassComposite)

	// The HUD over everything.
	return rend.Render(overlay, cam)
}

// addMaterial is the thickness pass's material: the base material's state, then plain
// additive blending (g3n's BlendAdditive weights by the source alpha), so RGBA sums colour·chord
// and chord.
type addMaterial struct{ *material.Material }

// RenderSetup implements material.IMaterial.
func (m addMaterial) RenderSetup(gs *gls.GLS) {
	m.Material.RenderSetup(gs)
	gs.BlendEquation(gls.FUNC_ADD)
	gs.BlendFunc(gls.ONE, gls.ONE)
}

// newSurfaceMaterial is the material of a surface particle pass.
func newSurfaceMaterial(program string, thickness bool) material.IMaterial {
	m := material.NewMaterial()
	m.SetShader(program)
	m.SetShaderUnique(true)
	m.SetUseLights(material.UseLightNone)
	m.SetSide(material.SideDouble)
	if thickness {
		m.SetDepthMask(false)
		m.SetBlending(material.BlendAdditive) // enables blending; RenderSetup sets the factors
		return addMaterial{m}
	}
	m.SetBlending(material.BlendNone)
	return m
}

// blurThickness blurs the thickness target with the filtered depth's radius (surfBlurFragment):
// one horizontal and one vertical sweep, at full resolution thick → thick2 → thick, or, when
// the depth was filtered at half resolution, after reducing thick into the half pair, there,
// with the half-resolution filtered depth. It returns the texture holding the result (thick
// itself when the filter is off).
func (s *surface) blurThickness(v *View, st *SurfaceStyle, proj *math32.Matrix4, depth uint32, w, h int) (uint32, error) {
	if st.FilterRadius <= 0 {
		return s.thickTex, nil
	}
	gs := s.gs
	if _, err := s.rend.SetProgram(&renderer.ShaderSpecs{Name: surfBlurProgram, ShaderUnique: true}); err != nil {
		return 0, err
	}
	gs.Uniform1i(s.uBSource.Location(gs), 0)
	gs.Uniform1i(s.uBDepth.Location(gs), 1)
	gs.Uniform1f(s.uBRadius.Location(gs), float32(st.FilterRadius)*v.radius)
	pixels := float32(h) * proj[5] / 2
	type sweep struct {
		fb, src uint32
		dx, dy  float32
	}
	sweeps := [2]sweep{{s.thick2FBO, s.thickTex, 1 / float32(w), 0}, {s.thickFBO, s.thick2Tex, 0, 1 / float32(h)}}
	result := s.thickTex
	if s.halfDepth != 0 {
		hw, hh := halfSize(w, h)
		gs.Viewport(0, 0, int32(hw), int32(hh))
		gs.Uniform1i(s.uBDown.Location(gs), 1)
		gs.BindFramebuffer(s.halfThickFBO[0])
		gs.ActiveTexture(gls.TEXTURE0)
		gs.BindTexture(gls.TEXTURE_2D, s.thickTex)
		gs.DrawArrays(gls.TRIANGLES, 0, 3)
		depth, pixels = s.halfDepth, pixels/2
		gs.Uniform1f(s.uBMax.Location(gs), filterMaxRadius/2)
		sweeps = [2]sweep{{s.halfThickFBO[1], s.halfThickTex[0], 1 / float32(hw), 0}, {s.halfThickFBO[0], s.halfThickTex[1], 0, 1 / float32(hh)}}
		result = s.halfThickTex[0]
	} else {
		gs.Uniform1f(s.uBMax.Location(gs), filterMaxRadius)
	}
	gs.Uniform1i(s.uBDown.Location(gs), 0)
	gs.Uniform1f(s.uBPixels.Location(gs), pixels)
	gs.ActiveTexture(gls.TEXTURE1)
	gs.BindTexture(gls.TEXTURE_2D, depth)
	gs.ActiveTexture(gls.TEXTURE0)
	for _, sw := range sweeps {
		gs.BindFramebuffer(sw.fb)
		gs.BindTexture(gls.TEXTURE_2D, sw.src)
		gs.Uniform2f(s.uBStep.Location(gs), sw.dx, sw.dy)
		gs.DrawArrays(gls.TRIANGLES, 0, 3)
	}
	gs.ActiveTexture(gls.TEXTURE1)
	gs.BindTexture(gls.TEXTURE_2D, 0)
	gs.ActiveTexture(gls.TEXTURE0)
	gs.Viewport(0, 0, int32(w), int32(h))
	return result, nil
}

// halfSize is the size of the half-resolution filter targets for a w×h window: every window
// pixel lies in one of their texels' 2×2 blocks.
func halfSize(w, h int) (int, int) { return (w + 1) / 2, (h + 1) / 2 }

// filterDepth runs the closing sweep on the depth target into tmp, then the bilateral filter
// (FilterIterations × 2 sweeps): at FilterScale 1 ping-ponging between tmp and depth at the
// window's resolution; at FilterScale 2 on the closed depth reduced to the half-resolution pair
// (surfResampleFragment), ping-ponging there, and upsampled into depth guided by the closed
// depth in tmp. It returns the texture holding the result and leaves depth testing, depth
// writes, blending and culling off, the viewport the window's and the quad's vertex array
// bound. With profile it marks PassClose.
func (s *surface) filterDepth(v *View, st *SurfaceStyle, proj *math32.Matrix4, w, h int, profile bool) (uint32, error) {
	gs, rend := s.gs, s.rend
	// The full-screen passes: no depth test, no blending, no culling.
	gs.Disable(gls.DEPTH_TEST)
	gs.DepthMask(false)
	gs.Disable(gls.BLEND)
	gs.Disable(gls.CULL_FACE)
	gs.BindVertexArray(s.vao)
	gs.ActiveTexture(gls.TEXTURE0)
	// The closing sweep, then the filter's: ping-pong between depth and tmp.
	if _, err := rend.SetProgram(&renderer.ShaderSpecs{Name: surfFilterProgram, ShaderUnique: true}); err != nil {
		return 0, err
	}
	pixels := float32(h) * proj[5] / 2 // pixels a unit at depth 1 spans
	falloff := float32(st.DepthFalloff) * v.radius
	gs.Uniform1i(s.uFDepth.Location(gs), 0)
	gs.Uniform1f(s.uFRadius.Location(gs), float32(st.FilterRadius)*v.radius)
	gs.Uniform1f(s.uFPixels.Location(gs), pixels)
	gs.Uniform1f(s.uFMaxRadius.Location(gs), filterMaxRadius)
	gs.Uniform1i(s.uFMaxSamples.Location(gs), filterMaxSamples)
	gs.Uniform1f(s.uFFalloff.Location(gs), falloff)
	gs.Uniform1f(s.uFGap.Location(gs), 2*v.radius)
	fbs, texs, cur := [2]uint32{s.depthFBO, s.tmpFBO}, [2]uint32{s.depthTex, s.tmpTex}, 0
	sweep := func(dx, dy float32) {
		gs.BindFramebuffer(fbs[1-cur])
		gs.BindTexture(gls.TEXTURE_2D, texs[cur])
		gs.Uniform2f(s.uFStep.Location(gs), dx, dy)
		gs.DrawArrays(gls.TRIANGLES, 0, 3)
		cur = 1 - cur
	}
	gs.Uniform1i(s.uFClose.Location(gs), 1)
	sweep(0, 0)
	gs.Uniform1i(s.uFClose.Location(gs), 0)
	if profile {
		s.mark(PassClose)
	}
	s.halfDepth = 0
	if st.FilterRadius <= 0 || st.FilterIterations <= 0 {
		return texs[cur], nil
	}
	if st.FilterScale < 2 {
		for it := 0; it < st.FilterIterations; it++ {
			sweep(1/float32(w), 0)
			sweep(0, 1/float32(h))
		}
		return texs[cur], nil
	}

	// Half resolution: the closed depth (in tmp) down into half[0]; the filter's sweeps between
	// the half pair, with the kernel's pixel scale and cap halved; up into depth.
	closed := texs[cur]
	hw, hh := halfSize(w, h)
	gs.Viewport(0, 0, int32(hw), int32(hh))
	gs.Uniform1f(s.uFPixels.Location(gs), pixels/2)
	gs.Uniform1f(s.uFMaxRadius.Location(gs), filterMaxRadius/2)
	gs.Uniform1i(s.uFMaxSamples.Location(gs), filterMaxSamples/2)
	if _, err := rend.SetProgram(&renderer.ShaderSpecs{Name: surfResampleProgram, ShaderUnique: true}); err != nil {
		return 0, err
	}
	gs.Uniform1i(s.uRSource.Location(gs), 0)
	gs.Uniform1i(s.uRGuide.Location(gs), 1)
	gs.Uniform1f(s.uRFalloff.Location(gs), falloff)
	gs.Uniform1i(s.uRUp.Location(gs), 0)
	gs.BindFramebuffer(s.halfFBO[0])
	gs.BindTexture(gls.TEXTURE_2D, closed)
	gs.DrawArrays(gls.TRIANGLES, 0, 3)
	if _, err := rend.SetProgram(&renderer.ShaderSpecs{Name: surfFilterProgram, ShaderUnique: true}); err != nil {
		return 0, err
	}
	fbs, texs, cur = s.halfFBO, s.halfTex, 0
	for it := 0; it < st.FilterIterations; it++ {
		sweep(1/float32(hw), 0)
		sweep(0, 1/float32(hh))
	}
	s.halfDepth = texs[cur]
	gs.Viewport(0, 0, int32(w), int32(h))
	if _, err := rend.SetProgram(&renderer.ShaderSpecs{Name: surfResampleProgram, ShaderUnique: true}); err != nil {
		return 0, err
	}
	gs.Uniform1i(s.uRUp.Location(gs), 1)
	gs.BindFramebuffer(s.depthFBO)
	gs.BindTexture(gls.TEXTURE_2D, texs[cur])
	gs.ActiveTexture(gls.TEXTURE1)
	gs.BindTexture(gls.TEXTURE_2D, closed)
	gs.DrawArrays(gls.TRIANGLES, 0, 3)
	gs.BindTexture(gls.TEXTURE_2D, 0)
	gs.ActiveTexture(gls.TEXTURE0)
	return s.depthTex, nil
}

// filterMaxRadius caps the depth filter's kernel radius in window pixels and filterMaxSamples
// its taps a side (both halved at half resolution).
const (
	filterMaxRadius  = 24
	filterMaxSamples = 16
)

// solid draws one elastic or elastoplastic body as an opaque surface into the scene target: its
// particles' sphere depth into the depth target (tested against, and written to, the scene's
// depth buffer, so what lies in front hides it), the closing sweep and the filter of the fluid
// (filterDepth), then surfSolidFragment's shading in the body's colour, writing the surface's
// depth, so the liquids and the bodies drawn after it are hidden behind it. Each body is
// filtered alone: two bodies, or a body and the water, never blend into one surface.
func (s *surface) solid(v *View, b *solidBody, cam *camera.Camera, st *SurfaceStyle, proj *math32.Matrix4, w, h int) error {
	gs, rend := s.gs, s.rend
	gs.BindFramebuffer(s.depthFBO)
	gs.ClearColor(0, 0, 0, 0)
	gs.Clear(gls.COLOR_BUFFER_BIT)
	if err := rend.Render(b.node, cam); err != nil {
		return err
	}
	depth, err := s.filterDepth(v, st, proj, w, h, false)
	if err != nil {
		return err
	}
	gs.BindFramebuffer(s.sceneFBO)
	if _, err := rend.SetProgram(&renderer.ShaderSpecs{Name: surfSolidProgram, ShaderUnique: true}); err != nil {
		return err
	}
	gs.ActiveTexture(gls.TEXTURE0)
	gs.BindTexture(gls.TEXTURE_2D, depth)
	gs.Uniform1i(s.uSDepth.Location(gs), 0)
	gs.Uniform2f(s.uSTexel.Location(gs), 1/float32(w), 1/float32(h))
	gs.Uniform2f(s.uSProj.Location(gs), proj[0], proj[5])
	gs.Uniform2f(s.uSDepthCoef.Location(gs), proj[10], proj[14])
	gs.Uniform3f(s.uSLight.Location(gs), -0.408, 0.816, 0.408)
	gs.Uniform3f(s.uSColor.Location(gs), b.color.R, b.color.G, b.color.B)
	// The pixels with depth are the body's visible ones (its depth pass was tested against the
	// scene): they overwrite the depth buffer with the filtered surface's.
	gs.Enable(gls.DEPTH_TEST)
	gs.DepthFunc(gls.ALWAYS)
	gs.DepthMask(true)
	gs.DrawArrays(gls.TRIANGLES, 0, 3)
	gs.DepthFunc(gls.LEQUAL)
	gs.BindTexture(gls.TEXTURE_2D, 0)
	gs.BindVertexArray(0)
	return nil
}
