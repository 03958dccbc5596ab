// Material table: per-material friction, restitution and density, and the pair-combination rule of the scene
// format (explicit pair entry, else the mean of the two materials).
#include <simpulse/dynamics/material.h>

#include <stdexcept>

namespace simpulse {

MaterialTable::MaterialTable() {
    add(Material{});
}

MaterialId MaterialTable::add(const Material& material) {
    const std::size_t old_size = materials_.size();
    materials_.push_back(material);
    resize_pairs(old_size);
    return static_cast<MaterialId>(old_size);
}

void MaterialTable::set(MaterialId id, const Material& material) {
    if (id >= materials_.size()) throw std::invalid_argument("unknown material id");
    materials_[id] = material;
}

void MaterialTable::resize_pairs(std::size_t old_size) {
    const std::size_t n = materials_.size();
    std::vector<CombinedMaterial> pairs(n * n);
    std::vector<char> has(n * n, 0);
    for (std::size_t i = 0; i < old_size; ++i)
        for (std::size_t j = 0; j < old_size; ++j) {
            pairs[i * n + j] = pairs_[i * old_size + j];
            has[i * n + j] = has_pair_[i * old_size + j];
        }
    pairs_ = std::move(pairs);
    has_pair_ = std::move(has);
}

void MaterialTable::set_pair(MaterialId a, MaterialId b, const CombinedMaterial& combined) {
    const std::size_t n = materials_.size();
    if (a >= n || b >= n) throw std::invalid_argument("unknown material id");
    pairs_[a * n + b] = pairs_[b * n + a] = combined;
    has_pair_[a * n + b] = has_pair_[b * n + a] = 1;
}

CombinedMaterial MaterialTable::combine(MaterialId a, MaterialId b) const {
    const std::size_t n = materials_.size();
    if (has_pair_[a * n + b]) return pairs_[a * n + b];
    const Material& ma = materials_[a];
    const Material& mb = materials_[b];
    return {0.5 * (ma.friction + mb.friction), 0.5 * (ma.restitution + mb.restitution)};
}

}  // namespace simpulse
