// Prisms in scenes (SEEDS.md section 5): bad polygons are refused with exit 2 naming the boundary and point;
// scenes/u_cup.json keeps the boxes dropped into the cup's cavity; scenes/ring_trap.json keeps the block
// inside the ring's hole while the ring rolls (ring and block share a plane: the seed's SAT path).
#include <simpulse/app/run.h>
#include <simpulse/collision/prism_contacts.h>

#include "engine_test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace simpulse::test {
namespace {

std::string prism_scene(const std::string& boundaries) {
    return R"({"bodies": [{"name": "p", "shape": {"type": "prism", "thickness": 0.2, "boundaries": )" +
           boundaries + "}}]}";
}

TEST(PrismScenes, BadPolygonsExitWithTwoNamingBoundaryAndPoint) {
    const auto dir = test_dir();
    struct Case {
        const char* boundaries;
        const char* message;
    };
    const Case cases[] = {
        {"[[[0, 0], [2, 0], [0, 1], [1, 2]]]", "boundary 0 point 1"},               // bow tie
        {"[[[0, 0], [0, 1], [1, 1], [1, 0]]]", "boundary 0 (outer) is clockwise"},  // wrong orientation
        {"[[[0, 0], [1, 0], [2, 0]]]", "boundary 0 has zero area"},
        {"[[[0, 0], [2, 0], [2, 2], [0, 2]], [[3, 3], [3, 4], [4, 4], [4, 3]]]", "boundary 1 point 0"},
        {"[[[0, 0], [2, 0], [2, 2], [0, 2]], [[1, 1], [1, 3], [1.5, 1]]]", "boundary 1 point"},
        {"[[[0, 0], [1, 0]]]", "/boundaries/0: expected a boundary of at least 3 points"},
    };
    for (const Case& c : cases) {
        write_file(dir / "bad.json", prism_scene(c.boundaries));
        const CliResult r = run_cli({"validate", "bad.json"}, dir);
        EXPECT_EQ(r.exit_code, 2) << c.boundaries << " stderr: " << r.err;
        EXPECT_NE(r.err.find(c.message), std::string::npos) << c.boundaries << " stderr: " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
    write_file(dir / "ok.json",
               prism_scene("[[[0, 0], [2, 0], [2, 2], [0, 2]], [[0.5, 0.5], [0.5, 1], [1, 1]]]"));
    EXPECT_EQ(run_cli({"validate", "ok.json"}, dir).exit_code, 0);
}

struct SceneRun {
    SceneDesc scene;
    SceneWorld built;
    std::size_t index(const std::string& name) const {
        for (std::size_t i = 0; i < scene.bodies.size(); ++i)
            if (scene.bodies[i].name == name) return i;
        ADD_FAILURE() << "no body " << name;
        return 0;
    }
    BodyState state(const std::string& name) const {
        return built.world.state(built.bodies[index(name)]).value();
    }
    const Prism& prism(const std::string& name) const {
        return std::get<Prism>(scene.bodies[index(name)].desc.shape->geometry);
    }
};

template <class After>
SceneRun run_scene(const std::string& file, After&& after_step) {
    Result<SceneDesc> scene = load_scene(repo_path("scenes/" + file));
    EXPECT_TRUE(scene.ok()) << scene.error().message;
    Result<SceneWorld> built = build_world(scene.value());
    EXPECT_TRUE(built.ok()) << built.error().message;
    SceneRun run{std::move(scene).value(), std::move(built).value()};
    step_scene_world(file, run.scene, run.built, [&] { after_step(run); });
    return run;
}

// The cup's cavity is x in [-0.4, 0.4], z in [0.1, 0.6], y in [-0.3, 0.3] (world); a 0.2 m box resting in it
// has its centre at least 0.1 m (its half size) inside those bounds, less 1 cm for the contact margin and the
// boxes leaning on each other.
TEST(PrismScenes, UCupKeepsTheBlocksDroppedIntoItsCavity) {
    const SceneRun run = run_scene("u_cup.json", [](const SceneRun&) {});
    for (const char* name : {"block0", "block1", "block2"}) {
        const BodyState s = run.state(name);
        const Vec3 p = s.pose.position;
        EXPECT_GT(p.x(), -0.4 + 0.09) << name << " at " << p.transpose();
        EXPECT_LT(p.x(), 0.4 - 0.09) << name << " at " << p.transpose();
        EXPECT_GT(p.z(), 0.1 + 0.09) << name << " at " << p.transpose();
        EXPECT_LT(p.z(), 0.6) << name << " at " << p.transpose();
        EXPECT_LT(std::abs(p.y()), 0.3) << name << " at " << p.transpose();
        EXPECT_LT(s.velocity.norm(), 0.05) << name << " still moving at " << s.velocity.norm() << " m/s";
    }
}

// The block's centre stays within the hole (radius 0.33 m, less the block's inscribed half size 0.06 m, plus
// 5 mm for penetration and margin) at every step while the ring rolls at least 1.5 m along x, and the block's
// 0.3 m slab stays within the ring's 0.4 m one (|dy| <= 0.05 m). The pair stays in a shared plane, so its
// contacts come from the seed's SAT at every step (collide_prisms_in_plane never hands the pair back).
TEST(PrismScenes, RingKeepsTheBlockInItsHoleWhileItRolls) {
    double worst = 0, worst_y = 0;
    int in_plane_contacts = 0, handed_back = 0;
    std::vector<Manifold> manifolds;
    const SceneRun run = run_scene("ring_trap.json", [&](const SceneRun& r) {
        const BodyState ring = r.state("ring"), block = r.state("block");
        const Vec3 d = block.pose.position - ring.pose.position;
        worst = std::max(worst, Vec2(d.x(), d.z()).norm());
        worst_y = std::max(worst_y, std::abs(d.y()));
        manifolds.clear();
        const int n = collide_prisms_in_plane(r.prism("ring"), ring.pose, r.prism("block"), block.pose,
                                              CollideSettings{0.002}, manifolds);
        handed_back += n < 0;
        in_plane_contacts += n > 0;
    });
    EXPECT_EQ(handed_back, 0);
    EXPECT_GT(in_plane_contacts, 100) << "the block hardly touched the ring";
    EXPECT_LT(worst, 0.33 - 0.06 + 0.005) << "block left the hole: centre distance " << worst;
    EXPECT_LE(worst_y, 0.05) << "block left the ring's plane: |dy| " << worst_y;
    EXPECT_GT(run.state("ring").pose.position.x(), 1.5) << "the ring did not roll";
}

}  // namespace
}  // namespace simpulse::test
