// Materials and the rule that combines two of them into a contact's friction and restitution: an explicit
// pair entry if there is one, else the mean of the two materials' values (scene format, version 1).
#pragma once

#include <simpulse/dynamics/body.h>

#include <cstddef>
#include <vector>

namespace simpulse {

struct CombinedMaterial {
    double friction = 0.5;
    double restitution = 0;
};

// Materials a world may hold, the default included: the pair table is dense (17 bytes per pair, 18 MB at the
// limit).
inline constexpr std::size_t kMaxMaterials = 1024;

class MaterialTable {
  public:
    MaterialTable();  // holds the default material as id 0
    // Refused values throw std::invalid_argument naming the field, unknown ids InvalidId (errors.h). add
    // refuses a material beyond kMaxMaterials; when it fails (memory included) the table is as it was.
    MaterialId add(const Material& material);
    void set(MaterialId id, const Material& material);
    void set_pair(MaterialId a, MaterialId b, const CombinedMaterial& combined);
    const Material& get(MaterialId id) const { return materials_[id]; }
    std::size_t size() const { return materials_.size(); }
    CombinedMaterial combine(MaterialId a, MaterialId b) const;

  private:
    std::vector<Material> materials_;
    // Dense symmetric table (materials are few), rows of stride_ >= size() entries; has_pair_ marks explicit
    // entries.
    std::vector<CombinedMaterial> pairs_;
    std::vector<char> has_pair_;
    std::size_t stride_ = 0;
};

}  // namespace simpulse
