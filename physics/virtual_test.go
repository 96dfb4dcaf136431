package physics

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sluicephysics/sluice/physics/par"
)

// TestVirtualTargetsJoinTheLists: a query point's virtual targets (Neighbors.Virtual) are
// searched as if they were target points of the grid: the lists with them equal, pair for
// pair, the lists of a search whose target set holds the same points as grid points; dead
// slots (weight 0) and slots beyond the support are left out; the sums weigh the slots'
// volumes. Checked on 1 and 2 workers, once with no grid points at all (a world whose only
// wall is volume-mapped).
func TestVirtualTargetsJoinTheLists(t *testing.T) {
	const h = 0.1
	rng := rand.New(rand.NewPCG(7, 9))
	pt := func(s float64) Vec3 { return Vec3{s * rng.Float64(), s * rng.Float64(), s * rng.Float64()} }
	for _, nGrid := range []int{300, 0} {
		for _, workers := range []int{1, 2} {
			pool := par.NewPool(workers)
			n := 2*par.BlockSize + 37
			xq := make([]Vec3, n)
			for i := range xq {
				xq[i] = pt(0.5)
			}
			xt := make([]Vec3, nGrid)
			for j := range xt {
				xt[j] = pt(0.5)
			}
			const K = 2
			vx := make([]Vec3, K*n)
			weights := make([]float64, nGrid+K*n)
			for j := range weights {
				weights[j] = 1 + float64(j%13)/8
			}
			for s := range vx {
				i := s / K
				// half the slots near their query point, a few beyond the support, some dead
				d := 0.9 * h * rng.Float64()
				if s%7 == 3 {
					d = 1.2 * h
				}
				vx[s] = Vec3{xq[i][0] + d, xq[i][1], xq[i][2]}
				if s%5 == 1 {
					weights[nGrid+s] = 0
				}
			}
			kr := NewKernel(CubicSpline, h)
			search := func(xt []Vec3, vt *VirtualTargets, w []float64) *Neighbors {
				var gq, gt Grid
				if err := gq.Build(xq, h, pool); err != nil {
					t.Fatal(err)
				}
				if err := gt.Build(xt, h, pool); err != nil {
					t.Fatal(err)
				}
				adj := make([]int32, 27*gq.NumCells())
				gq.Adjacent(&gt, adj, pool)
				nb := &Neighbors{Weights: w, Virtual: vt}
				Search(&gq, xq, &gt, adj, &kr, false, nb, pool)
				return nb
			}
			got := search(xt, &VirtualTargets{K: K, Base: int32(nGrid), X: vx}, weights)
			// the same points as grid points; each slot then lies within the support of every
			// query point near it, so the reference keeps only the pair of the slot's owner
			// and a live slot
			all := append(slices.Clone(xt), vx...)
			ref := search(all, nil, weights)
			live := 0
			for i := range xq {
				js, ws, gs := got.Of(i)
				rj, _, _ := ref.Of(i)
				var want []int32
				for _, j := range rj {
					if int(j) < nGrid || (int(j)-nGrid)/K == i && weights[j] > 0 {
						want = append(want, j)
					}
				}
				gotS := slices.Clone(js)
				slices.Sort(gotS)
				slices.Sort(want)
				if !slices.Equal(gotS, want) {
					t.Fatalf("grid %d, %d workers: point %d: neighbours %v, want %v", nGrid, workers, i, gotS, want)
				}
				sum := 0.0
				for k, j := range js {
					r := Norm(Vec3{xq[i][0] - all[j][0], xq[i][1] - all[j][1], xq[i][2] - all[j][2]})
					if ws[k] != float32(kr.W(r)) || math.Abs(float64(gs[k])-kr.GradFactor(r)) > float32Ulp*math.Abs(kr.GradFactor(r)) {
						t.Fatalf("grid %d: pair (%d,%d): kernel values %g, %g; want %g, %g", nGrid, i, j, ws[k], gs[k], kr.W(r), kr.GradFactor(r))
					}
					sum += weights[j] * float64(ws[k])
					if int(j) >= nGrid {
						live++
					}
				}
				// the search sums in list order too: the same terms in another order differ by
				// round-off only
				const sumTol = 1e-12
				if math.Abs(got.Sum[i]-sum) > sumTol*(1+sum) {
					t.Fatalf("grid %d: point %d: sum %g, want %g", nGrid, i, got.Sum[i], sum)
				}
			}
			if live < n/2 {
				t.Fatalf("grid %d: only %d live virtual pairs of %d query points: the test does not exercise them", nGrid, live, n)
			}
			pool.Close()
		}
	}
}
