// Stage 6 of the step (thesis chapter 2, step 6): positions and orientations from the velocities the solve
// left, with the angular momentum its impulses gave carried exactly through the rotation step
// (carry_angular_impulses, integrator.h).
#include <simpulse/dynamics/integrator.h>
#include <simpulse/dynamics/world.h>

namespace simpulse {

void DynamicsWorld::advance_positions(double dt) {
    carry_angular_impulses(bodies_, spin_before_solve_, dt);
    integrate_positions(bodies_, dt);
}

}  // namespace simpulse
