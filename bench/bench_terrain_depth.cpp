// Contact depths on curved terrain against the true penetration: a box of the soak's size (bench_soak.cpp)
// lowered onto the soak's height-field hills at random poses until it first touches (0.5 mm steps), where a
// depth reported by collide() that exceeds the box's true deepest penetration is a phantom (a body pushed out
// of the ground it is not in). The true penetration is measured independently of the contact code: the
// largest vertical depth below the triangulated surface of 20,000 points sampled on the box's faces, its
// corners, and the terrain vertices inside the box (straight down to the box's lower surface). Prints how
// many first touches report more than 1 mm beyond it and the worst excess.
//
// Run: bench_terrain_depth [TRIALS (default 1000)] [SEED (default 7)]
#include <simpulse/collision/narrow_phase.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numbers>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace simpulse;

constexpr int kRows = 41;  // the soak's hills: 41 x 41 heights 0.25 m apart, origin (-5, -5)
constexpr double kSpacing = 0.25;
constexpr double kPhantom = 1e-3;  // m beyond the true penetration

double hill(int i, int j) {
    return 0.3 * std::sin(0.25 * i) * std::cos(0.18 * j);
}

// The surface over (x, y), triangulated as the height field's cells (diagonal from (i, j) to (i + 1, j + 1)).
double surface(double x, double y) {
    const double fx = (x + 5) / kSpacing, fy = (y + 5) / kSpacing;
    const int j = std::clamp(static_cast<int>(std::floor(fx)), 0, kRows - 2);
    const int i = std::clamp(static_cast<int>(std::floor(fy)), 0, kRows - 2);
    const double u = fx - j, v = fy - i;
    const double h00 = hill(i, j), h01 = hill(i, j + 1), h10 = hill(i + 1, j), h11 = hill(i + 1, j + 1);
    return u >= v ? h00 + u * (h01 - h00) + v * (h11 - h01) : h00 + v * (h10 - h00) + u * (h11 - h10);
}

double deepest(const std::vector<Manifold>& manifolds) {
    double d = -1;
    for (const Manifold& m : manifolds)
        for (int i = 0; i < m.count; ++i) d = std::max(d, m.points[static_cast<std::size_t>(i)].depth);
    return d;
}

// The box's largest vertical penetration below the surface.
double true_penetration(const Pose& pose, const Vec3& half, std::mt19937_64& rng) {
    std::uniform_real_distribution<double> unit(-1, 1);
    double truth = -1;
    auto sample = [&](const Vec3& local) {
        const Vec3 w = pose.transform_point(local.cwiseProduct(half));
        truth = std::max(truth, surface(w.x(), w.y()) - w.z());
    };
    for (int k = 0; k < 20000; ++k) {
        Vec3 p(unit(rng), unit(rng), unit(rng));
        p[k % 3] = p[k % 3] > 0 ? 1 : -1;  // on a face
        sample(p);
    }
    for (int a = 0; a < 8; ++a) sample(Vec3((a & 1) ? 1 : -1, (a & 2) ? 1 : -1, (a & 4) ? 1 : -1));
    const Vec3 down = pose.inverse_rotate(-Vec3::UnitZ());
    for (int i = 0; i < kRows; ++i)
        for (int j = 0; j < kRows; ++j) {
            const Vec3 local =
                pose.inverse().transform_point(Vec3(-5 + kSpacing * j, -5 + kSpacing * i, hill(i, j)));
            if ((local.cwiseAbs() - half).maxCoeff() > 0) continue;
            double exit = std::numeric_limits<double>::infinity();  // along `down` to the box's surface
            for (int a = 0; a < 3; ++a)
                if (std::abs(down[a]) > 0)
                    exit = std::min(exit, ((down[a] > 0 ? half[a] : -half[a]) - local[a]) / down[a]);
            truth = std::max(truth, exit);
        }
    return truth;
}

}  // namespace

int main(int argc, char** argv) {
    auto number = [](const char* text, unsigned long& value) {
        char* end = nullptr;
        value = std::strtoul(text, &end, 10);
        return end != text && *end == 0 && text[0] != '-';
    };
    unsigned long trials = 1000, seed = 7;
    if (argc > 3 || (argc > 1 && (!number(argv[1], trials) || trials < 1 || trials > 10000000)) ||
        (argc > 2 && !number(argv[2], seed))) {
        std::fprintf(stderr,
                     "usage: bench_terrain_depth [TRIALS, 1 to 1e7 (default 1000)] [SEED (default 7)]\n");
        return 2;
    }
    std::vector<double> heights;
    for (int i = 0; i < kRows; ++i)
        for (int j = 0; j < kRows; ++j) heights.push_back(hill(i, j));
    const ShapePtr field = make_height_field(Vec2(-5, -5), Vec2(kSpacing, kSpacing), kRows, kRows, heights);
    const Vec3 half(0.146, 0.286, 0.162);
    const ShapePtr box = make_box(half);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> across(-4, 4), angle(-std::numbers::pi, std::numbers::pi),
        tilt(-0.3, 0.3);
    int phantoms = 0;
    double worst = 0;
    CollideSettings settings;
    settings.margin = 0.02;
    for (unsigned long trial = 0; trial < trials; ++trial) {
        const Quat q = Quat(Eigen::AngleAxisd(angle(rng), Vec3::UnitZ())) *
                       Quat(Eigen::AngleAxisd(tilt(rng), Vec3::UnitX())) *
                       Quat(Eigen::AngleAxisd(tilt(rng), Vec3::UnitY()));
        const Vec2 xy(across(rng), across(rng));
        std::vector<Manifold> out;
        auto reported_at = [&](double z) {
            out.clear();
            collide(*box, Pose{Vec3(xy.x(), xy.y(), z), q}, *field, Pose{}, settings, out);
            return deepest(out);
        };
        double z = 0.8;
        while (z > -1 && reported_at(z) <= 0) z -= 0.0005;
        const double excess =
            reported_at(z) - std::max(0.0, true_penetration(Pose{Vec3(xy.x(), xy.y(), z), q}, half, rng));
        if (excess > kPhantom) ++phantoms;
        worst = std::max(worst, excess);
    }
    std::printf(
        "terrain depth: %d of %lu first touches of a %.3f x %.3f x %.3f m box on the soak's hills report "
        "more "
        "than %.0f mm beyond the true penetration; worst excess %.4f m (seed %lu)\n",
        phantoms, trials, 2 * half.x(), 2 * half.y(), 2 * half.z(), kPhantom * 1e3, worst, seed);
    return 0;
}
