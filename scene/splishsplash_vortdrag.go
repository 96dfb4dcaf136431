package scene

import (
	"fmt"

	"github.com/sluicephysics/sluice/components"
)

// vortDragMat is what a material's vorticityMethod and dragMethod map to.
type vortDragMat struct {
	micropolar components.Micropolar
	airDrag    float64
}

// vortDrag maps a material's vorticityMethod and dragMethod (docs/splishsplash.md):
//   - vorticityMethod 1, "Bender et al. 2017" {vorticity, viscosityOmega, inertiaInverse}: the
//     micropolar model (physics/micropolar), micropolar.vorticity = vorticity,
//     inertiaInverse = inertiaInverse, omegaSmoothing = viscosityOmega·inertiaInverse (the
//     reference's per-step XSPH fraction of ω); absent keys take the reference's defaults
//     (0.01, 0.1, 0.5). Other vorticity methods (vorticity confinement, Liu et al. 2021) fail.
//   - dragMethod 2, "Gissler et al. 2017" {drag}: airDrag = drag (the same factor on the same
//     model, physics/airdrag; default 0.01). dragMethod 1 (Macklin et al. 2014, a drag
//     proportional to 1 − ρ/ρ0 with a coefficient of another meaning) becomes Gissler's drag
//     with factor 1, the physical drag, with a warning.
func (im *importer) vortDrag(mo obj, mp, id string) error {
	var vd vortDragMat
	vm, dm := 0.0, 0.0
	if err := im.takeNum(mo, mp, "vorticityMethod", &vm); err != nil {
		return err
	}
	if err := im.takeNum(mo, mp, "dragMethod", &dm); err != nil {
		return err
	}
	block := func(name string) (obj, string, bool, error) {
		bp := mp + "." + name
		v, ok := take(mo, name)
		if !ok {
			return mo, mp, false, nil // old scene files put the method's keys in the material
		}
		o, isObj := v.(obj)
		if !isObj {
			return nil, bp, false, fmt.Errorf("%s: expected an object", bp)
		}
		return o, bp, true, nil
	}
	switch vm {
	case 0:
	case 1:
		bo, bp, inBlock, err := block("Bender et al. 2017")
		if err != nil {
			return err
		}
		nut, zeta, inv := 0.01, 0.1, 0.5
		for _, kv := range []struct {
			k string
			d *float64
		}{{"vorticity", &nut}, {"viscosityOmega", &zeta}, {"inertiaInverse", &inv}} {
			if err := im.takeNum(bo, bp, kv.k, kv.d); err != nil {
				return err
			}
		}
		if nut < 0 || nut > 10 {
			return fmt.Errorf("%s.vorticity: %g m²/s is outside [0, 10]", bp, nut)
		}
		if inv < 0 || zeta < 0 || zeta*inv > 1 {
			return fmt.Errorf("%s: viscosityOmega·inertiaInverse = %g·%g must lie in [0, 1] (the fraction of ω smoothed per step)", bp, zeta, inv)
		}
		vd.micropolar = components.Micropolar{Vorticity: nut, InertiaInverse: inv, OmegaSmoothing: zeta * inv}
		if inBlock {
			im.leftovers(bo, bp)
		}
	default:
		return &UnsupportedError{mp + ".vorticityMethod", fmt.Sprintf("%g: of the reference's vorticity methods sluice has only the micropolar model of Bender et al. 2017 (method 1)", vm)}
	}
	switch dm {
	case 0:
	case 1:
		bo, bp, inBlock, err := block("Macklin et al. 2014")
		if err != nil {
			return err
		}
		c := 0.01
		if err := im.takeNum(bo, bp, "drag", &c); err != nil {
			return err
		}
		im.warn(mp+".dragMethod", "1 (Macklin et al. 2014, coefficient %g): sluice has the air drag of Gissler et al. 2017 (method 2); it is used with factor 1, the physical drag of water droplets in still air", c)
		vd.airDrag = 1
		if inBlock {
			im.leftovers(bo, bp)
		}
	case 2:
		bo, bp, inBlock, err := block("Gissler et al. 2017")
		if err != nil {
			return err
		}
		c := 0.01
		if err := im.takeNum(bo, bp, "drag", &c); err != nil {
			return err
		}
		if c < 0 || c > 1000 {
			return fmt.Errorf("%s.drag: %g is outside [0, 1000]", bp, c)
		}
		vd.airDrag = c
		if inBlock {
			im.leftovers(bo, bp)
		}
	default:
		return &UnsupportedError{mp + ".dragMethod", fmt.Sprintf("%g is not a drag method of the reference (0–2)", dm)}
	}
	if vd != (vortDragMat{}) {
		im.vd[id] = vd
	}
	return nil
}

// applyVortDrag sets the micropolar and air drag parameters of the material of the last
// bodyMaterial call on m.
func (im *importer) applyVortDrag(m *components.Material) {
	if vd, ok := im.vd[im.lastID]; ok {
		m.Micropolar, m.AirDrag = vd.micropolar, vd.airDrag
	}
}
