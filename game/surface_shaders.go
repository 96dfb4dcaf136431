//go:build g3n && cgo

package game

// The screen-space fluid surface programs (surface.go): van der Laan, Green and Sainz 2009,
// "Screen space fluid rendering with curvature flow" (I3D '09), §3–§5, and Green 2010,
// "Screen Space Fluid Rendering for Games" (GDC): the fluid particles are drawn as spheres
// into an eye-depth target (the nearest sphere surface per pixel) and, additively, into a
// thickness target; the depth is smoothed by an edge-preserving (bilateral) filter; the
// composite rebuilds eye positions and normals from the smoothed depth and shades the surface.

const (
	surfDepthProgram     = "sluice_surface_depth"
	surfThicknessProgram = "sluice_surface_thickness"
	surfFilterProgram    = "sluice_surface_filter"
	surfCompositeProgram = "sluice_surface_composite"
	surfBlurProgram      = "sluice_surface_blur"
	surfSolidProgram     = "sluice_surface_solid"
	surfResampleProgram  = "sluice_surface_resample"

	surfDepthFragName     = "sluice_surface_depth_fragment"
	surfThicknessFragName = "sluice_surface_thickness_fragment"
	surfQuadVertName      = "sluice_surface_quad_vertex"
	surfFilterFragName    = "sluice_surface_filter_fragment"
	surfCompositeFragName = "sluice_surface_composite_fragment"
	surfBlurFragName      = "sluice_surface_blur_fragment"
	surfSolidFragName     = "sluice_surface_solid_fragment"
	surfResampleFragName  = "sluice_surface_resample_fragment"
)

// surfDepthFragment writes the eye-space distance −z of the sphere's front surface (van der
// Laan et al. 2009 §3: the particles as point sprites with a sphere's depth) into an R32F
// target and the matching window depth, so the depth test against the scene keeps the nearest
// sphere and hides fluid behind solid objects. The vertex shader is the impostors'.
const surfDepthFragment = `
in vec4 Color;
in vec3 EyeCenter;
in float EyeRadius;

uniform mat4 Proj;

out vec4 FragColor;

void main() {
    vec2 p = gl_PointCoord * 2.0 - 1.0;
    float r2 = dot(p, p);
    if (r2 > 1.0) {
        discard;
    }
    vec3 n = vec3(p.x, -p.y, sqrt(1.0 - r2));
    vec3 eye = EyeCenter + n * EyeRadius;
    // Only red reaches the R32F target. Green carries the colour's alpha so that the
    // program keeps ParticleColor active: g3n binds a vertex buffer's attributes once, at the
    // locations of the first program that draws it, which for the elastic bodies' surfaces
    // is this one; an attribute the program dropped would stay unbound for every program.
    FragColor = vec4(-eye.z, Color.a, 0.0, 1.0);
    vec4 clip = Proj * vec4(eye, 1.0);
    gl_FragDepth = 0.5 * clip.z / clip.w + 0.5;
}
`

// surfThicknessFragment adds each sphere's chord along the view ray, 2r·sqrt(1 − ρ²) at
// normalised distance ρ from the sprite's centre (van der Laan et al. 2009 §4: thickness
// rendered additively, without depth writes but tested against the scene), scaled by 6/π: the
// particles sit on a lattice of spacing 2r, so a sphere holds π/6 of its particle's cube of
// fluid and the sum of chords measures the fluid's thickness in metres. RGB carries the
// particle's colour weighted by its chord, so the composite takes the thickness-weighted mean
// colour of the fluids along the ray.
const surfThicknessFragment = `
in vec4 Color;
in vec3 EyeCenter;
in float EyeRadius;

out vec4 FragColor;

void main() {
    vec2 p = gl_PointCoord * 2.0 - 1.0;
    float r2 = dot(p, p);
    if (r2 > 1.0) {
        discard;
    }
    float chord = 2.0 * EyeRadius * sqrt(1.0 - r2) * 1.9098593; // 6/π
    FragColor = vec4(Color.rgb * chord, chord);
}
`

// surfQuadVertex draws one triangle covering the viewport from gl_VertexID alone (no
// attributes): the full-screen passes.
const surfQuadVertex = `
out vec2 UV;

void main() {
    vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
    UV = p;
    gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
`

// surfFilterFragment is one direction of the separable bilateral filter of the eye depth
// (Green 2010: a Gaussian in screen space whose weights also fall off with the depth
// difference, so the surface smooths while silhouettes against what lies behind stay sharp;
// van der Laan et al. 2009 §5 discuss it as the alternative to curvature flow). The kernel's
// radius is a world-space length projected at the pixel's depth, so near and far fluid are
// smoothed alike; pixels without fluid (depth 0) take no part and stay empty. A closing sweep
// before the filter fills gaps narrower than the particle spacing. At a reduced resolution
// (SurfaceStyle.FilterScale 2) PixelsPerUnit and MaxRadius are the reduced target's, so the
// kernel keeps its world-space size with a quarter of the pixels, and MaxSamples is 8 instead
// of 16: at the cap, σ = 6 half-resolution pixels sampled every 1.5, four taps a σ, as the
// thickness blur's.
const surfFilterFragment = `
in vec2 UV;

uniform sampler2D Depth;
uniform vec2 Step;           // one texel along the filter's direction
uniform float WorldRadius;   // kernel radius (m)
uniform float PixelsPerUnit; // pixels a unit at depth 1 spans
uniform float DepthFalloff;  // depth difference (m) at which a sample's weight is e^(-1/2)
uniform float GapWidth;      // widest gap closed (m): the particle spacing 2r
uniform int Close;           // 1: the closing sweep instead of a filter sweep
uniform float MaxRadius;     // the kernel's radius cap (pixels of this target)
uniform int MaxSamples;      // taps per side at most; wider kernels space their taps apart

out vec4 FragColor;

const int maxGap = 4;

void main() {
    // Depth is sampled linearly between texels for the spaced taps (a pre-filter against
    // aliasing); the pixel itself and the gap search read whole texels, so a pixel next to
    // fluid never takes a sliver of its depth.
    ivec2 px = ivec2(gl_FragCoord.xy);
    float d = texelFetch(Depth, px, 0).r;
    if (Close == 1) {
        // The closing sweep: an empty pixel next to fluid (one of its four neighbours), between
        // fluid of about one depth at most maxGap pixels and less than the particle spacing
        // apart along a row, a column or a diagonal (a regular lattice seen along its rows
        // shows such channels through a block of fluid; the fluid has none), takes the depth
        // interpolated between the two. Pixels with fluid leave after one read, pixels away
        // from fluid after five.
        if (d > 0.0) {
            FragColor = vec4(d, 0.0, 0.0, 1.0);
            return;
        }
        bool near = texelFetch(Depth, px + ivec2(1, 0), 0).r > 0.0 ||
            texelFetch(Depth, px - ivec2(1, 0), 0).r > 0.0 ||
            texelFetch(Depth, px + ivec2(0, 1), 0).r > 0.0 ||
            texelFetch(Depth, px - ivec2(0, 1), 0).r > 0.0;
        if (near) {
            ivec2 dirs[4] = ivec2[4](ivec2(1, 0), ivec2(0, 1), ivec2(1, 1), ivec2(1, -1));
            for (int k = 0; k < 4; k++) {
                float dl = 0.0, dr = 0.0;
                int il = 0, ir = 0;
                for (int i = 1; i <= maxGap; i++) {
                    if (dl <= 0.0) {
                        dl = texelFetch(Depth, px - i * dirs[k], 0).r;
                        il = i;
                    }
                    if (dr <= 0.0) {
                        dr = texelFetch(Depth, px + i * dirs[k], 0).r;
                        ir = i;
                    }
                    if (dl > 0.0 && dr > 0.0) {
                        break;
                    }
                }
                if (dl > 0.0 && dr > 0.0 && abs(dl - dr) < DepthFalloff &&
                    float(il + ir) <= GapWidth * PixelsPerUnit / max(dl, dr)) {
                    d = (dl * float(ir) + dr * float(il)) / float(il + ir);
                    break;
                }
            }
        }
        FragColor = vec4(max(d, 0.0), 0.0, 0.0, 1.0);
        return;
    }
    if (d <= 0.0) {
        FragColor = vec4(0.0);
        return;
    }
    float radius = min(WorldRadius * PixelsPerUnit / d, MaxRadius);
    float sigma = max(radius / 2.0, 0.5);
    int taps = min(int(ceil(radius)), MaxSamples);
    float spacing = max(radius / float(taps), 1.0);
    float sum = 0.0;
    float wsum = 0.0;
    for (int i = -taps; i <= taps; i++) {
        float o = float(i) * spacing;
        float s = texture(Depth, UV + o * Step).r;
        if (s <= 0.0) {
            continue;
        }
        float x = o / sigma;
        float dz = (s - d) / DepthFalloff;
        float w = exp(-0.5 * (x * x + dz * dz));
        sum += s * w;
        wsum += w;
    }
    FragColor = vec4(sum / wsum, 0.0, 0.0, 1.0);
}
`

// surfBlurFragment is one direction of a separable Gaussian blur of the thickness (Green
// 2010 blurs the thickness too): summed chords of spheres on a lattice seen along its rows
// vary from one sphere's full chord to nothing between two, a pattern of the particles, not of
// the fluid. The radius is the depth filter's, at the filtered depth at the pixel (so the gaps
// the depth filter closed receive thickness too). Its taps lie up to 3 pixels apart, sampled
// linearly: at the 24-pixel cap σ = 12 pixels, four taps a σ, and the thickness carries no
// edges to keep, so 8 taps a side do what 16 did. With the depth filtered at half resolution
// (SurfaceStyle.FilterScale 2) the thickness is reduced to half resolution too (Down: the mean
// of each 2×2 block), blurred there with the half-resolution filtered depth and the kernel's
// pixel scale and cap halved, and the composite's linear lookup upsamples it: it carries no
// edges to keep.
const surfBlurFragment = `
in vec2 UV;

uniform sampler2D Source;
uniform sampler2D Depth;
uniform vec2 Step;
uniform float WorldRadius;
uniform float PixelsPerUnit;
uniform float MaxRadius;     // the kernel's radius cap (pixels of this target)
uniform int Down;            // 1: reduce the full-resolution thickness to half resolution

out vec4 FragColor;

const int maxSamples = 8;     // per side

void main() {
    if (Down == 1) {
        // At a half-resolution pixel's centre the linear lookup is the mean of the 2×2
        // full-resolution texels it covers.
        FragColor = texture(Source, UV);
        return;
    }
    float d = texelFetch(Depth, ivec2(gl_FragCoord.xy), 0).r;
    vec4 c = texelFetch(Source, ivec2(gl_FragCoord.xy), 0);
    if (d <= 0.0) {
        FragColor = c;
        return;
    }
    float radius = min(WorldRadius * PixelsPerUnit / d, MaxRadius);
    float sigma = max(radius / 2.0, 0.5);
    int taps = min(int(ceil(radius)), maxSamples);
    float spacing = max(radius / float(taps), 1.0);
    vec4 sum = vec4(0.0);
    float wsum = 0.0;
    for (int i = -taps; i <= taps; i++) {
        float o = float(i) * spacing;
        float x = o / sigma;
        float w = exp(-0.5 * x * x);
        sum += texture(Source, UV + o * Step) * w;
        wsum += w;
    }
    FragColor = sum / wsum;
}
`

// surfNormalFunctions rebuild eye positions and normals from the filtered eye depth (van der
// Laan et al. 2009 §6): eyePos inverts the projection at a pixel, side takes the one-sided
// difference towards the neighbour of nearer depth, so a silhouette's neighbour across the edge
// does not bend the normal. The including shader declares UV, Depth, Texel and ProjScale.
const surfNormalFunctions = `
vec3 eyePos(vec2 uv, float d) {
    vec2 ndc = uv * 2.0 - 1.0;
    return vec3(ndc.x * d / ProjScale.x, ndc.y * d / ProjScale.y, -d);
}

// side returns the difference towards the neighbour at offset o, or the one away from it when
// that neighbour is nearer in depth or has no surface.
vec3 side(vec3 p, float d, ivec2 o) {
    ivec2 px = ivec2(gl_FragCoord.xy);
    float dp = texelFetch(Depth, px + o, 0).r;
    float dm = texelFetch(Depth, px - o, 0).r;
    vec2 uo = vec2(o) * Texel;
    vec3 fwd = eyePos(UV + uo, dp) - p;
    vec3 bwd = p - eyePos(UV - uo, dm);
    if (dp <= 0.0) {
        return bwd;
    }
    if (dm <= 0.0) {
        return fwd;
    }
    return abs(dp - d) < abs(d - dm) ? fwd : bwd;
}
`

// surfSolidFragment shades one elastic or elastoplastic body's filtered depth as an opaque
// surface into the scene target: the normal rebuilt from the depth as the fluid's (van der Laan
// et al. 2009 §6), then the impostors' lighting in the body's colour — ambient 0.30, diffuse
// 0.70 and a specular highlight (Blinn–Phong, exponent 40) from the camera-fixed light — with
// no refraction, absorption or reflection, since a solid body hides what lies behind it. It
// writes the window depth of the surface point (clip z / w from the projection's third row:
// z_clip = P22·z + P32, w_clip = −z), so the bodies drawn after it, liquid or solid, are hidden
// behind it where they should be. Pixels without the body are discarded.
const surfSolidFragment = `
in vec2 UV;

uniform sampler2D Depth;
uniform vec2 Texel;      // 1/width, 1/height
uniform vec2 ProjScale;  // Proj[0][0], Proj[1][1]
uniform vec2 DepthCoef;  // Proj[2][2], Proj[3][2]
uniform vec3 LightDir;   // eye space, unit
uniform vec3 BodyColor;

out vec4 FragColor;
` + surfNormalFunctions + `
void main() {
    float d = texelFetch(Depth, ivec2(gl_FragCoord.xy), 0).r;
    if (d <= 0.0) {
        discard;
    }
    vec3 p = eyePos(UV, d);
    vec3 n = normalize(cross(side(p, d, ivec2(1, 0)), side(p, d, ivec2(0, 1))));
    vec3 v = normalize(-p);
    if (dot(n, v) < 0.0) {
        n = -n;
    }
    float diffuse = max(dot(n, LightDir), 0.0);
    vec3 h = normalize(LightDir + v);
    float specular = pow(max(dot(n, h), 0.0), 40.0);
    vec3 c = BodyColor * (0.30 + 0.70 * diffuse) + vec3(0.35 * specular);
    FragColor = vec4(min(c, vec3(1.0)), 1.0);
    gl_FragDepth = 0.5 * (DepthCoef.x * p.z + DepthCoef.y) / d + 0.5;
}
`

// surfCompositeFragment shades the surface over the scene (van der Laan et al. 2009 §6,
// Green 2010): eye positions from the smoothed depth, normals from the cross product of the
// smaller one-sided differences in x and y (so a silhouette's neighbour across the edge does
// not bend the normal), refraction as a lookup of the scene behind offset along the normal in
// proportion to the thickness, Beer–Lambert absorption exp(−σ t) per colour channel with σ
// from the fluid's colour (σ_c = −ln c / AbsorptionDepth: light through AbsorptionDepth metres
// keeps the fraction c of each channel), plus the fluid's own lit colour in proportion to its
// mean opacity 1 − mean(exp(−σ t)) (light scattered towards the eye by thick fluid), Fresnel reflection of a sky gradient (Schlick's approximation, F0 = 0.02 for water)
// and a Blinn–Phong highlight from the camera-fixed light the impostors use.
const surfCompositeFragment = `
in vec2 UV;

uniform sampler2D SceneColor;
uniform sampler2D Depth;
uniform sampler2D Thickness;
uniform vec2 Texel;           // 1/width, 1/height
uniform vec2 ProjScale;       // Proj[0][0], Proj[1][1]
uniform mat3 ViewToWorld;     // rotation from eye to world space
uniform vec3 LightDir;        // eye space, unit
uniform float AbsorptionDepth; // m
uniform float Refraction;     // UV offset per metre of thickness
uniform float ThicknessScale; // metres of fluid per metre of summed chords (1; a 2D world's sheet: planarDepth/2r)
uniform vec3 SkyZenith;
uniform vec3 SkyHorizon;

out vec4 FragColor;

` + surfNormalFunctions + `
void main() {
    vec4 scene = texture(SceneColor, UV);
    float d = texelFetch(Depth, ivec2(gl_FragCoord.xy), 0).r;
    if (d <= 0.0) {
        FragColor = vec4(scene.rgb, 1.0);
        return;
    }
    vec3 p = eyePos(UV, d);
    vec3 n = normalize(cross(side(p, d, ivec2(1, 0)), side(p, d, ivec2(0, 1))));
    vec3 v = normalize(-p);
    if (dot(n, v) < 0.0) {
        n = -n;
    }

    vec4 th = texture(Thickness, UV);
    vec3 col = th.rgb / max(th.a, 1e-6);
    float t = th.a * ThicknessScale;
    vec3 sigma = -log(clamp(col, 0.02, 0.98)) / AbsorptionDepth;
    vec3 T = exp(-sigma * t);

    vec2 uvr = clamp(UV + n.xy * Refraction * t, vec2(0.0), vec2(1.0));
    vec3 behind = texture(SceneColor, uvr).rgb;
    float diffuse = max(dot(n, LightDir), 0.0);
    vec3 body = col * (0.35 + 0.65 * diffuse);
    vec3 transmitted = behind * T + body * (1.0 - (T.r + T.g + T.b) / 3.0);

    vec3 r = reflect(-v, n);
    vec3 rw = ViewToWorld * r;
    vec3 sky = mix(SkyHorizon, SkyZenith, clamp(rw.y, 0.0, 1.0));
    float cosv = max(dot(n, v), 0.0);
    float fresnel = 0.02 + 0.98 * pow(1.0 - cosv, 5.0);

    vec3 h = normalize(LightDir + v);
    float specular = pow(max(dot(n, h), 0.0), 60.0);
    vec3 c = mix(transmitted, sky, fresnel) + vec3(0.5 * specular);
    FragColor = vec4(min(c, vec3(1.0)), 1.0);
}
`

// surfResampleFragment moves the eye depth between the window's resolution and the half
// resolution the filter runs at (SurfaceStyle.FilterScale 2). Down: each half-resolution texel
// takes the mean of its 2×2 full-resolution texels that hold fluid within DepthFalloff of the
// nearest of them (a silhouette's block keeps the front surface instead of a depth between it
// and what lies behind). Up: a joint bilateral upsampling (Kopf, Cohen, Lischinski and
// Uyttendaele 2007, "Joint Bilateral Upsampling", SIGGRAPH), guided by the closed
// full-resolution depth d: a pixel without fluid stays empty, so the silhouette keeps the full
// resolution; a pixel with fluid takes the mean of its four nearest half-resolution texels
// with fluid, weighted bilinearly and by the filter's range Gaussian exp(−(s − d)²/2σ²),
// σ = DepthFalloff. A channel narrower than the 2×2 block between the spheres of a lattice seen
// along its rows, showing fluid further back, was replaced by the surface around it in the
// reduction and takes that surface's depth again (its own depth would leave a streak of
// sphere-cap normals), while a pixel of fluid far behind a silhouette (many σ) keeps the
// texels of its own depth. When every weight underflows, the texel nearest its depth.
const surfResampleFragment = `
uniform sampler2D Source;    // down: the closed depth; up: the filtered half-resolution depth
uniform sampler2D Guide;     // up: the closed full-resolution depth
uniform int Up;
uniform float DepthFalloff;  // m

out vec4 FragColor;

void main() {
    ivec2 px = ivec2(gl_FragCoord.xy);
    ivec2 last = textureSize(Source, 0) - 1;
    if (Up == 0) {
        float s[4];
        float near = 0.0;
        for (int k = 0; k < 4; k++) {
            s[k] = texelFetch(Source, min(2 * px + ivec2(k & 1, k >> 1), last), 0).r;
            if (s[k] > 0.0 && (near <= 0.0 || s[k] < near)) {
                near = s[k];
            }
        }
        float sum = 0.0, n = 0.0;
        for (int k = 0; k < 4; k++) {
            if (s[k] > 0.0 && s[k] - near < DepthFalloff) {
                sum += s[k];
                n += 1.0;
            }
        }
        FragColor = vec4(n > 0.0 ? sum / n : 0.0, 0.0, 0.0, 1.0);
        return;
    }
    float d = texelFetch(Guide, px, 0).r;
    if (d <= 0.0) {
        FragColor = vec4(0.0);
        return;
    }
    // The pixel's centre in half-resolution texel coordinates, between four texel centres.
    vec2 hp = (vec2(px) + 0.5) * 0.5 - 0.5;
    ivec2 i0 = ivec2(floor(hp));
    vec2 f = hp - vec2(i0);
    float sum = 0.0, wsum = 0.0, nearest = d, gap = -1.0;
    for (int k = 0; k < 4; k++) {
        ivec2 o = ivec2(k & 1, k >> 1);
        float s = texelFetch(Source, clamp(i0 + o, ivec2(0), last), 0).r;
        float w = (o.x == 1 ? f.x : 1.0 - f.x) * (o.y == 1 ? f.y : 1.0 - f.y);
        if (s > 0.0) {
            float dz = (s - d) / DepthFalloff;
            w *= exp(-0.5 * dz * dz);
            sum += w * s;
            wsum += w;
        }
        if (s > 0.0 && (gap < 0.0 || abs(s - d) < gap)) {
            nearest = s;
            gap = abs(s - d);
        }
    }
    FragColor = vec4(wsum > 1e-6 ? sum / wsum : nearest, 0.0, 0.0, 1.0);
}
`
