//go:build g3n && cgo

package game

// The anisotropic particles' depth and thickness passes (aniso.go, Yu and Turk 2013): each
// liquid particle is one GL point covering its ellipsoid's bounding sphere; the fragment
// shader intersects the eye ray through the pixel with the ellipsoid — the sphere impostor
// generalised — and writes the nearest intersection's eye depth (the depth pass) or the
// chord between the two intersections (the thickness pass), as surfDepthFragment and
// surfThicknessFragment do for spheres.

const (
	surfEllipsoidDepthProgram     = "sluice_surface_ellipsoid_depth"
	surfEllipsoidThicknessProgram = "sluice_surface_ellipsoid_thickness"

	surfEllipsoidVertName      = "sluice_surface_ellipsoid_vertex"
	surfEllipsoidDepthFragName = "sluice_surface_ellipsoid_depth_fragment"
	surfEllipsoidThickFragName = "sluice_surface_ellipsoid_thickness_fragment"
)

// surfEllipsoidVertex takes a particle's centre, colour and three semi-axes (world space, m)
// to eye space and hands the fragment shader the rows of the inverse of the axes' matrix
// A = [a0 a1 a2]: the axes are orthogonal, so A⁻¹'s rows are a_k/|a_k|², and u = A⁻¹(x − c)
// takes the ellipsoid to the unit sphere. The point covers the bounding sphere (radius the
// longest semi-axis) projected at its nearest depth. The locations are fixed, the same in both
// programs (g3n binds a buffer's attributes once, at the first program's locations).
const surfEllipsoidVertex = `
layout(location = 0) in vec3 VertexPosition;
layout(location = 1) in vec4 ParticleColor;
layout(location = 3) in vec3 Axis0;
layout(location = 4) in vec3 Axis1;
layout(location = 5) in vec3 Axis2;

uniform mat4 MV;
uniform mat4 MVP;
uniform float PointScale; // pixels per unit at depth 1

out vec4 Color;
flat out vec3 EyeCenter;
flat out vec3 Inv0;
flat out vec3 Inv1;
flat out vec3 Inv2;

void main() {
    vec4 eye = MV * vec4(VertexPosition, 1.0);
    gl_Position = MVP * vec4(VertexPosition, 1.0);
    mat3 R = mat3(MV);
    vec3 a0 = R * Axis0;
    vec3 a1 = R * Axis1;
    vec3 a2 = R * Axis2;
    Inv0 = a0 / dot(a0, a0);
    Inv1 = a1 / dot(a1, a1);
    Inv2 = a2 / dot(a2, a2);
    float bound = sqrt(max(dot(a0, a0), max(dot(a1, a1), dot(a2, a2))));
    gl_PointSize = max(1.0, 2.0 * bound * PointScale / max(-eye.z - bound, 1e-4));
    Color = ParticleColor;
    EyeCenter = eye.xyz;
}
`

// surfEllipsoidRay is the ray–ellipsoid intersection both fragment shaders share: the eye ray
// through the pixel, x = t·dir (dir's z = −1, from the pixel's normalised device coordinates
// and the projection's scales), in the ellipsoid's unit-sphere coordinates u = o + t·d with
// o = −A⁻¹c and d = A⁻¹dir; |u|² = 1 is the quadratic a t² + 2b t + c = 0 with a = d·d,
// b = o·d, c = o·o − 1, discarded when b² − ac < 0 (the ray misses).
const surfEllipsoidRay = `
in vec4 Color;
flat in vec3 EyeCenter;
flat in vec3 Inv0;
flat in vec3 Inv1;
flat in vec3 Inv2;

uniform mat4 Proj;
uniform vec4 Viewport; // x, y, width, height (pixels)

// ray returns the eye ray's direction and, in t0 and t1, its two intersections' parameters.
vec3 ray(out float t0, out float t1) {
    vec2 ndc = (gl_FragCoord.xy - Viewport.xy) / Viewport.zw * 2.0 - 1.0;
    vec3 dir = vec3(ndc.x / Proj[0][0], ndc.y / Proj[1][1], -1.0);
    vec3 o = -vec3(dot(Inv0, EyeCenter), dot(Inv1, EyeCenter), dot(Inv2, EyeCenter));
    vec3 d = vec3(dot(Inv0, dir), dot(Inv1, dir), dot(Inv2, dir));
    float a = dot(d, d);
    float b = dot(o, d);
    float c = dot(o, o) - 1.0;
    float disc = b * b - a * c;
    if (disc < 0.0) {
        discard;
    }
    float s = sqrt(disc);
    t0 = (-b - s) / a;
    t1 = (-b + s) / a;
    return dir;
}
`

// surfEllipsoidDepthFragment writes the eye distance −z of the ellipsoid's front surface and
// the matching window depth (surfDepthFragment's outputs; green keeps the colour's attribute
// active, see there).
const surfEllipsoidDepthFragment = surfEllipsoidRay + `
out vec4 FragColor;

void main() {
    float t0, t1;
    vec3 eye = ray(t0, t1) * t0;
    FragColor = vec4(-eye.z, Color.a, 0.0, 1.0);
    vec4 clip = Proj * vec4(eye, 1.0);
    gl_FragDepth = 0.5 * clip.z / clip.w + 0.5;
}
`

// surfEllipsoidThicknessFragment adds the ellipsoid's chord along the view ray, (t1 − t0)·|dir|,
// scaled by 6/π as surfThicknessFragment's sphere chords are: an ellipsoid keeps its sphere's
// volume (aniso.go), so it holds the same π/6 of its particle's cube of fluid.
const surfEllipsoidThicknessFragment = surfEllipsoidRay + `
out vec4 FragColor;

void main() {
    float t0, t1;
    vec3 dir = ray(t0, t1);
    float chord = (t1 - t0) * length(dir) * 1.9098593; // 6/π
    FragColor = vec4(Color.rgb * chord, chord);
}
`
