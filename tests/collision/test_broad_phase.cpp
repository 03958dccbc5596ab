// Tests of the dynamic AABB tree and the broad phase against brute force: the tree's structure and queries
// after random inserts/removes, and the broad phase's pair list (every live non-static-static pair whose fat
// boxes overlap, nothing else, sorted) after many random moves, adds and removes; plus the pair-cache
// semantics (persistence while fat boxes overlap, re-insertion only on leaving the fat box) and determinism.
#include <simpulse/collision/broad_phase.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <stdexcept>
#include <vector>

namespace simpulse {
namespace {

Aabb random_box(std::mt19937_64& rng, double world, double max_half) {
    std::uniform_real_distribution<double> pos(-world, world), half(0.05 * max_half, max_half);
    return Aabb::from_center_half(Vec3(pos(rng), pos(rng), pos(rng)), Vec3(half(rng), half(rng), half(rng)));
}

TEST(DynamicAabbTree, StructureAndQueriesMatchBruteForceUnderChurn) {
    std::mt19937_64 rng(1);
    DynamicAabbTree tree;
    std::vector<std::pair<std::int32_t, Aabb>> live;  // (leaf, box), payload = index into boxes
    std::vector<Aabb> boxes;
    std::vector<std::int32_t> leaf_of;
    std::set<std::int32_t> alive;
    for (int round = 0; round < 40; ++round) {
        for (int k = 0; k < 100; ++k) {
            const auto id = static_cast<std::int32_t>(boxes.size());
            boxes.push_back(random_box(rng, 50, 2));
            leaf_of.push_back(tree.insert(boxes.back(), id));
            alive.insert(id);
        }
        std::uniform_int_distribution<std::size_t> pick(0, alive.size() - 1);
        for (int k = 0; k < 60; ++k) {
            auto it = alive.begin();
            std::advance(it, static_cast<long>(pick(rng) % alive.size()));
            tree.remove(leaf_of[static_cast<std::size_t>(*it)]);
            alive.erase(it);
        }
        const std::string problem = tree.validate();
        ASSERT_TRUE(problem.empty()) << "round " << round << ": " << problem;
    }
    EXPECT_EQ(tree.leaf_count(), static_cast<int>(alive.size()));
    // Balanced enough: the SAH insertion with rotations keeps the height within a few times log2(n).
    EXPECT_LE(tree.height(), 4 * std::log2(double(alive.size()))) << "height " << tree.height();
    int mismatches = 0;
    for (int q = 0; q < 300; ++q) {
        const Aabb query = random_box(rng, 55, 8);
        std::vector<std::int32_t> got, expected;
        tree.query(query, [&](std::int32_t id) { got.push_back(id); });
        for (std::int32_t id : alive)
            if (boxes[static_cast<std::size_t>(id)].overlaps(query)) expected.push_back(id);
        std::sort(got.begin(), got.end());
        mismatches += got != expected;
    }
    EXPECT_EQ(mismatches, 0);
}

TEST(DynamicAabbTree, SortedInsertionStaysShallow) {
    // Boxes inserted in sorted order along a line: the worst case of naive insertion (a list).
    DynamicAabbTree tree;
    for (int i = 0; i < 4096; ++i) tree.insert(Aabb::from_center_half(Vec3(i, 0, 0), Vec3::Constant(0.4)), i);
    EXPECT_TRUE(tree.validate().empty()) << tree.validate();
    EXPECT_LE(tree.height(), 3 * 12) << "height " << tree.height();  // log2(4096) = 12
}

struct Body {
    int proxy = -1;
    Aabb box;
    bool is_static = false;
    std::uint32_t user = 0;
};

// Brute force over the fat boxes the broad phase reports: every live pair, not static-static, that overlaps.
std::vector<BroadPhasePair> brute_pairs(const BroadPhase& bp, const std::vector<Body>& bodies) {
    std::vector<BroadPhasePair> out;
    for (std::size_t i = 0; i < bodies.size(); ++i)
        for (std::size_t j = i + 1; j < bodies.size(); ++j) {
            const Body& x = bodies[i];
            const Body& y = bodies[j];
            if (x.is_static && y.is_static) continue;
            if (!bp.fat_box(x.proxy).overlaps(bp.fat_box(y.proxy))) continue;
            if (std::tie(x.user, x.proxy) < std::tie(y.user, y.proxy)) {
                out.push_back({x.user, y.user, x.proxy, y.proxy});
            } else {
                out.push_back({y.user, x.user, y.proxy, x.proxy});
            }
        }
    std::sort(out.begin(), out.end(), [](const BroadPhasePair& p, const BroadPhasePair& q) {
        return std::tie(p.a, p.b, p.proxy_a, p.proxy_b) < std::tie(q.a, q.b, q.proxy_a, q.proxy_b);
    });
    return out;
}

// Runs a random scene: mostly small moves, some fast movers and teleports, adds and removes; checks the pairs
// after every update. Returns a digest of all pair lists (for the determinism test).
std::vector<BroadPhasePair> run_scene(std::uint64_t seed, int steps, bool check) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> unit(-1, 1), chance(0, 1);
    BroadPhase bp;
    std::vector<Body> bodies;
    std::uint32_t next_user = 1000;
    auto add = [&](bool is_static) {
        Body b;
        b.box = random_box(rng, 20, is_static ? 3 : 1);
        b.is_static = is_static;
        b.user = next_user--;  // descending user ids: sorting by user id differs from proxy order
        b.proxy = bp.add(b.box, b.user, is_static);
        bodies.push_back(b);
    };
    for (int i = 0; i < 300; ++i) add(i % 5 == 0);
    // An infinite plane (static) pairs with every dynamic body.
    {
        constexpr double inf = std::numeric_limits<double>::infinity();
        Body plane;
        plane.box = Aabb{Vec3::Constant(-inf), Vec3::Constant(inf)};
        plane.is_static = true;
        plane.user = 5000;
        plane.proxy = bp.add(plane.box, plane.user, true);
        bodies.push_back(plane);
    }
    std::vector<BroadPhasePair> digest;
    for (int step = 0; step < steps; ++step) {
        for (Body& b : bodies) {
            if (b.is_static) continue;
            const double r = chance(rng);
            Vec3 d = Vec3::Zero();
            if (r < 0.6)
                d = 0.02 * Vec3(unit(rng), unit(rng), unit(rng));  // settling jitter
            else if (r < 0.7)
                d = 1.5 * Vec3(unit(rng), unit(rng), unit(rng));  // fast mover
            else if (r < 0.71)
                d = 20 * Vec3(unit(rng), unit(rng), unit(rng));  // teleport
            b.box.min += d;
            b.box.max += d;
            bp.move(b.proxy, b.box, d);
            if (check) {
                EXPECT_TRUE(bp.fat_box(b.proxy).contains(b.box)) << "fat box lost its body";
            }
        }
        // Churn: remove a few (never the plane), add a few, sometimes move a static body.
        for (int k = 0; k < 3; ++k) {
            const auto i = static_cast<std::size_t>(chance(rng) * static_cast<double>(bodies.size() - 1));
            if (bodies[i].user == 5000) continue;
            bp.remove(bodies[i].proxy);
            bodies.erase(bodies.begin() + static_cast<long>(i));
        }
        for (int k = 0; k < 3; ++k) add(chance(rng) < 0.2);
        if (step % 7 == 0) {
            for (Body& b : bodies)
                if (b.is_static && b.user != 5000) {
                    b.box.min.x() += 0.5, b.box.max.x() += 0.5;
                    bp.move(b.proxy, b.box, Vec3(0.5, 0, 0));
                    break;
                }
        }
        bp.update_pairs();
        if (check) {
            const auto expected = brute_pairs(bp, bodies);
            const auto& got = bp.pairs();
            std::size_t missing = 0, extra = 0;
            std::set<std::tuple<int, int>> g, e;
            for (const auto& p : got) g.insert({p.proxy_a, p.proxy_b});
            for (const auto& p : expected) e.insert({p.proxy_a, p.proxy_b});
            for (const auto& p : e) missing += !g.count(p);
            for (const auto& p : g) extra += !e.count(p);
            EXPECT_EQ(missing, 0u) << "step " << step << ": " << missing << " pairs missing of "
                                   << expected.size();
            EXPECT_EQ(extra, 0u) << "step " << step << ": " << extra << " spurious pairs";
            EXPECT_TRUE(got == expected) << "step " << step << ": order or content differs";
            EXPECT_TRUE(bp.tree(false).validate().empty()) << bp.tree(false).validate();
            EXPECT_TRUE(bp.tree(true).validate().empty()) << bp.tree(true).validate();
            // Tight boxes overlapping imply a pair (fat boxes contain tight ones).
            std::size_t uncovered = 0;
            for (std::size_t i = 0; i < bodies.size(); ++i)
                for (std::size_t j = i + 1; j < bodies.size(); ++j) {
                    const Body& x = bodies[i];
                    const Body& y = bodies[j];
                    if ((x.is_static && y.is_static) || !x.box.overlaps(y.box)) continue;
                    uncovered += !g.count({x.proxy, y.proxy}) && !g.count({y.proxy, x.proxy});
                }
            EXPECT_EQ(uncovered, 0u) << "step " << step << ": overlapping tight boxes without a pair";
        }
        digest.insert(digest.end(), bp.pairs().begin(), bp.pairs().end());
    }
    return digest;
}

TEST(BroadPhase, PairsMatchBruteForceThroughMovesAddsAndRemoves) {
    run_scene(7, 150, true);
}

TEST(BroadPhase, IdenticalInputGivesIdenticalPairs) {
    const auto a = run_scene(11, 60, false);
    const auto b = run_scene(11, 60, false);
    EXPECT_FALSE(a.empty());
    EXPECT_TRUE(a == b);
}

TEST(BroadPhase, PairsPersistWhileFatBoxesOverlapAndDropAfter) {
    BroadPhaseSettings s;
    s.relative_margin = 0;
    s.margin = 0.1;
    s.displacement_multiplier = 0;
    BroadPhase bp(s);
    const Aabb a = Aabb::from_center_half(Vec3(0, 0, 0), Vec3::Constant(0.5));
    Aabb b = Aabb::from_center_half(Vec3(1.0, 0, 0), Vec3::Constant(0.5));  // touching
    const int pa = bp.add(a, 1, false), pb = bp.add(b, 2, false);
    bp.update_pairs();
    ASSERT_EQ(bp.pairs().size(), 1u);
    // b moves 0.05 away: still inside its fat box (margin 0.1), no re-insertion, pair kept although the tight
    // boxes are apart.
    b.min.x() += 0.05, b.max.x() += 0.05;
    EXPECT_FALSE(bp.move(pb, b, Vec3(0.05, 0, 0)));
    bp.update_pairs();
    EXPECT_EQ(bp.pairs().size(), 1u);
    // 0.2 more: b = [0.75, 1.75] leaves its fat box [0.4, 1.6] and is re-inserted with a fresh one,
    // [0.65, 1.85]; a's fat box ends at 0.6, so the pair is dropped.
    b.min.x() += 0.2, b.max.x() += 0.2;
    EXPECT_TRUE(bp.move(pb, b, Vec3(0.2, 0, 0)));
    bp.update_pairs();
    EXPECT_TRUE(bp.pairs().empty());
    EXPECT_EQ(bp.fat_box(pb).min.x(), b.min.x() - 0.1);
    // Static-static pairs never exist, even when overlapping.
    bp.add(a, 3, true);
    bp.add(a, 4, true);
    bp.update_pairs();
    for (const auto& p : bp.pairs()) EXPECT_FALSE(bp.is_static(p.proxy_a) && bp.is_static(p.proxy_b));
    EXPECT_EQ(bp.pairs().size(), 2u);  // a with each static copy
    // A removed proxy's pairs vanish, and its id is only reused after update_pairs.
    bp.remove(pa);
    const int reused_before = bp.add(b, 9, false);
    EXPECT_NE(reused_before, pa);
    bp.update_pairs();
    for (const auto& p : bp.pairs()) EXPECT_TRUE(p.proxy_a != pa && p.proxy_b != pa);
    EXPECT_EQ(bp.add(b, 10, false), pa);
    // Misuse is reported, not absorbed into the tree.
    EXPECT_THROW(bp.add(Aabb{}, 11, false), std::invalid_argument);
    EXPECT_THROW(bp.add(Aabb{Vec3(0, std::nan(""), 0), Vec3::Ones()}, 11, false), std::invalid_argument);
    EXPECT_THROW(bp.move(pb, Aabb{}, Vec3::Zero()), std::invalid_argument);
    bp.remove(pb);
    EXPECT_THROW(bp.move(pb, b, Vec3::Zero()), std::invalid_argument);
    EXPECT_THROW(bp.remove(pb), std::invalid_argument);
}

TEST(BroadPhase, FastMoverStopsAndItsFatBoxShrinks) {
    BroadPhase bp;  // defaults: relative margin 0.1, displacement multiplier 2
    Aabb box = Aabb::from_center_half(Vec3::Zero(), Vec3::Constant(0.5));
    const int p = bp.add(box, 1, false);
    // One fast step: the fat box extends 2 x 3 = 6 ahead in +x.
    box.min.x() += 3, box.max.x() += 3;
    EXPECT_TRUE(bp.move(p, box, Vec3(3, 0, 0)));
    EXPECT_NEAR(bp.fat_box(p).max.x(), 3.5 + 0.05 + 6, 1e-12);
    // It stops: still inside, but the fat box is far larger than a fresh one would be -> shrink.
    EXPECT_TRUE(bp.move(p, box, Vec3::Zero()));
    EXPECT_NEAR(bp.fat_box(p).max.x(), 3.55, 1e-12);
    // Resting: no further re-insertion.
    EXPECT_FALSE(bp.move(p, box, Vec3::Zero()));
}

TEST(BroadPhase, NewMarginFattensTheBoxesPlacedAfterIt) {
    BroadPhase bp;
    Aabb box = Aabb::from_center_half(Vec3::Zero(), Vec3::Constant(0.5));
    const int p = bp.add(box, 1, false);
    EXPECT_NEAR(bp.fat_box(p).max.x(), 0.55, 1e-12);
    bp.set_margin(0.25);
    EXPECT_NEAR(bp.fat_box(p).max.x(), 0.55, 1e-12);  // placed before: unchanged
    const int q = bp.add(box, 2, false);
    EXPECT_NEAR(bp.fat_box(q).max.x(), 0.5 + 0.05 + 0.25, 1e-12);
    box.min.x() += 1, box.max.x() += 1;  // leaves its fat box: re-inserted with the new margin
    EXPECT_TRUE(bp.move(p, box, Vec3::Zero()));
    EXPECT_NEAR(bp.fat_box(p).max.x(), 1.5 + 0.05 + 0.25, 1e-12);
    EXPECT_THROW(bp.set_margin(-0.1), std::invalid_argument);
    EXPECT_THROW(bp.set_margin(std::numeric_limits<double>::quiet_NaN()), std::invalid_argument);
    EXPECT_THROW(bp.set_margin(std::numeric_limits<double>::infinity()), std::invalid_argument);
    EXPECT_EQ(bp.settings().margin, 0.25);
}

}  // namespace
}  // namespace simpulse
