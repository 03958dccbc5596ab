// Materials and the rule that combines two of them into a contact's friction and restitution: an explicit
// pair entry if there is one, else the mean of the two materials' values (scene format, version 1).
#pragma once

#include <simpulse/dynamics/body.h>

#include <vector>

namespace simpulse {

struct CombinedMaterial {
    double friction = 0.5;
    double restitution = 0;
};

class MaterialTable {
  public:
    MaterialTable();  // holds the default material as id 0
    // Refused values throw std::invalid_argument naming the field, unknown ids InvalidId (errors.h).
    MaterialId add(const Material& material);
    void set(MaterialId id, const Material& material);
    void set_pair(MaterialId a, MaterialId b, const CombinedMaterial& combined);
    const Material& get(MaterialId id) const { return materials_[id]; }
    std::size_t size() const { return materials_.size(); }
    CombinedMaterial combine(MaterialId a, MaterialId b) const;

  private:
    std::vector<Material> materials_;
    // Dense symmetric table (materials are few); has_pair_ marks explicit entries.
    std::vector<CombinedMaterial> pairs_;
    std::vector<char> has_pair_;
    void resize_pairs(std::size_t old_size);
};

}  // namespace simpulse
