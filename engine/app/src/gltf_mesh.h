// Display tessellation of shapes for the glTF export (gltf_export.cpp): triangles in the body frame with
// per-vertex normals, for looking at only (collision never uses them).
#pragma once

#include <simpulse/collision/shape.h>

#include <cstdint>
#include <vector>

namespace simpulse::gltf_detail {

// Triangles counter-clockwise seen from outside; positions and normals x y z per vertex.
struct DisplayMesh {
    std::vector<float> positions;
    std::vector<float> normals;
    std::vector<std::uint32_t> indices;
};

// Tessellates `shape` in its body frame. A plane becomes a square of side 2 * plane_half_size centred on the
// point of the plane nearest the body origin; curved surfaces get `segments` segments around (>= 8).
DisplayMesh tessellate(const Shape& shape, double plane_half_size, int segments = 24);

}  // namespace simpulse::gltf_detail
