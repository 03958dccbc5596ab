// Cables in the world (cable.h, docs/cables.md): creating and removing them, their state, and their bending
// springs. A cable's control points are bodies (a ball of the cable's radius and the point's share of the
// mass) outside the broad phase; the rods, stretch springs and pins are the world's own joints and springs,
// so the exact solver holds them in the same simultaneous solve as the contacts.
#include <simpulse/dynamics/world.h>

#include "world_checks.h"

#include <algorithm>
#include <map>
#include <numbers>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace simpulse {
using detail::allocate;
using detail::require;
using detail::require_id;
using detail::require_non_negative;
using detail::require_positive;

namespace {

std::string field(const char* name, std::size_t index) {
    return std::string(name) + "[" + std::to_string(index) + "]";
}

// No control point pinned twice to the same body, checked in O(P log P) for a cable of many pins; the pin
// named is the first that repeats an earlier one, with the earliest one it repeats.
void check_pins_distinct(const std::vector<CablePin>& pins) {
    std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, std::size_t> first_pin;
    for (std::size_t k = 0; k < pins.size(); ++k) {
        const auto [at, inserted] =
            first_pin.emplace(std::tuple(pins[k].index, pins[k].body.index, pins[k].body.generation), k);
        if (!inserted)
            throw std::invalid_argument(
                field("pins", k) + ": control point " + std::to_string(pins[k].index) +
                " is already pinned to the same body by pins[" + std::to_string(at->second) + "]");
    }
}

void check_cable(const CableDesc& desc, std::size_t material_count) {
    require(desc.points.size() >= 4,
            "points: expected at least 4 control points (one B-spline segment), got " +
                std::to_string(desc.points.size()));
    for (std::size_t i = 0; i < desc.points.size(); ++i) {
        require(desc.points[i].allFinite(), field("points", i) + ": expected finite numbers");
        require(i == 0 || (desc.points[i] - desc.points[i - 1]).norm() > 0,
                field("points", i) + ": coincides with points[" + std::to_string(i - 1) +
                    "] (neighbouring control points must be apart)");
    }
    require_positive(desc.radius, "radius");
    if (desc.mass)
        require_positive(*desc.mass, "mass");
    else
        require_positive(desc.density, "density");
    require_id(desc.material < material_count, "material");
    require(desc.stretch_stiffness > 0,
            "stretch_stiffness: expected a positive number (infinity: rods), got " +
                number_text(desc.stretch_stiffness));
    require_non_negative(desc.bend_stiffness, "bend_stiffness");
    for (std::size_t k = 0; k < desc.pins.size(); ++k) {
        const std::uint32_t index = desc.pins[k].index;
        require(index < desc.points.size(),
                field("pins", k) + ".index: expected a control point index below " +
                    std::to_string(desc.points.size()) + ", got " + std::to_string(index));
    }
    check_pins_distinct(desc.pins);
}

}  // namespace

CableSegment cable_segment(const Cable& cable, std::size_t k, std::span<const Body> bodies) {
    const std::size_t n = cable.points.size();
    auto point = [&](std::size_t i) -> const Vec3& { return bodies[cable.points[i]].com_position; };
    return cable_chain_segment(k == 0 ? nullptr : &point(k - 1), point(k), point(k + 1),
                               k + 2 == n ? nullptr : &point(k + 2), cable.radius);
}

PointSpread cable_spread(const Cable& cable, std::size_t k, const std::array<double, 4>& weights) {
    const std::size_t n = cable.points.size();
    PointSpread s;
    std::size_t count = 0;
    auto add = [&](std::size_t point, double weight) {
        for (std::size_t i = 0; i < count; ++i)
            if (s.body[i] == cable.points[point]) {
                s.weight[i] += weight;
                return;
            }
        s.body[count] = cable.points[point];
        s.weight[count++] = weight;
    };
    if (k == 0) {  // P(-1) = 2 P0 - P1
        add(0, 2 * weights[0]);
        add(1, -weights[0]);
    } else {
        add(k - 1, weights[0]);
    }
    add(k, weights[1]);
    add(k + 1, weights[2]);
    if (k + 2 == n) {  // P(n) = 2 P(n-1) - P(n-2)
        add(n - 1, 2 * weights[3]);
        add(n - 2, -weights[3]);
    } else {
        add(k + 2, weights[3]);
    }
    return s;
}

void accumulate_cable_bending(std::span<const Cable> cables, std::span<Body> bodies) {
    for (const Cable& c : cables) {
        if (!c.alive) continue;
        for (std::size_t i = 1; i + 1 < c.points.size(); ++i) {
            const double k = c.bend_stiffness[i - 1];
            if (k == 0) continue;
            Body& prev = bodies[c.points[i - 1]];
            Body& mid = bodies[c.points[i]];
            Body& next = bodies[c.points[i + 1]];
            const Vec3 force = -k * (mid.com_position - 0.5 * (prev.com_position + next.com_position));
            mid.force += force;
            prev.force -= 0.5 * force;
            next.force -= 0.5 * force;
        }
    }
}

double cable_bending_energy(std::span<const Cable> cables, std::span<const Body> bodies) {
    double e = 0;
    for (const Cable& c : cables) {
        if (!c.alive) continue;
        for (std::size_t i = 1; i + 1 < c.points.size(); ++i) {
            const Vec3 offset =
                bodies[c.points[i]].com_position -
                0.5 * (bodies[c.points[i - 1]].com_position + bodies[c.points[i + 1]].com_position);
            e += 0.5 * c.bend_stiffness[i - 1] * offset.squaredNorm();
        }
    }
    return e;
}

CableId DynamicsWorld::add_cable(const CableDesc& desc) {
    check_cable(desc, materials_.size());
    for (std::size_t k = 0; k < desc.pins.size(); ++k)
        require_id(desc.pins[k].body == BodyId{} || is_valid(desc.pins[k].body),
                   (field("pins", k) + ".body").c_str());
    const std::size_t n = desc.points.size();
    std::vector<double> link(n - 1);
    for (std::size_t i = 0; i + 1 < n; ++i) link[i] = (desc.points[i + 1] - desc.points[i]).norm();
    double length = 0;
    for (const double l : link) length += l;
    const double total_mass =
        desc.mass ? *desc.mass : desc.density * std::numbers::pi * desc.radius * desc.radius * length;
    require_positive(total_mass, desc.mass ? "mass" : "density");
    // The links' coefficients, checked before anything is created: EA / L and 4 EI / l^3 can overflow for
    // finite inputs (or, with EI = 0, give 0 / 0 for links whose cube underflows).
    std::vector<double> bend(n - 2);
    for (std::size_t i = 1; i + 1 < n; ++i) {
        const double l = 0.5 * (link[i - 1] + link[i]);
        bend[i - 1] = desc.bend_stiffness == 0 ? 0.0 : 4 * desc.bend_stiffness / (l * l * l);
        if (!std::isfinite(bend[i - 1]))
            throw std::invalid_argument("bend_stiffness: " + number_text(desc.bend_stiffness) +
                                        " N m^2 over links of " + number_text(l) +
                                        " m overflows (4 EI / l^3 must be finite)");
    }
    if (!std::isinf(desc.stretch_stiffness))
        for (std::size_t i = 0; i + 1 < n; ++i)
            if (!std::isfinite(desc.stretch_stiffness / link[i]))
                throw std::invalid_argument("stretch_stiffness: " + number_text(desc.stretch_stiffness) +
                                            " N over a link of " + number_text(link[i]) +
                                            " m overflows (EA / L must be finite, or EA infinite)");

    const std::uint32_t slot = allocate(cables_, free_cables_);
    Cable cable;
    cable.radius = desc.radius;
    cable.material = desc.material;
    cable.collision_group = desc.collision_group;
    cable.collision_mask = desc.collision_mask;
    cable.generation = cables_[slot].generation + 1;
    cable.alive = true;
    // What is created below can still fail (a control point's mass the bodies refuse, memory): then all of it
    // is taken back, so a refused call leaves the world as it was.
    try {
        build_cable(desc, slot, link, length, total_mass, cable);
    } catch (...) {
        release_cable_parts(cable);
        free_cables_.push_back(slot);
        throw;
    }
    cable.bend_stiffness = std::move(bend);
    for (const std::uint32_t p : cable.points) bodies_[p].cable = slot;
    cables_[slot] = std::move(cable);
    ++cable_count_;
    return {slot, cables_[slot].generation};
}

// add_cable's construction: the control points (bodies without proxies of their own), the links (springs,
// or distance joints for an inextensible cable), the pins and the segments' proxies, recorded in `cable` as
// they are made so that add_cable can take them back.
void DynamicsWorld::build_cable(const CableDesc& desc, std::uint32_t slot, std::span<const double> link,
                                double length, double total_mass, Cable& cable) {
    const std::size_t n = desc.points.size();
    // Reserved first, so that nothing made is lost to a failing push_back.
    std::vector<BodyId> ids;
    ids.reserve(n);
    cable.points.reserve(n);
    cable.joints.reserve(n - 1 + desc.pins.size());
    cable.springs.reserve(n - 1);
    cable.proxies.reserve(n - 1);
    const ShapePtr ball = make_sphere(desc.radius);
    for (std::size_t i = 0; i < n; ++i) {
        const double share = 0.5 * ((i > 0 ? link[i - 1] : 0.0) + (i + 1 < n ? link[i] : 0.0)) / length;
        BodyDesc point;
        point.shape = ball;
        point.pose = Pose{desc.points[i], Quat::Identity()};
        point.mass = total_mass * share;
        point.material = desc.material;
        point.ccd = false;
        const BodyId id = create_body(point);
        Body& b = bodies_[id.index];
        broad_phase_.remove(b.proxy);  // the segments carry the cable's proxies
        b.proxy = -1;
        --body_count_;
        ids.push_back(id);
        cable.points.push_back(id.index);
    }
    cable.creation_order = next_creation_order_++;
    for (std::size_t i = 0; i + 1 < n; ++i) {
        if (std::isinf(desc.stretch_stiffness)) {
            JointDesc rod;
            rod.type = JointType::distance;
            rod.body_a = ids[i];
            rod.body_b = ids[i + 1];
            rod.anchor = desc.points[i];
            rod.anchor_b = desc.points[i + 1];
            cable.joints.push_back(add_joint(rod));
        } else {
            cable.springs.push_back(add_spring({.body_a = ids[i],
                                                .body_b = ids[i + 1],
                                                .anchor_a = desc.points[i],
                                                .anchor_b = desc.points[i + 1],
                                                .stiffness = desc.stretch_stiffness / link[i],
                                                .rest_length = link[i]}));
        }
    }
    for (const CablePin& pin : desc.pins) {
        BallJointDesc joint;
        joint.body_a = ids[pin.index];
        joint.body_b = pin.body;
        joint.anchor = desc.points[pin.index];
        cable.joints.push_back(add_ball_joint(joint));
        if (pin.body != BodyId{}) cable.pinned_to.push_back(pin.body.index);
    }
    std::sort(cable.pinned_to.begin(), cable.pinned_to.end());
    for (std::size_t k = 0; k + 1 < n; ++k) {
        const std::uint32_t ref = allocate(segments_, free_segments_);
        segments_[ref] = {slot, static_cast<std::uint32_t>(k)};
        const Aabb box =
            cable_segment_aabb(cable_segment(cable, k, bodies_)).inflated(0.5 * settings_.contact_margin);
        cable.proxies.push_back(broad_phase_.add(box, kSegmentProxyBit | ref, false));
    }
}

// The joints, springs, segment proxies and control-point bodies of `c` (of a live cable, or of one whose
// construction failed part way), released.
void DynamicsWorld::release_cable_parts(const Cable& c) {
    for (const JointId j : c.joints)
        if (is_valid(j)) remove_joint(j);
    for (const SpringId s : c.springs)
        if (is_valid(s)) remove_spring(s);
    for (const std::int32_t proxy : c.proxies) {
        const std::uint32_t ref = broad_phase_.user_id(proxy) & ~kSegmentProxyBit;
        segments_[ref] = {};
        free_segments_.push_back(ref);
        broad_phase_.remove(proxy);
    }
    for (const std::uint32_t p : c.points) {
        Body& b = bodies_[p];
        wake_island(p);
        b.alive = false;
        b.cable = kInvalidIndex;
        b.shape.reset();
        free_bodies_.push_back(p);
    }
}

void DynamicsWorld::remove_cable(CableId id) {
    require_id(is_valid(id), "cable id");
    Cable& c = cables_[id.index];
    release_cable_parts(c);
    const std::uint32_t generation = c.generation;
    c = Cable{};
    c.generation = generation;
    free_cables_.push_back(id.index);
    --cable_count_;
}

bool DynamicsWorld::is_valid(CableId id) const {
    return id.index < cables_.size() && cables_[id.index].alive &&
           cables_[id.index].generation == id.generation;
}

std::vector<Vec3> DynamicsWorld::cable_points(CableId id) const {
    require_id(is_valid(id), "cable id");
    std::vector<Vec3> out;
    for (const std::uint32_t p : cables_[id.index].points) out.push_back(bodies_[p].com_position);
    return out;
}

std::vector<Vec3> DynamicsWorld::cable_velocities(CableId id) const {
    require_id(is_valid(id), "cable id");
    std::vector<Vec3> out;
    for (const std::uint32_t p : cables_[id.index].points) out.push_back(bodies_[p].velocity);
    return out;
}

void DynamicsWorld::set_cable_velocities(CableId id, std::span<const Vec3> velocities) {
    require_id(is_valid(id), "cable id");
    const Cable& c = cables_[id.index];
    require(velocities.size() == c.points.size(), "velocities: expected one per control point (" +
                                                      std::to_string(c.points.size()) + "), got " +
                                                      std::to_string(velocities.size()));
    for (std::size_t i = 0; i < velocities.size(); ++i)
        require(velocities[i].allFinite(), field("velocities", i) + ": expected finite numbers");
    for (std::size_t i = 0; i < velocities.size(); ++i) {
        wake_island(c.points[i]);
        bodies_[c.points[i]].velocity = velocities[i];
    }
}

double DynamicsWorld::cable_radius(CableId id) const {
    require_id(is_valid(id), "cable id");
    return cables_[id.index].radius;
}

std::vector<CableId> DynamicsWorld::cables() const {
    std::vector<CableId> out;
    for (std::uint32_t i = 0; i < cables_.size(); ++i)
        if (cables_[i].alive) out.push_back({i, cables_[i].generation});
    std::sort(out.begin(), out.end(), [&](CableId a, CableId b) {
        return cables_[a.index].creation_order < cables_[b.index].creation_order;
    });
    return out;
}

}  // namespace simpulse
