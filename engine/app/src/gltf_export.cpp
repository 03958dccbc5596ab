// Writes a recorded run as a binary glTF 2.0 file (GLB; Khronos glTF 2.0 specification, sections 3 and 4.4):
// one node and one mesh per body, one animation with a translation and a rotation channel per dynamic body
// sampled at the recording's times, materials coloured per scene material, and the run's metadata (scene
// name, contact events, totals, contact points, velocities) under extras.simpulse (docs/replay.md).
#include <simpulse/app/replay.h>

#include "gltf_mesh.h"
#include "scene_json.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <ostream>
#include <stdexcept>

namespace simpulse {
namespace {

using scene_detail::Json;

constexpr int kFloat = 5126;         // accessor componentType FLOAT
constexpr int kUnsignedInt = 5125;   // UNSIGNED_INT
constexpr int kArrayBuffer = 34962;  // bufferView target for vertex attributes
constexpr int kElementArrayBuffer = 34963;

// The binary chunk, built as a list of buffer views, each 4-byte aligned. Appends only (no zero fill), into
// storage reserved once for the whole chunk: at 10,000 bodies x 1,000 samples the chunk is half a gigabyte,
// and page faults and copies are most of the export's time.
class BinaryBuffer {
  public:
    void reserve(std::size_t bytes) { bytes_.reserve(bytes); }
    // Starts a buffer view at the next 4-byte boundary.
    void begin_view() {
        while (bytes_.size() % 4 != 0) bytes_.push_back('\0');
        start_ = bytes_.size();
    }
    void append(const void* data, std::size_t bytes) { bytes_.append(static_cast<const char*>(data), bytes); }
    // Ends the view begun last; returns its index, or null if it is empty (glTF has no empty buffer views). A
    // byte stride is given for vertex attributes that share the view.
    Json end_view(Json& views, std::optional<int> target = std::nullopt,
                  std::optional<int> stride = std::nullopt) {
        if (bytes_.size() == start_) return nullptr;
        Json view = {{"buffer", 0}, {"byteOffset", start_}, {"byteLength", bytes_.size() - start_}};
        if (stride) view["byteStride"] = *stride;
        if (target) view["target"] = *target;
        views.push_back(std::move(view));
        return views.size() - 1;
    }
    template <class T>
    Json add_view(const std::vector<T>& data, Json& views, std::optional<int> target = std::nullopt,
                  std::optional<int> stride = std::nullopt) {
        begin_view();
        append(data.data(), data.size() * sizeof(T));
        return end_view(views, target, stride);
    }
    std::string& bytes() { return bytes_; }

  private:
    std::string bytes_;
    std::size_t start_ = 0;
};

// A colour per material name: a hue from the name's FNV-1a hash (HSV to RGB); static bodies get a paler,
// greyer shade of their material's colour, so that the ground does not look like what moves on it.
Json material_colour(const std::string& name, bool is_static) {
    std::uint32_t h = 2166136261u;
    for (const unsigned char c : name) h = (h ^ c) * 16777619u;
    const double hue = (h % 360) / 60.0, s = is_static ? 0.15 : 0.6, v = is_static ? 0.8 : 0.85;
    const double c = v * s, x = c * (1 - std::fabs(std::fmod(hue, 2.0) - 1)), m = v - c;
    double r = 0, g = 0, b = 0;
    switch (static_cast<int>(hue)) {
        case 0:
            r = c, g = x;
            break;
        case 1:
            r = x, g = c;
            break;
        case 2:
            g = c, b = x;
            break;
        case 3:
            g = x, b = c;
            break;
        case 4:
            r = x, b = c;
            break;
        default:
            r = c, b = x;
            break;
    }
    return Json::array({r + m, g + m, b + m, 1.0});
}

// Half the side of the quad that shows a plane: the plane reaches well beyond every body's start.
double plane_half_size(const SceneDesc& scene) {
    double reach = 0;
    for (const SceneBody& b : scene.bodies)
        if (b.desc.shape->type() != ShapeType::plane)
            reach = std::max(reach, b.desc.pose.position.cwiseAbs().maxCoeff());
    return std::clamp(3 * reach + 1, 1.0, 1e4);
}

// The local direction glTF viewers should treat as up: against gravity, else +z.
Json up_axis(const SceneDesc& scene) {
    const Vec3& g = scene.settings.gravity;
    const Vec3 up = g.norm() > 0 ? Vec3(-g.normalized()) : Vec3::UnitZ();
    return Json::array({up.x(), up.y(), up.z()});
}

const char* event_type(ContactEvent::Type type) {
    switch (type) {
        case ContactEvent::Type::begin:
            return "begin";
        case ContactEvent::Type::end:
            return "end";
        default:
            return "persist";
    }
}

void check_recording(const SceneDesc& scene, const Recording& r) {
    const std::size_t n = r.times.size(), b = scene.bodies.size();
    if (n == 0) throw std::invalid_argument("recording: no samples");
    if (r.body_count != b || r.translations.size() != 3 * n * b || r.rotations.size() != 4 * n * b ||
        r.velocities.size() != 6 * n * b || r.kinetic.size() != n || r.potential.size() != n ||
        r.momentum.size() != 3 * n || r.contact_offsets.size() != n + 1 ||
        r.contacts.size() != 6 * static_cast<std::size_t>(r.contact_offsets.back()))
        throw std::invalid_argument("recording: array sizes do not match the scene's " + std::to_string(b) +
                                    " bodies and the recording's " + std::to_string(n) + " samples");
    std::size_t points = 0;
    for (const std::size_t count : r.cable_point_counts) points += count;
    if (r.cable_point_counts.size() != scene.cables.size() || r.cable_points.size() != 3 * n * points)
        throw std::invalid_argument("recording: cable arrays do not match the scene's " +
                                    std::to_string(scene.cables.size()) + " cables and the recording's " +
                                    std::to_string(n) + " samples");
}

// The cables for the viewer (only for scenes with cables, so other files keep their bytes): name, radius,
// material, and where each cable's control points are in the per-sample point list.
Json cable_extras(const SceneDesc& scene, const Recording& rec, BinaryBuffer& bin, Json& views) {
    Json list = Json::array();
    std::size_t offset = 0;
    for (std::size_t c = 0; c < scene.cables.size(); ++c) {
        const SceneCable& cable = scene.cables[c];
        list.push_back({{"name", cable.name},
                        {"radius", cable.desc.radius},
                        {"material", scene.materials[cable.desc.material].name},
                        {"first_point", offset},
                        {"points", rec.cable_point_counts[c]}});
        offset += rec.cable_point_counts[c];
    }
    return {{"list", std::move(list)},
            {"point_count", offset},
            {"bufferView", bin.add_view(rec.cable_points, views)},
            {"layout",
             "per sample, per control point of every cable in order: x y z (float32); a uniform cubic "
             "B-spline through the first and last point (mirrored end points)"}};
}

// The domino chain's hits: the first contact_begin between the striker and domino_1 and between each pair of
// neighbouring dominoes, beside the measured chain time (thesis, table 1).
Json domino_extras(const SceneDesc& scene, const std::vector<SceneEvent>& events, const DominoTiming& t) {
    Json hits = Json::array();
    auto index = [&](const std::string& name) -> std::optional<std::size_t> {
        for (std::size_t i = 0; i < scene.bodies.size(); ++i)
            if (scene.bodies[i].name == name) return i;
        return std::nullopt;
    };
    std::string previous = "striker";
    for (int k = 1; k <= t.dominoes; ++k) {
        const std::string name = "domino_" + std::to_string(k);
        const auto a = index(previous), b = index(name);
        Json hit = {{"a", previous}, {"b", name}, {"t", nullptr}};
        for (const SceneEvent& e : events)
            if (a && b && e.type == ContactEvent::Type::begin && e.a == std::min(*a, *b) &&
                e.b == std::max(*a, *b)) {
                hit["t"] = e.time;
                break;
            }
        hits.push_back(std::move(hit));
        previous = name;
    }
    Json out = {{"pitch", t.pitch}, {"hits", std::move(hits)}};
    out["striker_hit"] = t.striker_hit ? Json(*t.striker_hit) : Json(nullptr);
    out["chain_time"] = t.chain_time ? Json(*t.chain_time) : Json(nullptr);
    if (const DominoReference* ref = domino_reference(t.pitch)) {
        out["measured_chain_time"] = ref->measured;
        out["measured_uncertainty"] = kChainTimeUncertainty;
    }
    return out;
}

// The GLB's two chunks, each padded to 4 bytes: the JSON document and the binary buffer.
struct GlbChunks {
    std::string json;
    std::string bin;
};

std::size_t glb_size(const GlbChunks& c) {
    return 12 + 8 + c.json.size() + 8 + c.bin.size();
}

GlbChunks glb_chunks(const SceneDesc& scene, const Recording& rec, const std::vector<SceneEvent>& events,
                     const std::optional<DominoTiming>& domino) {
    check_recording(scene, rec);
    const std::size_t samples = rec.times.size(), body_count = scene.bodies.size();
    BinaryBuffer bin;
    Json views = Json::array(), accessors = Json::array(), meshes = Json::array(), nodes = Json::array();

    // Meshes: every body's vertices in one view, its indices in another; accessors point into them.
    std::vector<float> vertex_data;
    std::vector<std::uint32_t> index_data;
    struct MeshRange {
        std::size_t vertex_offset, vertex_count, index_offset, index_count;
        std::array<float, 3> min, max;
    };
    std::vector<MeshRange> ranges;
    const double half_size = plane_half_size(scene);
    for (const SceneBody& body : scene.bodies) {
        const gltf_detail::DisplayMesh m = gltf_detail::tessellate(*body.desc.shape, half_size);
        MeshRange r{
            vertex_data.size() * 4, m.positions.size() / 3, index_data.size() * 4, m.indices.size(), {}, {}};
        r.min.fill(std::numeric_limits<float>::max());
        r.max.fill(std::numeric_limits<float>::lowest());
        for (std::size_t i = 0; i < m.positions.size(); ++i) {
            r.min[i % 3] = std::min(r.min[i % 3], m.positions[i]);
            r.max[i % 3] = std::max(r.max[i % 3], m.positions[i]);
        }
        vertex_data.insert(vertex_data.end(), m.positions.begin(), m.positions.end());
        vertex_data.insert(vertex_data.end(), m.normals.begin(), m.normals.end());
        index_data.insert(index_data.end(), m.indices.begin(), m.indices.end());
        ranges.push_back(r);
    }
    std::size_t dynamic_count = 0;
    for (const SceneBody& b : scene.bodies) dynamic_count += b.desc.is_static ? 0 : 1;
    bin.reserve(4 * (vertex_data.size() + index_data.size() + samples * (1 + 7 * dynamic_count) +
                     rec.velocities.size() + rec.contacts.size() + rec.cable_points.size()) +
                64);
    const Json vertex_view = bin.add_view(vertex_data, views, kArrayBuffer, 12);
    const Json index_view = bin.add_view(index_data, views, kElementArrayBuffer);
    vertex_data = {};
    index_data = {};

    for (std::size_t i = 0; i < body_count; ++i) {
        const SceneBody& body = scene.bodies[i];
        const MeshRange& r = ranges[i];
        const Pose& pose = body.desc.pose;
        Json node = {
            {"name", body.name},
            {"translation", {pose.position.x(), pose.position.y(), pose.position.z()}},
            {"rotation",
             {pose.orientation.x(), pose.orientation.y(), pose.orientation.z(), pose.orientation.w()}}};
        if (r.vertex_count > 0 && r.index_count > 0) {
            const std::size_t position = accessors.size();
            accessors.push_back({{"bufferView", vertex_view},
                                 {"byteOffset", r.vertex_offset},
                                 {"componentType", kFloat},
                                 {"count", r.vertex_count},
                                 {"type", "VEC3"},
                                 {"min", r.min},
                                 {"max", r.max}});
            accessors.push_back({{"bufferView", vertex_view},
                                 {"byteOffset", r.vertex_offset + r.vertex_count * 12},
                                 {"componentType", kFloat},
                                 {"count", r.vertex_count},
                                 {"type", "VEC3"}});
            accessors.push_back({{"bufferView", index_view},
                                 {"byteOffset", r.index_offset},
                                 {"componentType", kUnsignedInt},
                                 {"count", r.index_count},
                                 {"type", "SCALAR"}});
            meshes.push_back({{"name", body.name},
                              {"primitives",
                               {{{"attributes", {{"POSITION", position}, {"NORMAL", position + 1}}},
                                 {"indices", position + 2},
                                 {"material", 2 * body.desc.material + (body.desc.is_static ? 1 : 0)}}}}});
            node["mesh"] = meshes.size() - 1;
        }
        nodes.push_back(std::move(node));
    }

    // Animation: the shared times, then per dynamic body its translations and rotations over the samples.
    std::vector<std::size_t> dynamic;
    for (std::size_t i = 0; i < body_count; ++i)
        if (!scene.bodies[i].desc.is_static) dynamic.push_back(i);
    Json animations = Json::array();
    if (!dynamic.empty()) {
        std::vector<float> times(samples);
        for (std::size_t k = 0; k < samples; ++k) times[k] = static_cast<float>(rec.times[k]);
        const std::size_t time_accessor = accessors.size();
        accessors.push_back({{"bufferView", bin.add_view(times, views)},
                             {"componentType", kFloat},
                             {"count", samples},
                             {"type", "SCALAR"},
                             {"min", {times.front()}},
                             {"max", {times.back()}}});
        // Body-major copies of the sample-major recording: each channel's output is contiguous.
        bin.begin_view();
        for (const std::size_t body : dynamic)
            for (std::size_t k = 0; k < samples; ++k)
                bin.append(&rec.translations[3 * (k * body_count + body)], 12);
        const Json move_view = bin.end_view(views);
        bin.begin_view();
        for (const std::size_t body : dynamic)
            for (std::size_t k = 0; k < samples; ++k)
                bin.append(&rec.rotations[4 * (k * body_count + body)], 16);
        const Json turn_view = bin.end_view(views);
        Json samplers = Json::array(), channels = Json::array();
        for (std::size_t d = 0; d < dynamic.size(); ++d) {
            for (const auto& [path, view, width, type] :
                 {std::tuple{"translation", move_view, std::size_t{3}, "VEC3"},
                  std::tuple{"rotation", turn_view, std::size_t{4}, "VEC4"}}) {
                accessors.push_back({{"bufferView", view},
                                     {"byteOffset", d * samples * width * 4},
                                     {"componentType", kFloat},
                                     {"count", samples},
                                     {"type", type}});
                samplers.push_back({{"input", time_accessor},
                                    {"output", accessors.size() - 1},
                                    {"interpolation", "LINEAR"}});
                channels.push_back(
                    {{"sampler", samplers.size() - 1}, {"target", {{"node", dynamic[d]}, {"path", path}}}});
            }
        }
        animations.push_back(
            {{"name", "simulation"}, {"samplers", std::move(samplers)}, {"channels", std::move(channels)}});
    }

    // Two per scene material: 2 m for dynamic bodies, 2 m + 1 for static ones.
    Json materials = Json::array();
    for (const SceneMaterial& m : scene.materials)
        for (const bool is_static : {false, true})
            materials.push_back({{"name", is_static ? m.name + " (static)" : m.name},
                                 {"pbrMetallicRoughness",
                                  {{"baseColorFactor", material_colour(m.name, is_static)},
                                   {"metallicFactor", 0.0},
                                   {"roughnessFactor", 0.8}}}});

    // Run metadata for the viewer: per-sample totals and velocities, contact points, events.
    Json bodies = Json::array();
    for (const SceneBody& b : scene.bodies)
        bodies.push_back({{"name", b.name},
                          {"dynamic", !b.desc.is_static},
                          {"shape", shape_type_name(b.desc.shape->type())},
                          {"material", scene.materials[b.desc.material].name}});
    Json event_list = Json::array();
    for (const SceneEvent& e : events)
        event_list.push_back({{"t", e.time},
                              {"type", event_type(e.type)},
                              {"a", scene.bodies[e.a].name},
                              {"b", e.b == kSceneWorld ? std::string("world") : scene.bodies[e.b].name}});
    Json momentum = Json::array();
    for (std::size_t k = 0; k < samples; ++k)
        momentum.push_back({rec.momentum[3 * k], rec.momentum[3 * k + 1], rec.momentum[3 * k + 2]});
    Json extras = {
        {"scene", scene.name},
        {"file", scene.file},
        {"up", up_axis(scene)},
        {"dt", scene.dt},
        {"duration", scene.duration},
        {"bodies", std::move(bodies)},
        {"times", rec.times},
        {"kinetic", rec.kinetic},
        {"potential", rec.potential},
        {"momentum", std::move(momentum)},
        {"events", std::move(event_list)},
        {"velocities",
         {{"bufferView", bin.add_view(rec.velocities, views)},
          {"layout", "per sample, per body: vx vy vz wx wy wz (float32)"}}},
        {"contacts",
         {{"bufferView", bin.add_view(rec.contacts, views)},
          {"offsets", rec.contact_offsets},
          {"layout", "per point: x y z nx ny nz (float32); sample k: points offsets[k] to offsets[k+1]"}}}};
    if (domino) extras["domino"] = domino_extras(scene, events, *domino);
    if (!scene.cables.empty()) extras["cables"] = cable_extras(scene, rec, bin, views);

    std::string& bytes = bin.bytes();
    while (bytes.size() % 4 != 0) bytes.push_back('\0');
    Json scene_nodes = Json::array();
    for (std::size_t i = 0; i < body_count; ++i) scene_nodes.push_back(i);
    Json document = {{"asset", {{"version", "2.0"}, {"generator", "simpulse"}}},
                     {"scene", 0},
                     {"scenes", {{{"name", scene.name}, {"nodes", std::move(scene_nodes)}}}},
                     {"nodes", std::move(nodes)},
                     {"meshes", std::move(meshes)},
                     {"materials", std::move(materials)},
                     {"accessors", std::move(accessors)},
                     {"bufferViews", std::move(views)},
                     {"buffers", {{{"byteLength", bytes.size()}}}},
                     {"extras", {{"simpulse", std::move(extras)}}}};
    if (!animations.empty()) document["animations"] = std::move(animations);

    GlbChunks chunks{document.dump(-1, ' ', false, Json::error_handler_t::replace), std::move(bytes)};
    while (chunks.json.size() % 4 != 0) chunks.json.push_back(' ');
    const std::size_t total = glb_size(chunks);
    if (total > std::numeric_limits<std::uint32_t>::max())
        throw std::invalid_argument("recording: " + std::to_string(total) +
                                    " bytes is beyond the 4 GiB a GLB file can hold");
    return chunks;
}

// The 12-byte header and the two chunk headers (glTF 2.0, section 4.4), little-endian.
std::string glb_header(const GlbChunks& c, bool bin_chunk) {
    std::string out;
    auto u32 = [&](std::size_t v) {
        for (int k = 0; k < 4; ++k) out.push_back(static_cast<char>((v >> (8 * k)) & 0xff));
    };
    if (!bin_chunk) {
        u32(0x46546C67);  // "glTF"
        u32(2);
        u32(glb_size(c));
        u32(c.json.size());
        u32(0x4E4F534A);  // "JSON"
    } else {
        u32(c.bin.size());
        u32(0x004E4942);  // "BIN\0"
    }
    return out;
}

}  // namespace

std::string gltf_binary(const SceneDesc& scene, const Recording& rec, const std::vector<SceneEvent>& events,
                        const std::optional<DominoTiming>& domino) {
    const GlbChunks c = glb_chunks(scene, rec, events, domino);
    std::string glb;
    glb.reserve(glb_size(c));
    glb += glb_header(c, false);
    glb += c.json;
    glb += glb_header(c, true);
    glb += c.bin;
    return glb;
}

void write_gltf_binary(std::ostream& out, const SceneDesc& scene, const Recording& rec,
                       const std::vector<SceneEvent>& events, const std::optional<DominoTiming>& domino) {
    const GlbChunks c = glb_chunks(scene, rec, events, domino);
    out << glb_header(c, false) << c.json << glb_header(c, true);
    out.write(c.bin.data(), static_cast<std::streamsize>(c.bin.size()));
}

}  // namespace simpulse
