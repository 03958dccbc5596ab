// The self-contained HTML replay (`simpulse run --html`): one page holding the GLB as base64 and the viewer
// bundle (engine/viewer, embedded at build time as replay_detail::kViewerBundle) inline, so that it opens
// offline from a file URL with nothing loaded from the network.
#include <simpulse/app/replay.h>

#include <stdexcept>
#include <string_view>

namespace simpulse {
namespace replay_detail {
// Defined in the generated viewer_bundle.cpp (engine/CMakeLists.txt): the esbuild bundle, or nothing when the
// viewer was not built.
extern const bool kViewerBuilt;
extern const std::size_t kViewerBundleSize;
extern const unsigned char kViewerBundle[];
}  // namespace replay_detail

namespace {

std::string base64(const std::string& bytes) {
    static constexpr char kDigits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4 + bytes.size() / 57 + 1);
    std::size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        const auto b = (std::uint32_t(std::uint8_t(bytes[i])) << 16) |
                       (std::uint32_t(std::uint8_t(bytes[i + 1])) << 8) | std::uint8_t(bytes[i + 2]);
        out += {kDigits[b >> 18], kDigits[(b >> 12) & 63], kDigits[(b >> 6) & 63], kDigits[b & 63]};
        if ((i / 3 + 1) % 19 == 0) out += '\n';  // 76-character lines
    }
    if (i + 1 == bytes.size()) {
        const std::uint32_t b = std::uint32_t(std::uint8_t(bytes[i])) << 16;
        out += {kDigits[b >> 18], kDigits[(b >> 12) & 63], '=', '='};
    } else if (i + 2 == bytes.size()) {
        const auto b =
            (std::uint32_t(std::uint8_t(bytes[i])) << 16) | (std::uint32_t(std::uint8_t(bytes[i + 1])) << 8);
        out += {kDigits[b >> 18], kDigits[(b >> 12) & 63], kDigits[(b >> 6) & 63], '='};
    }
    return out;
}

std::string escape_html(std::string_view text) {
    std::string out;
    for (const char c : text) switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            default:
                out += c;
        }
    return out;
}

}  // namespace

bool replay_viewer_built() {
    return replay_detail::kViewerBuilt;
}

std::string html_replay(const std::string& title, const std::string& glb) {
    if (!replay_viewer_built()) throw std::logic_error("html_replay: the replay viewer was not built");
    const std::string_view bundle(reinterpret_cast<const char*>(replay_detail::kViewerBundle),
                                  replay_detail::kViewerBundleSize);
    if (bundle.find("</script") != std::string_view::npos)
        throw std::logic_error("html_replay: the viewer bundle contains </script");
    std::string page;
    page.reserve(glb.size() * 4 / 3 + bundle.size() + 1024);
    page += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>simpulse: ";
    page += escape_html(title);
    page += "</title>\n</head>\n<body>\n<script id=\"simpulse-glb\" type=\"application/octet-stream\">\n";
    page += base64(glb);  // base64 has no '<': it cannot end the element early
    page += "\n</script>\n<script>\n";
    page += bundle;
    page += "\n</script>\n</body>\n</html>\n";
    return page;
}

}  // namespace simpulse
