// Records the states of a running scene for the replay exports (replay.h): at each sample, every body's pose
// and velocities in single precision, every cable's control points, the world's energies and momentum, and
// the contact points of the step.
#include <simpulse/app/replay.h>

namespace simpulse {

void record_sample(const SceneWorld& sw, Recording& rec) {
    rec.body_count = sw.bodies.size();
    rec.times.push_back(sw.world.time());
    for (const BodyId id : sw.bodies) {
        const BodyState s = sw.world.state(id).value();
        const Vec3& p = s.pose.position;
        const Quat& q = s.pose.orientation;
        rec.translations.insert(rec.translations.end(), {static_cast<float>(p.x()), static_cast<float>(p.y()),
                                                         static_cast<float>(p.z())});
        rec.rotations.insert(rec.rotations.end(), {static_cast<float>(q.x()), static_cast<float>(q.y()),
                                                   static_cast<float>(q.z()), static_cast<float>(q.w())});
        for (const Vec3* v : {&s.velocity, &s.angular_velocity})
            for (int k = 0; k < 3; ++k) rec.velocities.push_back(static_cast<float>((*v)[k]));
    }
    const bool first = rec.times.size() == 1;
    for (std::size_t c = 0; c < sw.cables.size(); ++c) {
        const std::vector<Vec3> points = sw.world.cable_points(sw.cables[c]).value();
        if (first) rec.cable_point_counts.push_back(points.size());
        for (const Vec3& p : points)
            rec.cable_points.insert(
                rec.cable_points.end(),
                {static_cast<float>(p.x()), static_cast<float>(p.y()), static_cast<float>(p.z())});
    }
    const Energy energy = sw.world.energy();
    rec.kinetic.push_back(energy.kinetic);
    rec.potential.push_back(energy.potential);
    const Vec3 momentum = sw.world.linear_momentum();
    rec.momentum.insert(rec.momentum.end(), {momentum.x(), momentum.y(), momentum.z()});
    for (const BodyManifold& m : sw.world.contact_manifolds())
        for (int i = 0; i < m.manifold.count; ++i) {
            const ContactPoint& point = m.manifold.points[static_cast<std::size_t>(i)];
            if (point.depth < 0) continue;  // speculative: not touching
            for (int k = 0; k < 3; ++k) rec.contacts.push_back(static_cast<float>(point.position[k]));
            for (int k = 0; k < 3; ++k) rec.contacts.push_back(static_cast<float>(m.manifold.normal[k]));
        }
    rec.contact_offsets.push_back(static_cast<std::uint32_t>(rec.contacts.size() / 6));
}

}  // namespace simpulse
