package volumemap

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/par"
)

// tankErrors measures a tank map against the closed forms: the largest |φ − φ_box|/H at
// 2000 random points within 2H of the walls, the largest |V − V_plane|/FullVolume at the
// floor's middle for d ∈ [0, 2H], and the largest angle (rad) between n and the floor's
// normal there.
func tankErrors(m *Map, half physics.Vec3, seed int64) (ephi, evol, eang float64) {
	o := m.Options()
	kr := physics.NewKernel(o.Kernel, o.H)
	rng := rand.New(rand.NewSource(seed))
	for found := 0; found < 2000; {
		var p physics.Vec3
		for d := 0; d < 3; d++ {
			p[d] = (2*rng.Float64() - 1) * (half[d] + 2*o.H)
		}
		exact := -boxSDF(p, half) // inverted: fluid inside
		if !o.Invert {
			exact = -exact
		}
		if math.Abs(exact) > 2*o.H {
			continue
		}
		found++
		phi, _, _, ok := m.At(p)
		if !ok {
			return math.Inf(1), 0, 0
		}
		ephi = max(ephi, math.Abs(phi-exact)/o.H)
	}
	for i := 0; i <= 100; i++ {
		d := 2 * o.H * float64(i) / 100
		p := physics.Vec3{0.0123, -0.0217, -half[2] + d}
		_, v, n, _ := m.At(p)
		evol = max(evol, math.Abs(v-planeVolume(&kr, o.VolumeFactor, d))/m.FullVolume())
		eang = max(eang, math.Acos(min(1, n[2])))
	}
	return
}

// BenchmarkCellSize builds the DamBreakModel tank at several cell sizes and reports the
// accuracy against the closed forms (phi-err/H, V-err/Vfull, n-err-rad) with the build time.
//
//	go test ./physics/volumemap -run '^$' -bench CellSize -benchtime 3x
func BenchmarkCellSize(b *testing.B) {
	vs, ts, o := tank(b)
	half := physics.Vec3{2, 1.5, 0.75}
	for _, c := range []float64{1.0 / 2, 1.0 / 3, 1.0 / 4} {
		o.Cell = c
		b.Run(fmt.Sprintf("H/%.0f", 1/c), func(b *testing.B) {
			var m *Map
			for i := 0; i < b.N; i++ {
				var err error
				if m, err = Build(vs, ts, o, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			ephi, evol, eang := tankErrors(m, half, 1)
			b.ReportMetric(ephi, "phi-err/H")
			b.ReportMetric(evol, "V-err/Vfull")
			b.ReportMetric(eang, "n-err-rad")
		})
	}
}

// BenchmarkBuild times Build on one worker for the DamBreakModel tank, for the reference's
// curved meshes sphere.obj and torus.obj (radius 1 m, 760 and 800 triangles), and for
// sphere.obj subdivided once (3040 triangles), all with H = 0.1 m, r = 0.025 m; then the tank
// on two workers.
//
//	go test ./physics/volumemap -run '^$' -bench Build -benchtime 5x
func BenchmarkBuild(b *testing.B) {
	for _, c := range []struct{ name, file string }{
		{"tank", ""}, {"sphere", "sphere.obj"}, {"torus", "torus.obj"}, {"sphere3040", "sphere.obj"},
	} {
		b.Run(c.name, func(b *testing.B) {
			var vs []physics.Vec3
			var ts [][3]int32
			o := DefaultOptions(0.1, 0.025)
			if c.file == "" {
				vs, ts, o = tank(b)
			} else {
				vs, ts = readOBJ(b, modelsDir+"/"+c.file)
			}
			if c.name == "sphere3040" {
				vs, ts = subdivideSphere(vs, ts, 1)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := Build(vs, ts, o, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	// The tank again on a pool of two workers.
	b.Run("tank-2workers", func(b *testing.B) {
		vs, ts, o := tank(b)
		pool := par.NewPool(2)
		defer pool.Close()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := Build(vs, ts, o, pool); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkAt times one At within 2H of the tank's floor and walls: at random points
// (every call a cache miss on a 4 MB grid) and along a walk of 0.5r steps (neighbouring
// calls share nodes, as for particles sorted in space).
//
//	go test ./physics/volumemap -run '^$' -bench At
func BenchmarkAt(b *testing.B) {
	vs, ts, o := tank(b)
	m, err := Build(vs, ts, o, nil)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewSource(1))
	random := make([]physics.Vec3, 4096)
	for i := range random {
		random[i] = physics.Vec3{(2*rng.Float64() - 1) * 2.2, (2*rng.Float64() - 1) * 1.7, -0.95 + 0.4*rng.Float64()}
	}
	walk := make([]physics.Vec3, 4096)
	for i := range walk {
		walk[i] = physics.Vec3{-1.5 + 0.0125*float64(i%256), -1.4 + 0.0125*float64(i/256), -0.7}
	}
	for _, c := range []struct {
		name string
		pts  []physics.Vec3
	}{{"random", random}, {"walk", walk}} {
		b.Run(c.name, func(b *testing.B) {
			s := 0.0
			for i := 0; i < b.N; i++ {
				phi, v, _, _ := m.At(c.pts[i&4095])
				s += phi + v
			}
			if s == 1 {
				b.Log(s)
			}
		})
	}
}
