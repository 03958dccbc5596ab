// Per-pair cost of the narrow phase (narrow_phase.h): the 15-axis box SAT alone, full manifold generation
// through collide() for the pair types of a typical scene, and convex shapes on a triangulated floor and a
// height field. Configurations are resting contacts (the common case inside a step): the upper shape lies on
// the lower one with a random offset, yaw, a tilt up to 0.05 rad and a penetration up to 1 % of its size; 256
// per set, cycled.
//
// Peers, in the same process on the same configurations: Bullet's btBoxBoxDetector (box-box manifold, up to 4
// points, single precision) and libccd's ccdGJKPenetration (depth and normal only, no manifold: a lower bound
// of the work) for cylinder-box.
//
// Run: bench_narrow_phase --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <simpulse/collision/narrow_phase.h>
#include <simpulse/collision/sat.h>
#include <simpulse/collision/support.h>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <vector>

#ifdef SIMPULSE_HAVE_CCD
#include <ccd/ccd.h>
#endif
#ifdef SIMPULSE_HAVE_BULLET
#include <BulletCollision/CollisionDispatch/btBoxBoxDetector.h>
#include <BulletCollision/CollisionShapes/btBoxShape.h>
#endif

namespace {

using namespace simpulse;

constexpr int kConfigs = 256;

struct Config {
    ShapePtr a, b;
    Pose pa, pb;
};

Quat about(const Vec3& axis, double angle) {
    return Quat(Eigen::AngleAxisd(angle, axis.normalized()));
}

// Upper shape resting on the lower one: `top` is the lower shape's top height above its origin, `bottom` the
// upper shape's extent below its origin in its resting orientation `rest`.
std::vector<Config> resting(std::mt19937_64& rng, const ShapePtr& lower, double top, const ShapePtr& upper,
                            double bottom, const Quat& rest, double spread, bool lower_static = false) {
    std::uniform_real_distribution<double> uni(-1, 1), unit(0, 1);
    std::vector<Config> c;
    for (int i = 0; i < kConfigs; ++i) {
        const Quat tilt = about(Vec3(uni(rng), uni(rng), 0), 0.05 * unit(rng));
        const Quat yaw = about(Vec3::UnitZ(), std::numbers::pi * uni(rng));
        const Pose pa = lower_static ? Pose{} : Pose{Vec3(0, 0, -top), Quat::Identity()};
        const Pose pb{Vec3(spread * uni(rng), spread * uni(rng), bottom - 0.01 * bottom * unit(rng)),
                      tilt * yaw * rest};
        c.push_back({lower, upper, pa, pb});
    }
    return c;
}

ShapePtr random_hull(std::mt19937_64& rng, int n) {
    std::normal_distribution<double> g;
    std::vector<Vec3> p;
    // Points on an ellipsoid cut flat at |z| = 0.2: flat top and bottom faces for face-on-face resting.
    for (int i = 0; i < n; ++i) {
        Vec3 q = 0.5 * Vec3(g(rng), g(rng), g(rng)).normalized().cwiseProduct(Vec3(1, 0.8, 0.6));
        q.z() = std::clamp(q.z(), -0.2, 0.2);
        p.push_back(q);
    }
    return make_convex_hull(p);
}

ShapePtr floor_mesh(int n) {
    std::vector<Vec3> v;
    for (int i = 0; i <= n; ++i)
        for (int j = 0; j <= n; ++j) v.emplace_back(j - 0.5 * n, i - 0.5 * n, 0);
    std::vector<std::array<std::uint32_t, 3>> t;
    auto id = [&](int i, int j) { return static_cast<std::uint32_t>(i * (n + 1) + j); };
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            t.push_back({id(i, j), id(i, j + 1), id(i + 1, j + 1)});
            t.push_back({id(i, j), id(i + 1, j + 1), id(i + 1, j)});
        }
    return make_triangle_mesh(std::move(v), std::move(t));
}

struct Sets {
    std::vector<Config> box_box, box_plane, cylinder_plane, cylinder_box, hull_hull, sphere_box, capsule_box,
        cone_box, cylinder_cylinder, box_mesh, cylinder_mesh, box_height_field;
};

const Sets& sets() {
    static const Sets s = [] {
        std::mt19937_64 rng(2026);
        Sets r;
        const ShapePtr ground = make_box(Vec3(2, 2, 0.5)), box = make_box(Vec3(0.5, 0.4, 0.3));
        const ShapePtr cyl = make_cylinder(0.3, 0.4), sphere = make_sphere(0.3),
                       capsule = make_capsule(0.2, 0.4);
        const ShapePtr plane = make_plane(Vec3::UnitZ(), 0);
        const Quat lying = about(Vec3::UnitX(), std::numbers::pi / 2);
        r.box_box = resting(rng, ground, 0.5, box, 0.3, Quat::Identity(), 1.0);
        r.box_plane = resting(rng, plane, 0, box, 0.3, Quat::Identity(), 1.0, true);
        r.cylinder_plane = resting(rng, plane, 0, cyl, 0.4, Quat::Identity(), 1.0, true);
        // Half standing, half lying.
        r.cylinder_box = resting(rng, ground, 0.5, cyl, 0.4, Quat::Identity(), 1.0);
        const auto lying_set = resting(rng, ground, 0.5, cyl, 0.3, lying, 1.0);
        for (int i = 0; i < kConfigs; i += 2)
            r.cylinder_box[static_cast<std::size_t>(i)] = lying_set[static_cast<std::size_t>(i)];
        for (int i = 0; i < kConfigs; ++i) {
            const ShapePtr lower = random_hull(rng, 24), upper = random_hull(rng, 24);
            const ConvexHull& hl = std::get<ConvexHull>(lower->geometry);
            const ConvexHull& hu = std::get<ConvexHull>(upper->geometry);
            const double top = hl.vertices[hull_support_index(hl, Vec3::UnitZ())].z();
            const double bottom = -hu.vertices[hull_support_index(hu, -Vec3::UnitZ())].z();
            auto one = resting(rng, lower, top, upper, bottom, Quat::Identity(), 0.1);
            r.hull_hull.push_back(one[0]);
        }
        r.sphere_box = resting(rng, ground, 0.5, sphere, 0.3, Quat::Identity(), 1.0);
        r.capsule_box =
            resting(rng, ground, 0.5, capsule, 0.2, about(Vec3::UnitY(), std::numbers::pi / 2), 1.0);
        // Half standing on the base, half lying on a generator: turned about x by pi - atan(2h / r), the
        // generator from the rim point (0, -r, -h) to the apex is level, h r / L below the origin.
        const double cone_r = 0.3, cone_h = 0.4, generator = std::hypot(cone_r, 2 * cone_h);
        const ShapePtr cone = make_cone(cone_r, cone_h);
        r.cone_box = resting(rng, ground, 0.5, cone, cone_h, Quat::Identity(), 1.0);
        const auto cone_lying =
            resting(rng, ground, 0.5, cone, cone_h * cone_r / generator,
                    about(Vec3::UnitX(), std::numbers::pi - std::atan2(2 * cone_h, cone_r)), 1.0);
        for (int i = 0; i < kConfigs; i += 2)
            r.cone_box[static_cast<std::size_t>(i)] = cone_lying[static_cast<std::size_t>(i)];
        r.cylinder_cylinder = resting(rng, make_cylinder(0.5, 0.3), 0.3, cyl, 0.4, Quat::Identity(), 0.15);
        const ShapePtr floor = floor_mesh(20);
        r.box_mesh = resting(rng, floor, 0, box, 0.3, Quat::Identity(), 8.0, true);
        r.cylinder_mesh = resting(rng, floor, 0, cyl, 0.3, lying, 8.0, true);
        const ShapePtr field =
            make_height_field(Vec2(-10, -10), Vec2(1, 1), 21, 21, std::vector<double>(441, 0.0));
        r.box_height_field = resting(rng, field, 0, box, 0.3, Quat::Identity(), 8.0, true);
        return r;
    }();
    return s;
}

void run_collide(benchmark::State& state, const std::vector<Config>& configs) {
    std::vector<Manifold> out;
    out.reserve(16);
    CollideSettings settings;
    settings.margin = 0.01;
    std::size_t i = 0;
    std::int64_t points = 0;
    for (auto _ : state) {
        const Config& c = configs[i];
        out.clear();
        collide(*c.a, c.pa, *c.b, c.pb, settings, out);
        for (const Manifold& m : out) points += m.count;
        benchmark::DoNotOptimize(out.data());
        i = (i + 1) % configs.size();
    }
    state.counters["points/pair"] =
        benchmark::Counter(static_cast<double>(points) / static_cast<double>(state.iterations()));
}

void BM_SatBoxBox(benchmark::State& state) {
    const auto& configs = sets().box_box;
    std::size_t i = 0;
    for (auto _ : state) {
        const Config& c = configs[i];
        benchmark::DoNotOptimize(
            sat_boxes(std::get<Box>(c.a->geometry), c.pa, std::get<Box>(c.b->geometry), c.pb));
        i = (i + 1) % configs.size();
    }
}
BENCHMARK(BM_SatBoxBox);

#define SIMPULSE_COLLIDE_BENCH(name)                  \
    void BM_Collide_##name(benchmark::State& state) { \
        run_collide(state, sets().name);              \
    }                                                 \
    BENCHMARK(BM_Collide_##name)

SIMPULSE_COLLIDE_BENCH(box_box);
SIMPULSE_COLLIDE_BENCH(box_plane);
SIMPULSE_COLLIDE_BENCH(cylinder_plane);
SIMPULSE_COLLIDE_BENCH(cylinder_box);
SIMPULSE_COLLIDE_BENCH(hull_hull);
SIMPULSE_COLLIDE_BENCH(sphere_box);
SIMPULSE_COLLIDE_BENCH(capsule_box);
SIMPULSE_COLLIDE_BENCH(cone_box);
SIMPULSE_COLLIDE_BENCH(cylinder_cylinder);
SIMPULSE_COLLIDE_BENCH(box_mesh);
SIMPULSE_COLLIDE_BENCH(cylinder_mesh);
SIMPULSE_COLLIDE_BENCH(box_height_field);

#ifdef SIMPULSE_HAVE_BULLET
struct BulletCounter : btDiscreteCollisionDetectorInterface::Result {
    int points = 0;
    void setShapeIdentifiersA(int, int) override {}
    void setShapeIdentifiersB(int, int) override {}
    void addContactPoint(const btVector3&, const btVector3&, btScalar) override { ++points; }
};

btTransform to_bullet(const Pose& p) {
    return btTransform(
        btQuaternion(static_cast<btScalar>(p.orientation.x()), static_cast<btScalar>(p.orientation.y()),
                     static_cast<btScalar>(p.orientation.z()), static_cast<btScalar>(p.orientation.w())),
        btVector3(static_cast<btScalar>(p.position.x()), static_cast<btScalar>(p.position.y()),
                  static_cast<btScalar>(p.position.z())));
}

btVector3 to_bullet(const Vec3& v) {
    return {static_cast<btScalar>(v.x()), static_cast<btScalar>(v.y()), static_cast<btScalar>(v.z())};
}

void BM_Bullet_box_box(benchmark::State& state) {
    const auto& configs = sets().box_box;
    btBoxShape a(to_bullet(std::get<Box>(configs[0].a->geometry).half_extents));
    btBoxShape b(to_bullet(std::get<Box>(configs[0].b->geometry).half_extents));
    a.setMargin(0);
    b.setMargin(0);
    std::vector<btTransform> ta, tb;
    for (const Config& c : configs) ta.push_back(to_bullet(c.pa)), tb.push_back(to_bullet(c.pb));
    btBoxBoxDetector detector(&a, &b);
    std::size_t i = 0;
    std::int64_t points = 0;
    for (auto _ : state) {
        btDiscreteCollisionDetectorInterface::ClosestPointInput input;
        input.m_transformA = ta[i];
        input.m_transformB = tb[i];
        BulletCounter result;
        detector.getClosestPoints(input, result, nullptr);
        points += result.points;
        i = (i + 1) % configs.size();
    }
    state.counters["points/pair"] =
        benchmark::Counter(static_cast<double>(points) / static_cast<double>(state.iterations()));
}
BENCHMARK(BM_Bullet_box_box);
#endif

#ifdef SIMPULSE_HAVE_CCD
struct CcdObject {
    const Shape* shape;
    Pose pose;
};

void ccd_support(const void* obj, const ccd_vec3_t* dir, ccd_vec3_t* out) {
    const auto* o = static_cast<const CcdObject*>(obj);
    const Vec3 d(dir->v[0], dir->v[1], dir->v[2]);
    const Vec3 local = o->pose.inverse_rotate(d);
    Vec3 s;
    if (o->shape->type() == ShapeType::box) {
        const Vec3& h = std::get<Box>(o->shape->geometry).half_extents;
        s = Vec3(local.x() >= 0 ? h.x() : -h.x(), local.y() >= 0 ? h.y() : -h.y(),
                 local.z() >= 0 ? h.z() : -h.z());
    } else {
        const Cylinder& c = std::get<Cylinder>(o->shape->geometry);
        const double rxy = std::hypot(local.x(), local.y());
        s = Vec3(rxy > 0 ? c.radius * local.x() / rxy : 0, rxy > 0 ? c.radius * local.y() / rxy : 0,
                 local.z() >= 0 ? c.half_height : -c.half_height);
    }
    const Vec3 w = o->pose.transform_point(s);
    out->v[0] = w.x();
    out->v[1] = w.y();
    out->v[2] = w.z();
}

void ccd_center(const void* obj, ccd_vec3_t* c) {
    const auto* o = static_cast<const CcdObject*>(obj);
    c->v[0] = o->pose.position.x();
    c->v[1] = o->pose.position.y();
    c->v[2] = o->pose.position.z();
}

void BM_Ccd_cylinder_box_penetration(benchmark::State& state) {
    const auto& configs = sets().cylinder_box;
    ccd_t ccd;
    CCD_INIT(&ccd);
    ccd.support1 = ccd_support;
    ccd.support2 = ccd_support;
    ccd.center1 = ccd_center;
    ccd.center2 = ccd_center;
    std::size_t i = 0;
    for (auto _ : state) {
        const CcdObject a{configs[i].a.get(), configs[i].pa}, b{configs[i].b.get(), configs[i].pb};
        ccd_real_t depth;
        ccd_vec3_t dir, pos;
        benchmark::DoNotOptimize(ccdGJKPenetration(&a, &b, &ccd, &depth, &dir, &pos));
        i = (i + 1) % configs.size();
    }
}
BENCHMARK(BM_Ccd_cylinder_box_penetration);
#endif

}  // namespace

BENCHMARK_MAIN();
