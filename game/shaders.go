//go:build g3n && cgo

package game

// The particle impostor program. Each particle is one GL point whose size is its sphere's
// projected diameter; the fragment shader discards outside the disc, rebuilds the sphere's
// eye-space normal from gl_PointCoord, shades it (ambient, diffuse and a small specular from a
// light fixed to the camera) and writes the depth of the sphere's surface, so spheres intersect
// as spheres. g3n's preprocessor prepends "#version 330 core".

const (
	particleProgram  = "sluice_particles"
	particleVertName = "sluice_particles_vertex"
	particleFragName = "sluice_particles_fragment"
)

// The attributes' locations are fixed, the same in every program built on this shader (the
// impostors' and the surface's particle passes), since g3n binds a buffer's attributes once, at
// the locations of the first program that draws it.
const particleVertex = `
layout(location = 0) in vec3 VertexPosition;
layout(location = 1) in vec4 ParticleColor;
layout(location = 2) in float ParticleRadius;

uniform mat4 MV;
uniform mat4 MVP;
uniform float PointScale; // viewport height / (2 tan(fovy/2)): pixels per unit at depth 1

out vec4 Color;
out vec3 EyeCenter;
out float EyeRadius;

void main() {
    vec4 eye = MV * vec4(VertexPosition, 1.0);
    gl_Position = MVP * vec4(VertexPosition, 1.0);
    gl_PointSize = max(1.0, 2.0 * ParticleRadius * PointScale / max(-eye.z, 1e-4));
    Color = ParticleColor;
    EyeCenter = eye.xyz;
    EyeRadius = ParticleRadius;
}
`

const particleFragment = `
in vec4 Color;
in vec3 EyeCenter;
in float EyeRadius;

uniform mat4 Proj;
uniform vec3 LightDir; // eye space, unit

out vec4 FragColor;

void main() {
    vec2 p = gl_PointCoord * 2.0 - 1.0;
    float r2 = dot(p, p);
    if (r2 > 1.0) {
        discard;
    }
    vec3 n = vec3(p.x, -p.y, sqrt(1.0 - r2)); // point coordinates run downwards
    float diffuse = max(dot(n, LightDir), 0.0);
    vec3 h = normalize(LightDir + vec3(0.0, 0.0, 1.0));
    float specular = pow(max(dot(n, h), 0.0), 40.0);
    vec3 c = Color.rgb * (0.30 + 0.70 * diffuse) + vec3(0.35 * specular * Color.a);
    FragColor = vec4(min(c, vec3(1.0)), Color.a);

    vec4 clip = Proj * vec4(EyeCenter + n * EyeRadius, 1.0);
    gl_FragDepth = 0.5 * clip.z / clip.w + 0.5;
}
`
