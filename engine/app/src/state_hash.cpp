// The determinism check's fingerprint of a run: a 64-bit FNV-1a hash of the exact bit patterns of every
// body's pose, velocity and angular velocity, in scene order, then of every cable's control points and their
// velocities (`simpulse run --hash-every N`). Two runs with
// the same hashes at the same steps went through bit-identical states.
#include <simpulse/app/run.h>

#include <bit>
#include <cstdint>

namespace simpulse {
namespace {

constexpr std::uint64_t kFnvOffset = 0xcbf29ce484222325ULL;
constexpr std::uint64_t kFnvPrime = 0x100000001b3ULL;

void mix(std::uint64_t& hash, double value) {
    std::uint64_t bits = std::bit_cast<std::uint64_t>(value);
    for (int byte = 0; byte < 8; ++byte, bits >>= 8) {
        hash ^= bits & 0xffU;
        hash *= kFnvPrime;
    }
}

void mix(std::uint64_t& hash, const Vec3& v) {
    for (int i = 0; i < 3; ++i) mix(hash, v[i]);
}

}  // namespace

std::uint64_t state_hash(const SceneWorld& sw) {
    std::uint64_t hash = kFnvOffset;
    for (const BodyId id : sw.bodies) {
        const Result<BodyState> state = sw.world.state(id);
        if (!state) continue;  // scene bodies are never destroyed during a run
        mix(hash, state->pose.position);
        for (int i = 0; i < 4; ++i) mix(hash, state->pose.orientation.coeffs()[i]);
        mix(hash, state->velocity);
        mix(hash, state->angular_velocity);
    }
    // Cables after the bodies: a scene without cables hashes exactly as before they existed.
    for (const CableId id : sw.cables) {
        if (const Result<std::vector<Vec3>> points = sw.world.cable_points(id))
            for (const Vec3& p : points.value()) mix(hash, p);
        if (const Result<std::vector<Vec3>> velocities = sw.world.cable_velocities(id))
            for (const Vec3& v : velocities.value()) mix(hash, v);
    }
    return hash;
}

}  // namespace simpulse
