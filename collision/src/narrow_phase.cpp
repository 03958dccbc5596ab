// Narrow-phase dispatch: a constant table over (ShapeType, ShapeType) holding the algorithm of every
// unordered pair. Only the upper triangle (type A <= type B) has algorithms; the other order runs the same
// algorithm with the shapes swapped and flips the result, so swapping A and B flips the normal and keeps
// depths, points and ids bit for bit. Pairs of one type are put in a canonical order by their poses for the
// same reason.
//
// Algorithms: closed forms for sphere pairs and capsule-capsule (convex_pairs.h), SAT for box/hull pairs
// (sat.h), reference-face clipping of the supporting face on GJK/EPA for capsules, cylinders and cones
// against boxes and hulls (supporting_face.h), axis rotation on GJK/EPA for the other convex pairs
// (axis_rotation.h), candidate points against planes (plane_contacts.h), per-child recursion for compounds,
// per-triangle contacts with internal-edge handling for meshes and height fields (mesh_contacts.h), prisms as
// the compound of their convex parts except two prisms in a shared plane (prism_contacts.h).
// Static-only pairs (plane, mesh, height field against each other) never reach the narrow phase: the broad
// phase skips them, and the table answers 0.
#include <simpulse/collision/axis_rotation.h>
#include <simpulse/collision/bvh.h>
#include <simpulse/collision/convex_pairs.h>
#include <simpulse/collision/cylinder_terrain.h>
#include <simpulse/collision/mesh_contacts.h>
#include <simpulse/collision/narrow_phase.h>
#include <simpulse/collision/plane_contacts.h>
#include <simpulse/collision/prism_contacts.h>
#include <simpulse/collision/sat.h>
#include <simpulse/collision/supporting_face.h>

#include <array>
#include <utility>

namespace simpulse {
namespace {

using PairFn = int (*)(const Shape& a, const Pose& pose_a, const Shape& b, const Pose& pose_b,
                       const CollideSettings& settings, std::vector<Manifold>& out);

// Adapts a one-manifold algorithm to the appending interface.
// Ordered dispatch without the touching slack (collide() adds it once; compounds recurse through this).
int dispatch(const Shape& a, const Pose& pose_a, const Shape& b, const Pose& pose_b,
             const CollideSettings& settings, std::vector<Manifold>& out);

template <class Fn>
int append_one(std::vector<Manifold>& out, Fn&& fn) {
    Manifold m;
    if (!fn(m)) return 0;
    out.push_back(m);
    return 1;
}

int static_pair(const Shape&, const Pose&, const Shape&, const Pose&, const CollideSettings&,
                std::vector<Manifold>&) {
    // Plane, mesh and height field are static-only: the broad phase never pairs two of them.
    return 0;
}

int sphere_sphere(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb, const CollideSettings& s,
                  std::vector<Manifold>& out) {
    return append_one(out, [&](Manifold& m) {
        return collide_sphere_sphere(std::get<Sphere>(a.geometry), pa, std::get<Sphere>(b.geometry), pb, s,
                                     m);
    });
}
int sphere_box(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb, const CollideSettings& s,
               std::vector<Manifold>& out) {
    return append_one(out, [&](Manifold& m) {
        return collide_sphere_box(std::get<Sphere>(a.geometry), pa, std::get<Box>(b.geometry), pb, s, m);
    });
}
int sphere_capsule(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb, const CollideSettings& s,
                   std::vector<Manifold>& out) {
    return append_one(out, [&](Manifold& m) {
        return collide_sphere_capsule(std::get<Sphere>(a.geometry), pa, std::get<Capsule>(b.geometry), pb, s,
                                      m);
    });
}
int sphere_cylinder(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb, const CollideSettings& s,
                    std::vector<Manifold>& out) {
    return append_one(out, [&](Manifold& m) {
        return collide_sphere_cylinder(std::get<Sphere>(a.geometry), pa, std::get<Cylinder>(b.geometry), pb,
                                       s, m);
    });
}
int sphere_cone(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb, const CollideSettings& s,
                std::vector<Manifold>& out) {
    return append_one(out, [&](Manifold& m) {
        return collide_sphere_cone(std::get<Sphere>(a.geometry), pa, std::get<Cone>(b.geometry), pb, s, m);
    });
}
int sphere_hull(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb, const CollideSettings& s,
                std::vector<Manifold>& out) {
    return append_one(out, [&](Manifold& m) { return collide_sphere_hull(a, pa, b, pb, s, m); });
}
int capsule_capsule(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb, const CollideSettings& s,
                    std::vector<Manifold>& out) {
    return append_one(out, [&](Manifold& m) {
        return collide_capsule_capsule(std::get<Capsule>(a.geometry), pa, std::get<Capsule>(b.geometry), pb,
                                       s, m);
    });
}
int box_box(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb, const CollideSettings& s,
            std::vector<Manifold>& out) {
    return append_one(out, [&](Manifold& m) {
        return collide_boxes(std::get<Box>(a.geometry), pa, std::get<Box>(b.geometry), pb, s, m);
    });
}
int box_hull(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb, const CollideSettings& s,
             std::vector<Manifold>& out) {
    const BoxPolyhedron box = box_polyhedron(std::get<Box>(a.geometry));
    return append_one(out, [&](Manifold& m) {
        return collide_polyhedra(box.view(), pa, polyhedron_view(std::get<ConvexHull>(b.geometry)), pb, s, m);
    });
}
int hull_hull(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb, const CollideSettings& s,
              std::vector<Manifold>& out) {
    return append_one(out, [&](Manifold& m) {
        return collide_polyhedra(polyhedron_view(std::get<ConvexHull>(a.geometry)), pa,
                                 polyhedron_view(std::get<ConvexHull>(b.geometry)), pb, s, m);
    });
}
int convex_convex(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb, const CollideSettings& s,
                  std::vector<Manifold>& out) {
    return append_one(out, [&](Manifold& m) { return collide_convex(a, pa, b, pb, s, m); });
}
int round_polyhedron(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb, const CollideSettings& s,
                     std::vector<Manifold>& out) {
    return append_one(out, [&](Manifold& m) { return collide_round_polyhedron(a, pa, b, pb, s, m); });
}
int convex_plane(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb, const CollideSettings& s,
                 std::vector<Manifold>& out) {
    return append_one(
        out, [&](Manifold& m) { return collide_convex_plane(a, pa, std::get<Plane>(b.geometry), pb, s, m); });
}
int convex_mesh(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb, const CollideSettings& s,
                std::vector<Manifold>& out) {
    return collide_convex_mesh(a, pa, std::get<TriangleMesh>(b.geometry), pb, s, out);
}
int convex_height_field(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                        const CollideSettings& s, std::vector<Manifold>& out) {
    return collide_convex_height_field(a, pa, std::get<HeightField>(b.geometry), pb, s, out);
}
// The seam for the analytic cylinder-terrain algorithm (Strashnov & Torgashev 2020).
int cylinder_height_field(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                          const CollideSettings& s, std::vector<Manifold>& out) {
    // The analytic algorithm (cylinder_terrain.h); collide_cylinder_height_field keeps the generic path for
    // cylinders, which the benchmark compares against.
    return collide_cylinder_terrain(std::get<Cylinder>(a.geometry), pa, std::get<HeightField>(b.geometry), pb,
                                    s, out);
}

// Compound as B: the children whose bounds overlap A's box (compound BVH) against A, tagged with the child
// index. The recursion goes through dispatch(), so every child pair gets its own algorithm, order and flip.
int any_compound(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb, const CollideSettings& s,
                 std::vector<Manifold>& out) {
    const Compound& c = std::get<Compound>(b.geometry);
    const Aabb box = compute_aabb(a, pb.inverse() * pa).inflated(s.margin);
    int added = 0;
    bvh_query(c.bvh, box, [&](std::uint32_t i) {
        const std::size_t first = out.size();
        added += dispatch(a, pa, *c.children[i].shape, pb * c.children[i].pose, s, out);
        for (std::size_t k = first; k < out.size(); ++k) out[k].sub_b = i;
    });
    return added;
}
// Compound as A (against a compound, mesh or height field, whose type index is not smaller): each child near
// B against B; against a compound the recursion then visits B's children.
int compound_any(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb, const CollideSettings& s,
                 std::vector<Manifold>& out) {
    const Compound& c = std::get<Compound>(a.geometry);
    const Aabb box = compute_aabb(b, pa.inverse() * pb).inflated(s.margin);
    int added = 0;
    bvh_query(c.bvh, box, [&](std::uint32_t i) {
        const std::size_t first = out.size();
        added += dispatch(*c.children[i].shape, pa * c.children[i].pose, b, pb, s, out);
        for (std::size_t k = first; k < out.size(); ++k) out[k].sub_a = i;
    });
    return added;
}

// Prism as B: its extruded convex parts, a compound (dispatch picks the compound's algorithm for A's type).
int any_prism(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb, const CollideSettings& s,
              std::vector<Manifold>& out) {
    return dispatch(a, pa, *std::get<Prism>(b.geometry).hulls, pb, s, out);
}
// Two prisms: in a shared plane the seed's SAT with one polygon whole (prism_contacts.h), else their parts.
int prism_prism(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb, const CollideSettings& s,
                std::vector<Manifold>& out) {
    const Prism &pa_ = std::get<Prism>(a.geometry), &pb_ = std::get<Prism>(b.geometry);
    const int n = collide_prisms_in_plane(pa_, pa, pb_, pb, s, out);
    if (n >= 0) return n;
    return dispatch(*pa_.hulls, pa, *pb_.hulls, pb, s, out);
}

constexpr std::array<std::array<PairFn, kShapeTypeCount>, kShapeTypeCount> make_table() {
    using T = ShapeType;
    std::array<std::array<PairFn, kShapeTypeCount>, kShapeTypeCount> t{};
    auto set = [&](T a, T b, PairFn f) { t[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)] = f; };
    constexpr T convex[] = {T::sphere, T::box, T::capsule, T::cylinder, T::cone, T::convex_hull};
    // General convex pairs first; the exact special pairs below override them.
    for (T a : convex)
        for (T b : convex)
            if (a <= b) set(a, b, convex_convex);
    set(T::sphere, T::sphere, sphere_sphere);
    set(T::sphere, T::box, sphere_box);
    set(T::sphere, T::capsule, sphere_capsule);
    set(T::sphere, T::cylinder, sphere_cylinder);
    set(T::sphere, T::cone, sphere_cone);
    set(T::sphere, T::convex_hull, sphere_hull);
    set(T::capsule, T::capsule, capsule_capsule);
    set(T::box, T::box, box_box);
    set(T::box, T::convex_hull, box_hull);
    set(T::convex_hull, T::convex_hull, hull_hull);
    set(T::box, T::capsule, round_polyhedron);
    set(T::box, T::cylinder, round_polyhedron);
    set(T::capsule, T::convex_hull, round_polyhedron);
    set(T::cylinder, T::convex_hull, round_polyhedron);
    set(T::box, T::cone, round_polyhedron);
    set(T::cone, T::convex_hull, round_polyhedron);
    for (T a : convex) {
        set(a, T::plane, convex_plane);
        set(a, T::compound, any_compound);
        set(a, T::triangle_mesh, convex_mesh);
        set(a, T::height_field, a == T::cylinder ? cylinder_height_field : convex_height_field);
    }
    set(T::plane, T::compound, any_compound);
    set(T::compound, T::compound, compound_any);
    set(T::compound, T::triangle_mesh, compound_any);
    set(T::compound, T::height_field, compound_any);
    for (std::size_t a = 0; a < static_cast<std::size_t>(T::prism); ++a)
        set(static_cast<T>(a), T::prism, any_prism);
    set(T::prism, T::prism, prism_prism);
    constexpr T statics[] = {T::plane, T::triangle_mesh, T::height_field};
    for (T a : statics)
        for (T b : statics)
            if (a <= b) set(a, b, static_pair);
    return t;
}

constexpr auto kTable = make_table();

// Every entry of the upper triangle is filled: checked at compile time.
constexpr bool table_complete() {
    for (std::size_t a = 0; a < kShapeTypeCount; ++a)
        for (std::size_t b = a; b < kShapeTypeCount; ++b)
            if (kTable[a][b] == nullptr) return false;
    return true;
}
static_assert(table_complete(), "every unordered pair of shape types needs an algorithm");

// Canonical order of two shapes of the same type: lexicographic on the pose (position, then orientation). Any
// total order works; this one depends on the input only, so results are identical run to run.
bool pose_less(const Pose& a, const Pose& b) {
    for (int i = 0; i < 3; ++i)
        if (a.position[i] != b.position[i]) return a.position[i] < b.position[i];
    for (int i = 0; i < 4; ++i)
        if (a.orientation.coeffs()[i] != b.orientation.coeffs()[i])
            return a.orientation.coeffs()[i] < b.orientation.coeffs()[i];
    return false;
}

// Touching is a contact even at margin 0, but whether the surfaces of two touching shapes meet at depth
// +1e-17 or -1e-17 is rounding. One picometre of slack keeps exact touching in the output: far below any
// physical length, and above the rounding of coordinates up to ~1e3 m.
constexpr double kTouchingSlack = 1e-12;

int dispatch(const Shape& a, const Pose& pose_a, const Shape& b, const Pose& pose_b,
             const CollideSettings& settings, std::vector<Manifold>& out) {
    const auto ta = static_cast<std::size_t>(a.type()), tb = static_cast<std::size_t>(b.type());
    const bool swap = ta > tb || (ta == tb && pose_less(pose_b, pose_a));
    if (!swap) return kTable[ta][tb](a, pose_a, b, pose_b, settings, out);
    const std::size_t first = out.size();
    const int n = kTable[tb][ta](b, pose_b, a, pose_a, settings, out);
    for (std::size_t k = first; k < out.size(); ++k) {
        out[k].normal = -out[k].normal;
        std::swap(out[k].sub_a, out[k].sub_b);
    }
    return n;
}

}  // namespace

int collide(const Shape& a, const Pose& pose_a, const Shape& b, const Pose& pose_b,
            const CollideSettings& settings, std::vector<Manifold>& out) {
    CollideSettings s = settings;
    s.margin += kTouchingSlack;
    return dispatch(a, pose_a, b, pose_b, s, out);
}

}  // namespace simpulse
