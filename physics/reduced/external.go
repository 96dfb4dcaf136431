package reduced

import "fmt"

// Bodies integrated by their owner. The sluice world couples a domain with its own rigid
// bodies (docs/reduced.md): each step it sets the bodies' poses and velocities from its
// solver (SetBodyState), advances the fluid and the panels without moving the bodies
// (StepFluid), and applies Body.Force as loads in its own rigid step. That is the time
// splitting of §5.3 with the bodies' integration (§5.3.5) handed to the owner.

// SetBodyState sets body b's pose and velocities. The outline must lie inside the domain (the
// panels and their images are built for bodies inside it).
func (d *Domain) SetBodyState(b *Body, s BodyState) error {
	for _, v := range []float64{s.Position.X, s.Position.Y, s.Angle, s.Velocity.X, s.Velocity.Y, s.AngularVelocity} {
		if !finite(v) {
			return fmt.Errorf("reduced: SetBodyState: pose or velocity %v is not finite", v)
		}
	}
	old := b.State()
	b.pos, b.angle, b.vel, b.angVel = s.Position, s.Angle, s.Velocity, s.AngularVelocity
	if err := b.inside(&d.cfg); err != nil {
		b.pos, b.angle, b.vel, b.angVel = old.Position, old.Angle, old.Velocity, old.AngularVelocity
		return err
	}
	return nil
}

// StepFluid advances the reduced fluid by dt (Eq. 5.9), solves the panels against the bodies'
// present motion (§5.3.1–5.3.3), computes the fluid forces on them (Eq. 5.20–5.22, read with
// Body.Force) and feeds the panels' velocity back into the coefficients (§5.3.4). The bodies
// do not move: their owner integrates them.
func (d *Domain) StepFluid(dt float64) error {
	if !finite(dt) || dt <= 0 {
		return fmt.Errorf("reduced: dt = %v s must be finite and > 0", dt)
	}
	t0 := nanotime()
	d.advanceFluid(dt)
	t1 := nanotime()
	d.SolvePanels()
	t2 := nanotime()
	d.applyForces()
	t3 := nanotime()
	d.Feedback()
	t4 := nanotime()
	d.timing.Advect += t1 - t0
	d.timing.Panels += t2 - t1
	d.timing.Bodies += t3 - t2
	d.timing.Feedback += t4 - t3
	d.timing.Steps++
	d.time += dt
	d.step++
	return nil
}

// ClearBodies removes every body (the owner adds its present set again after it changed);
// the reduced coefficients are kept.
func (d *Domain) ClearBodies() {
	d.bodies = nil
	d.cp = coupling{}
	d.fb.ready = false
}
