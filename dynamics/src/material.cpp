// Material table: per-material friction, restitution and density, and the pair-combination rule of the scene
// format (explicit pair entry, else the mean of the two materials).
#include <simpulse/collision/number_text.h>
#include <simpulse/dynamics/errors.h>
#include <simpulse/dynamics/material.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace simpulse {
namespace {

void require_friction(double friction) {
    if (!(friction >= 0 && std::isfinite(friction)))
        throw std::invalid_argument("friction: expected a finite number >= 0, got " + number_text(friction));
}

void require_restitution(double restitution) {
    if (!(restitution >= 0 && restitution <= 1))
        throw std::invalid_argument("restitution: expected a number in [0, 1], got " +
                                    number_text(restitution));
}

// The one check of a material's values, for every way a material enters a world.
void require_valid(const Material& material) {
    require_friction(material.friction);
    require_restitution(material.restitution);
    if (!(material.density > 0 && std::isfinite(material.density)))
        throw std::invalid_argument("density: expected a positive finite number, got " +
                                    number_text(material.density));
}

void require_known(MaterialId id, std::size_t size, const char* what) {
    if (id >= size)
        throw InvalidId(std::string(what) + ": unknown material id " + std::to_string(id) +
                        " (the world has " + std::to_string(size) + ")");
}

}  // namespace

MaterialTable::MaterialTable() {
    add(Material{});
}

MaterialId MaterialTable::add(const Material& material) {
    require_valid(material);
    const std::size_t old_size = materials_.size();
    if (old_size >= kMaxMaterials)
        throw std::invalid_argument("material: a world holds at most " + std::to_string(kMaxMaterials) +
                                    " materials (the default included)");
    // Everything that can fail comes first; the table changes only when nothing is left to fail. The pair
    // table's row length doubles when it is full, so n adds copy O(n^2) entries in all, not O(n^3).
    materials_.reserve(old_size + 1);
    if (old_size + 1 > stride_) {
        const std::size_t stride = std::min(kMaxMaterials, std::max<std::size_t>(2 * stride_, 4));
        std::vector<CombinedMaterial> pairs(stride * stride);
        std::vector<char> has(stride * stride, 0);
        for (std::size_t i = 0; i < old_size; ++i)
            for (std::size_t j = 0; j < old_size; ++j) {
                pairs[i * stride + j] = pairs_[i * stride_ + j];
                has[i * stride + j] = has_pair_[i * stride_ + j];
            }
        pairs_ = std::move(pairs);
        has_pair_ = std::move(has);
        stride_ = stride;
    }
    materials_.push_back(material);
    return static_cast<MaterialId>(old_size);
}

void MaterialTable::set(MaterialId id, const Material& material) {
    require_known(id, materials_.size(), "material");
    require_valid(material);
    materials_[id] = material;
}

void MaterialTable::set_pair(MaterialId a, MaterialId b, const CombinedMaterial& combined) {
    const std::size_t n = materials_.size();
    require_known(a, n, "a");
    require_known(b, n, "b");
    require_friction(combined.friction);
    require_restitution(combined.restitution);
    pairs_[a * stride_ + b] = pairs_[b * stride_ + a] = combined;
    has_pair_[a * stride_ + b] = has_pair_[b * stride_ + a] = 1;
}

CombinedMaterial MaterialTable::combine(MaterialId a, MaterialId b) const {
    if (has_pair_[a * stride_ + b]) return pairs_[a * stride_ + b];
    const Material& ma = materials_[a];
    const Material& mb = materials_[b];
    // Halves first: the sum of two valid frictions near the largest double would overflow to inf.
    return {0.5 * ma.friction + 0.5 * mb.friction, 0.5 * (ma.restitution + mb.restitution)};
}

}  // namespace simpulse
