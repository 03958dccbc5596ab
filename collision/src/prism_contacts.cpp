// Prism-prism contacts in a shared plane (SEEDS.md section 5; nonconvex-2d-sat.ru.txt): one polygon whole,
// the other as its convex parts (thesis ch. 5 decomposition), each part against the whole polygon by the
// seed's SAT (polygon_sat.cpp), the 2-D contact lifted to the two faces of the slabs' overlap so the solver
// gets a manifold resisting rotation about the in-plane axes.
#include <simpulse/collision/prism_contacts.h>

#include <algorithm>
#include <cmath>

namespace simpulse {

int collide_prisms_in_plane(const Prism& a, const Pose& pose_a, const Prism& b, const Pose& pose_b,
                            const CollideSettings& settings, std::vector<Manifold>& out) {
    const Vec3 za = pose_a.rotate(Vec3::UnitZ()), zb = pose_b.rotate(Vec3::UnitZ());
    const double cz = za.dot(zb);
    if (std::abs(cz) < kPrismPlaneCos) return -1;
    // The polygon with fewer parts stays whole (W); the other is split (S).
    const bool a_whole = a.parts.size() <= b.parts.size();
    const Prism& w = a_whole ? a : b;
    const Prism& s = a_whole ? b : a;
    const Pose& pw = a_whole ? pose_a : pose_b;
    const Pose& ps = a_whole ? pose_b : pose_a;
    const Pose rel = pw.inverse() * ps;  // S's frame in W's frame
    const double dz = rel.position.z();
    const double z_lo = std::max(-w.half_thickness, dz - s.half_thickness);
    const double z_hi = std::min(w.half_thickness, dz + s.half_thickness);
    const double z_overlap = z_hi - z_lo;
    if (z_overlap <= 0) return -1;
    Map2 map;
    const Mat3 r = rel.orientation.toRotationMatrix();
    map.rotation << r(0, 0), r(0, 1), r(1, 0), r(1, 1);  // exact for parallel axes; a reflection for opposite
    map.offset = rel.position.head<2>();
    // W's bounding box in its plane (its vertices) against each part's bounding circle.
    Vec2 lo = w.whole.vertices[0], hi = lo;
    for (const Vec2& v : w.whole.vertices) {
        lo = lo.cwiseMin(v);
        hi = hi.cwiseMax(v);
    }
    const std::size_t first = out.size();
    const double m = settings.margin;
    for (std::size_t i = 0; i < s.parts.size(); ++i) {
        const Vec2 c = map(s.part_centres[i]);
        const double reach = s.part_radii[i] + m;
        if ((c.array() + reach < lo.array()).any() || (c.array() - reach > hi.array()).any()) continue;
        Sat2Contact k;
        const Sat2Outcome o = sat_whole_vs_convex(w.whole, s.parts[i], map, m, k);
        if (o == Sat2Outcome::separated) continue;
        // Deeper in the plane than the slabs overlap: the contact is across the faces, not in the plane.
        if (o == Sat2Outcome::undecided || k.depth >= z_overlap) {
            out.resize(first);
            return -1;
        }
        Manifold mf;
        mf.normal = pw.rotate(Vec3(k.normal.x(), k.normal.y(), 0));
        if (!a_whole) mf.normal = -mf.normal;
        mf.sub_a = a_whole ? 0 : static_cast<std::uint32_t>(i);
        mf.sub_b = a_whole ? static_cast<std::uint32_t>(i) : 0;
        for (int p = 0; p < k.count; ++p)
            for (int side = 0; side < 2; ++side) {
                ContactPoint& cp = mf.points[static_cast<std::size_t>(mf.count++)];
                cp.position = pw.transform_point(Vec3(k.points[p].x(), k.points[p].y(), side ? z_hi : z_lo));
                cp.depth = k.depths[p];
                cp.id = (k.ids[p] << 1) | static_cast<std::uint32_t>(side);
            }
        out.push_back(mf);
    }
    return static_cast<int>(out.size() - first);
}

}  // namespace simpulse
